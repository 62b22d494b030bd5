"""What reaches a cassette: allowlisted headers, scrubbed reasoning, decoded bodies, no retryables."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vcr.request import Request

from conformance.errors import SpecError
from conformance.provider import cassettes
from conformance.provider.anthropic.probes import Probe
from .._yaml import load_yaml


def test_placeholder_is_deterministic_and_idempotent() -> None:
    once = cassettes.placeholder("secret plan")
    assert once == cassettes.placeholder("secret plan") and cassettes.PLACEHOLDER.match(once)
    assert cassettes.placeholder(once) == once


def test_scrub_json_and_sse_bodies() -> None:
    body = json.dumps({"content": [{"type": "thinking", "thinking": "raw idea", "signature": "s"},
                                   {"type": "text", "text": "raw idea stays in text"}]}).encode()
    scrubbed = cassettes.scrub_body(body)
    assert b"raw idea\"" not in scrubbed and b"raw idea stays in text" in scrubbed and b"[scrubbed:" in scrubbed
    assert cassettes.scrub_body(scrubbed) == scrubbed
    sse = (b"event: content_block_delta\n"
           b'data: {"type":"content_block_delta","delta":{"type":"thinking_delta","thinking":"step one"}}\n\n')
    assert b"step one" not in cassettes.scrub_body(sse) and b"event: content_block_delta" in cassettes.scrub_body(sse)
    assert cassettes.scrub_body(b"plain text") == b"plain text"


THINKING_EVENT = {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "thinking_delta", "thinking": "the refund needs the SSN 123-45-6789"}}
REASONING_ITEM = {"type": "response.output_item.done", "output_index": 0,
                  "item": {"type": "reasoning", "id": "rs_1", "summary": [],
                           "encrypted_content": "gAAAAABo-ciphertext-of-the-reasoning"}}


@pytest.mark.parametrize("opening", [": keep-alive\n\n", ": OPENROUTER PROCESSING\n\n", "id: 1\n", "retry: 3000\n\n"])
@pytest.mark.parametrize(("event", "secret"), [(THINKING_EVENT, "123-45-6789"),
                                               (REASONING_ITEM, "gAAAAABo-ciphertext")])
def test_a_stream_opening_with_a_comment_id_or_retry_line_is_scrubbed(opening: str, event: dict, secret: str) -> None:
    name = event["type"]
    body = f"{opening}event: {name}\ndata: {json.dumps(event)}\n\n".encode()
    hook = cassettes.make_response_filter("x")
    stored = hook({"status": {"code": 200}, "headers": {"content-type": ["text/event-stream"]},
                   "body": {"string": body}})
    assert stored is not None
    written = stored["body"]["string"]
    assert secret.encode() not in written and b"[scrubbed:" in written
    assert written.startswith(opening.encode()) and f"event: {name}".encode() in written


REDACTED_DATA = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


@pytest.mark.parametrize("body", [
    json.dumps({"type": "message", "content": [{"type": "redacted_thinking", "data": REDACTED_DATA},
                                               {"type": "text", "text": "Done."}]}).encode(),
    json.dumps({"messages": [{"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": REDACTED_DATA}, {"type": "thinking", "thinking": "a", "signature": "sig1"}]
    }]}).encode(),
    ("event: content_block_start\ndata: " + json.dumps({"type": "content_block_start", "index": 0, "content_block": {
        "type": "redacted_thinking", "data": REDACTED_DATA}}) + "\n\n").encode(),
])
def test_redacted_thinking_data_is_scrubbed(body: bytes) -> None:
    scrubbed = cassettes.scrub_body(body)
    assert REDACTED_DATA.encode() not in scrubbed
    assert cassettes.placeholder(REDACTED_DATA).encode() in scrubbed
    assert cassettes.scrub_body(scrubbed) == scrubbed
    if b"sig1" in body:
        assert b"sig1" in scrubbed  # signatures stay: the API checks them


def test_request_headers_are_allowlisted() -> None:
    request = Request("POST", "http://127.0.0.1:1/v1/messages", b"{}",
                      {"Authorization": "Bearer sk-ant-abc", "x-api-key": "k", "anthropic-beta": "b",
                       "x-stainless-os": "Linux"})
    clean = cassettes.before_record_request(request)
    assert set(clean.headers) == {"anthropic-beta"}


def test_retryable_answers_are_dropped() -> None:
    hook = cassettes.make_response_filter("x")
    for code in (408, 409, 429, 500, 529):
        assert hook({"status": {"code": code}, "headers": {}, "body": {"string": b"{}"}}) is None
    assert hook({"status": {"code": 400}, "headers": {"x-should-retry": ["true"]}, "body": {"string": b"{}"}}) is None
    kept = hook({"status": {"code": 400}, "headers": {"Request-Id": ["req_1"]}, "body": {"string": b"{}"}})
    assert kept is not None and "request-id" not in kept["headers"] and kept["headers"]["x-conformance-server"] == ["x"]


def test_hashed_matcher_names_the_difference() -> None:
    a = Request("POST", "http://h/v1/messages", b'{"a":1,"b":2}', {})
    b = Request("POST", "http://h/v1/messages", b'{"b":2,"a":1}', {})
    c = Request("POST", "http://h/v1/messages", b'{"a":2}', {})
    cassettes.body_hash_matcher(a, b)
    with pytest.raises(AssertionError, match="request body differs"):
        cassettes.body_hash_matcher(a, c)


def test_recorded_cassette_is_scrubbed_decoded_and_named(record_with, probes: dict[str, Probe]) -> None:
    out, outcomes = record_with(["clear-thinking.keep-one-turn"])
    path = outcomes[0].path
    assert path == out / "emulator" / "clear-thinking.keep-one-turn.yaml"
    data = load_yaml(path.read_text())
    assert data["metadata"]["server"] == "emulator" and data["metadata"]["probe"] == "clear-thinking.keep-one-turn"
    for item in data["interactions"]:
        assert set(item["request"]["headers"]) <= cassettes.request_headers_kept()
        assert set(item["response"]["headers"]) <= cassettes.RESPONSE_HEADERS_KEPT | {"content-length"}
        json.loads(item["response"]["body"]["string"])  # stored decoded, not gzip
    text = path.read_text()
    assert "Emulator deliberation" not in text and "Start with the deploy log" not in text
    assert "anthropic-organization-id" not in text and "dummy" not in text


def test_retryable_answer_writes_nothing(record_with) -> None:
    out, outcomes = record_with(["clear-tool-uses.keep-below-live-task"], ["overloaded"])
    assert not outcomes[0].ok and "529" in outcomes[0].note
    assert not list(Path(out).rglob("*.yaml"))


@pytest.mark.parametrize(("text", "needle"), [
    ("version: 2\ninteractions: []\n", "format version must be 1"),
    ("version: 1\ninteractions: []\n", "no interactions"),
    ("- a\n- b\n", "not a vcrpy cassette"),
    ("version: 1\ninteractions:\n- request: {method: POST, uri: u}\n  response: {}\n", "request lacks body"),
    ("version: 1\ninteractions:\n- request: {method: POST, uri: u, body: ''}\n  response: {body: {string: ''}}\n",
     "status.code"),
    ("version: 1\ninteractions:\n- request: {method: POST, uri: u, body: ''}\n  response: {status: {code: 200}}\n",
     "body.string"),
    (("version: 1\ninteractions:\n- request: {method: POST, uri: u, body: [1]}\n"
      "  response: {status: {code: 200}, body: {string: ''}}\n"), "request body is not text"),
])
def test_malformed_cassettes_are_located(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(SpecError, match=needle) as raised:
        cassettes.load_cassette(path)
    assert raised.value.path == str(path)


def test_a_body_left_compressed_is_refused_not_stored() -> None:
    hook = cassettes.make_response_filter("x")
    with pytest.raises(cassettes.UnscrubbableResponse, match="encoded as br"):
        hook({"status": {"code": 200}, "headers": {"Content-Encoding": ["br"]}, "body": {"string": b"\x8b\x00"}})
    kept = hook({"status": {"code": 200}, "headers": {"content-encoding": ["identity"]}, "body": {"string": b"{}"}})
    assert kept is not None and "content-encoding" not in kept["headers"]


@pytest.mark.parametrize(("uri", "kept", "gone"), [
    ("https://team-gw:gw_9f8e7d6c5b4a@gateway.example/v1/messages", "https://gateway.example/v1/messages",
     "gw_9f8e7d6c5b4a"),
    ("https://gw_live_token_77@gateway.example/v1/messages", "https://gateway.example/v1/messages", "gw_live_token_77"),
    ("https://gateway.example/v1/messages?beta=true&api_key=gwk_live_4f9a8b7c&max_tokens=5",
     "https://gateway.example/v1/messages?beta=true&api_key=REDACTED&max_tokens=5", "gwk_live_4f9a8b7c"),
    ("https://host.example/v1beta/models/m:generateContent?key=AIzaSyA-0123456789abcdefghijklmnopqrstu",
     "https://host.example/v1beta/models/m:generateContent?key=REDACTED", "AIzaSy"),
    ("https://host.example/v1/x?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE&X-Amz-Signature=0f1e2d;access_token=tok123",
     "https://host.example/v1/x?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED;access_token=REDACTED",
     "AKIAIOSFODNN7EXAMPLE"),
])
def test_a_recorded_uri_keeps_no_credential(uri: str, kept: str, gone: str) -> None:
    clean = cassettes.before_record_request(Request("POST", uri, b"{}", {}))
    assert clean.uri == kept and gone not in clean.uri
    assert clean.path == Request("POST", uri, b"{}", {}).path  # replay matches on the path, which is unchanged


def test_a_request_recorded_through_a_credentialed_url_is_stored_without_it_and_replays(tmp_path: Path) -> None:
    import http.server
    import threading

    import httpx2

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b'{"answer": 42}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://team-gw:gw_secret_9f8e7d@127.0.0.1:{server.server_port}/v1/messages?key=gwk_live_4f9a8b7c&beta=1"
    path = tmp_path / "cassette.yaml"
    try:
        with cassettes.make_vcr("all", "srv").use_cassette(str(path)), httpx2.Client() as client:
            assert client.post(url, json={"q": 1}).json() == {"answer": 42}
    finally:
        server.shutdown()
        server.server_close()
    text = path.read_text()
    assert "gw_secret_9f8e7d" not in text and "team-gw" not in text and "gwk_live_4f9a8b7c" not in text
    stored = load_yaml(text)["interactions"][0]["request"]["uri"]
    assert stored == f"http://127.0.0.1:{server.server_port}/v1/messages?key=REDACTED&beta=1"
    with cassettes.network_blocked(), cassettes.make_vcr("none").use_cassette(str(path)) as cassette, \
            httpx2.Client() as client:
        assert client.post(stored, json={"q": 1}).json() == {"answer": 42}  # as replay sends it: to the stored URI
        assert cassette.play_count == 1
