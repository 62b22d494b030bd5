"""The recording readers: every container and body encoding comes back as the same interactions."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path
from typing import Any

import brotli
import pytest
import yaml
import zstandard

from conformance.provider.recordings import BodyError, RecordingError, read_recording
from conformance.provider.recordings.bodies import decode
from conformance.provider.recordings.sse import reassemble

URL = "https://api.anthropic.com/v1/messages"
REQUEST = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}],
           "context_management": {"edits": [{"type": "compact_20260112"}]}}
RESPONSE = {"type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": "hello"}], "context_management": {"applied_edits": []},
            "usage": {"input_tokens": 10, "output_tokens": 2}}


def _cassette(request_body: Any, response_body: Any, *, encoding: str = "", content_type: str = "application/json",
              response_key: str = "body") -> dict[str, Any]:
    headers = {"content-type": [content_type]} | ({"content-encoding": [encoding]} if encoding else {})
    return {"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": URL, "body": request_body, "headers": {"content-type": ["application/json"]}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": headers, response_key: response_body}}]}


def _write_yaml(tmp_path: Path, data: Any, name: str = "c.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _only(path: Path) -> Any:
    items = read_recording(path)
    assert len(items) == 1 and items[0].error is None, [i.error for i in items]
    return items[0]


def _text() -> str:
    return json.dumps(RESPONSE)


ENCODED = {
    "string": lambda: {"string": _text()},
    "bare text": _text,
    "bytes": lambda: {"string": _text().encode()},
    "base64 text": lambda: {"string": base64.b64encode(_text().encode()).decode()},
    "base64_string": lambda: {"base64_string": base64.b64encode(_text().encode()).decode()},
    "gzip bytes": lambda: {"string": gzip.compress(_text().encode())},
    "zstd bytes": lambda: {"string": zstandard.ZstdCompressor().compress(_text().encode())},
    "gzip base64": lambda: {"string": base64.b64encode(gzip.compress(_text().encode())).decode()},
}


@pytest.mark.parametrize("kind", sorted(ENCODED))
def test_yaml_cassette_bodies_decode(tmp_path: Path, kind: str) -> None:
    item = _only(_write_yaml(tmp_path, _cassette(json.dumps(REQUEST), ENCODED[kind]())))
    assert item.request == REQUEST and item.response == RESPONSE
    assert (item.status, item.endpoint, item.host) == (200, "/v1/messages", "api.anthropic.com")


def test_brotli_is_told_by_content_encoding_and_without_it(tmp_path: Path) -> None:
    packed = brotli.compress(_text().encode())
    assert _only(_write_yaml(tmp_path, _cassette(json.dumps(REQUEST), {"string": packed}, encoding="br"))).response == RESPONSE
    assert _only(_write_yaml(tmp_path, _cassette(json.dumps(REQUEST), {"string": packed}), "b.yaml")).response == RESPONSE


def test_parsed_bodies_under_another_key(tmp_path: Path) -> None:
    data = _cassette(None, None)
    for side, body in (("request", REQUEST), ("response", RESPONSE)):
        part = data["interactions"][0][side]
        part.pop("body")
        part["parsed_body"] = body
    assert (item := _only(_write_yaml(tmp_path, data))).request == REQUEST and item.response == RESPONSE


def test_json_serializer_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(_cassette(json.dumps(REQUEST), {"string": _text()})))
    assert _only(path).response == RESPONSE


def test_gzip_compressed_cassette_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml.gz"
    path.write_bytes(gzip.compress(yaml.safe_dump(_cassette(json.dumps(REQUEST), {"string": _text()})).encode()))
    assert _only(path).response == RESPONSE


def test_several_interactions_keep_their_order(tmp_path: Path) -> None:
    data = _cassette(json.dumps(REQUEST), {"string": _text()})
    second = json.loads(json.dumps(data["interactions"][0]))
    second["response"]["status"]["code"] = 400
    data["interactions"].append(second)
    items = read_recording(_write_yaml(tmp_path, data))
    assert [(i.index, i.status) for i in items] == [(0, 200), (1, 400)]


def test_har_log(tmp_path: Path) -> None:
    har = {"log": {"version": "1.2", "creator": {"name": "proxy", "version": "1"}, "entries": [{
        "request": {"method": "POST", "url": URL, "headers": [{"name": "Content-Type", "value": "application/json"}],
                    "postData": {"mimeType": "application/json", "text": json.dumps(REQUEST)}},
        "response": {"status": 200, "headers": [{"name": "Content-Encoding", "value": "gzip"}],
                     "content": {"mimeType": "application/json", "encoding": "base64",
                                 "text": base64.b64encode(gzip.compress(_text().encode())).decode()}}}]}}
    path = tmp_path / "export.har"
    path.write_text(json.dumps(har))
    item = _only(path)
    assert item.request == REQUEST and item.response == RESPONSE and item.status == 200


WIRE = {"br": brotli.compress, "deflate": zlib.compress, "gzip": gzip.compress,
        "zstd": zstandard.ZstdCompressor().compress}


@pytest.mark.parametrize("wire", sorted(WIRE))
@pytest.mark.parametrize("stored", ["decoded", "as sent"])
def test_har_base64_text_is_read_whatever_the_wire_encoding(tmp_path: Path, wire: str, stored: str) -> None:
    """HAR 1.2 keeps a body decoded, base64 being only how its text is written, while the headers
    still name the wire's content-encoding; an exporter may keep the bytes as sent instead."""
    def text(body: str) -> str:
        raw = body.encode()
        return base64.b64encode(raw if stored == "decoded" else WIRE[wire](raw)).decode()

    encoded = [{"name": "Content-Type", "value": "application/json"}, {"name": "Content-Encoding", "value": wire}]
    har = {"log": {"version": "1.2", "creator": {"name": "proxy", "version": "1"}, "entries": [{
        "request": {"method": "POST", "url": URL, "headers": encoded,
                    "postData": {"mimeType": "application/json", "encoding": "base64", "text": text(json.dumps(REQUEST))}},
        "response": {"status": 200, "headers": encoded,
                     "content": {"mimeType": "application/json", "encoding": "base64", "text": text(_text())}}}]}}
    path = tmp_path / "export.har"
    path.write_text(json.dumps(har))
    item = _only(path)
    assert item.request == REQUEST and item.response == RESPONSE


def test_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "gateway.jsonl"
    lines = [{"url": URL, "request": REQUEST, "response": RESPONSE, "status": 200},
             {"request": {"url": URL, "body": json.dumps(REQUEST)}, "response": {"status_code": 200, "body": _text()}}]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    items = read_recording(path)
    assert [(i.request, i.response, i.endpoint) for i in items] == [(REQUEST, RESPONSE, "/v1/messages")] * 2


def _sse(*events: dict[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


MESSAGES_STREAM = _sse(
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
                                          "model": "m", "usage": {"input_tokens": 100, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "summary"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\": "}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "1}"}},
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
     "usage": {"output_tokens": 9, "iterations": [{"type": "compaction"}, {"type": "message"}]},
     "context_management": {"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 1,
                                               "cleared_input_tokens": 50}]}},
    {"type": "message_stop"})


def test_messages_stream_is_reassembled_with_the_report_at_the_end() -> None:
    message = reassemble(MESSAGES_STREAM)
    assert message["content"] == [{"type": "compaction", "content": "summary"},
                                  {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}]
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {"input_tokens": 100, "output_tokens": 9,
                                "iterations": [{"type": "compaction"}, {"type": "message"}]}
    assert message["context_management"]["applied_edits"][0]["cleared_tool_uses"] == 1


def test_report_inside_the_delta_is_read_too() -> None:
    stream = MESSAGES_STREAM.replace('"delta": {"stop_reason": "tool_use"}, "usage"',
                                     '"delta": {"stop_reason": "tool_use", "context_management": {"applied_edits": []}}, "usage"')
    stream = stream.replace(', "context_management": {"applied_edits": [{"type": "clear_tool_uses_20250919", '
                            '"cleared_tool_uses": 1, "cleared_input_tokens": 50}]}', "")
    assert reassemble(stream)["context_management"] == {"applied_edits": []}


def test_streamed_cassette_body(tmp_path: Path) -> None:
    item = _only(_write_yaml(tmp_path, _cassette(json.dumps(REQUEST), {"string": MESSAGES_STREAM},
                                                 content_type="text/event-stream")))
    assert item.streamed and item.response["content"][0]["type"] == "compaction"


def test_responses_stream_takes_the_terminal_response() -> None:
    final = {"id": "resp_1", "object": "response", "output": [{"type": "compaction", "id": "cmp_1"}]}
    stream = _sse({"type": "response.created", "response": {"id": "resp_1", "output": []}},
                  {"type": "response.output_item.done", "output_index": 0, "item": {"type": "message"}},
                  {"type": "response.completed", "response": final})
    assert reassemble(stream) == final
    partial = _sse({"type": "response.created", "response": {"id": "resp_1", "output": []}},
                   {"type": "response.output_item.done", "output_index": 0, "item": {"type": "message"}})
    assert reassemble(partial)["output"] == [{"type": "message"}]


@pytest.mark.parametrize("body, message", [
    ({"string": b"\x1f\x8b\x08\x00broken"}, "does not decompress"),
    ({"string": "{not json"}, "does not parse"),
    ({"string": "plain words, no JSON"}, "neither JSON"),
    ({"string": _sse({"type": "message_start", "message": {"content": []}},
                     {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                     {"type": "content_block_delta", "index": 0, "delta": {"type": "mystery_delta"}})}, "unknown type"),
    ({"string": "event: x\ndata: {not json}\n\n"}, "not JSON"),
])
def test_undecodable_bodies_are_errors_of_their_interaction(tmp_path: Path, body: Any, message: str) -> None:
    data = _cassette(json.dumps(REQUEST), body)
    data["interactions"].append(_cassette(json.dumps(REQUEST), {"string": _text()})["interactions"][0])
    first, second = read_recording(_write_yaml(tmp_path, data))
    assert first.error is not None and message in first.error and first.error.startswith("response body")
    assert first.request == REQUEST  # what could be read is kept
    assert second.error is None and second.response == RESPONSE


def test_a_stream_of_another_shape_is_kept_as_events() -> None:
    assert reassemble(_sse({"type": "ping"}, {"type": "chunk", "n": 1})) == {
        "object": "event-stream", "events": [{"type": "ping"}, {"type": "chunk", "n": 1}]}


def test_a_non_json_body_of_another_content_type_is_noted_not_an_error(tmp_path: Path) -> None:
    item = _only(_write_yaml(tmp_path, _cassette(json.dumps(REQUEST), {"string": b"\x89PNG\r\n\x1a\n\x00\xff"},
                                                 content_type="image/png")))
    assert item.response is None and item.notes == ["response body (image/png) is not JSON; not read"]


def test_decode_raises_body_error() -> None:
    with pytest.raises(BodyError):
        decode({"base64_string": "***"})


@pytest.mark.parametrize("text, line", [("interactions: [\n  - {a: 1\n", 2), ("just: a mapping\n", 0),
                                        ("[1, 2, 3]", 0)])
def test_a_file_that_is_no_recording_names_itself(tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RecordingError) as caught:
        read_recording(path)
    assert caught.value.path == str(path) and caught.value.line == line


def test_json_lines_with_a_bad_line_keep_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"url": URL, "request": REQUEST, "response": RESPONSE}) + "\n{oops\n"
                    + json.dumps({"url": URL, "request": REQUEST, "response": RESPONSE}) + "\n")
    items = read_recording(path)
    assert [i.error is None for i in items] == [True, False, True] and "line 2" in (items[1].error or "")


def test_a_yaml_document_whose_first_key_is_data_is_not_an_event_stream(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("data: fixture\ninteractions: []\n")
    assert read_recording(path) == []
    stream = tmp_path / "s.sse"
    stream.write_text(MESSAGES_STREAM)
    (item,) = read_recording(stream)
    assert item.response_only and item.dialect == "sse" and item.streamed
