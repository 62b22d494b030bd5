"""Every recording dialect reads to the same interactions and verdicts: the dialect fixtures are two
real recordings re-expressed by ``tests/provider/dialects/build.py`` in each recorder's shape."""

from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import pytest

from conformance.provider.analyze import analyze_file
from conformance.provider.recordings import RecordingError, read_recording

DIALECTS = Path(__file__).resolve().parent / "dialects"
REAL = Path(__file__).resolve().parent / "real"
SOURCES = {"anthropic": REAL / "ruby_llm" / "anthropic_compacts_a_long_conversation.yml",
           "openai": REAL / "openai" / "test_openai_responses_compact_stateful_mode.yaml"}
FIXTURES = {
    "go-vcr-v1.anthropic.yaml": "go-vcr", "go-vcr-v4.openai.yaml": "go-vcr", "polly.anthropic.har": "polly",
    "nock.openai.json": "nock", "nock-gzip.anthropic.json": "nock", "ruby-vcr.openai.json": "ruby-vcr",
    "gateway-request-body.openai.jsonl": "jsonl", "gateway-messages.anthropic.jsonl": "jsonl",
}


def _verdicts(path: Path) -> list[tuple[str, int | None, str]]:
    result = analyze_file(path)
    assert result.error is None
    return [(j.verdict, j.live_start, j.endpoint) for j in result.judgements]


def test_every_fixture_is_listed() -> None:
    assert sorted(p.name for p in DIALECTS.iterdir() if p.is_file() and p.suffix != ".py" and p.name != "README.md") == sorted(FIXTURES)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_dialect_reads_as_its_real_source(name: str) -> None:
    path = DIALECTS / name
    items = read_recording(path)
    assert {i.dialect for i in items} == {FIXTURES[name]} and all(i.error is None for i in items)
    source = SOURCES[name.split(".")[1]]
    expected = [(i.request, i.response, i.status) for i in read_recording(source)]
    if "messages" in name:
        expected = expected * 2  # the gateway log holds the interaction twice
    assert [(i.request, i.response, i.status) for i in items] == expected
    assert _verdicts(path) == (_verdicts(source) * (2 if "messages" in name else 1))


def test_ruby_binary_tag_and_base64_string(tmp_path: Path) -> None:
    body = base64.b64encode(b'{"type":"message","content":[],"role":"assistant"}').decode()
    path = tmp_path / "old.yml"
    path.write_text("---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.anthropic.com/v1/messages\n"
                    "    body:\n      encoding: UTF-8\n      string: '{\"messages\": []}'\n  response:\n"
                    "    status:\n      code: 200\n      message: OK\n    body:\n      encoding: ASCII-8BIT\n"
                    f"      string: !binary |-\n        {body}\n  recorded_at: x\nrecorded_with: VCR 2.9.3\n")
    (item,) = read_recording(path)
    assert item.dialect == "ruby-vcr" and item.response == {"type": "message", "content": [], "role": "assistant"}


def test_go_vcr_status_text_and_an_unreadable_entry(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("version: 1\ninteractions:\n- request: {url: 'https://api.openai.com/v1/responses', body: '{}', "
                    "method: POST}\n  response: {body: '{\"object\": \"response\"}', status: 429 Too Many Requests, "
                    "code: 429}\n- 7\n")
    first, second = read_recording(path)
    assert first.dialect == "go-vcr" and first.status == 429 and first.endpoint == "/v1/responses"
    assert second.unreadable and second.error == "interactions[1] is not a mapping"


def test_nock_headers_as_a_mapping_and_a_binary_hex_body(tmp_path: Path) -> None:
    path = tmp_path / "n.json"
    hexed = json.dumps({"type": "message", "content": [], "role": "assistant"}).encode().hex()
    path.write_text(json.dumps([{"scope": "https://api.anthropic.com:443", "method": "POST", "path": "/v1/messages",
                                 "body": "", "status": 200, "response": hexed, "responseIsBinary": True,
                                 "rawHeaders": {"content-type": "application/json"}}]))
    (item,) = read_recording(path)
    assert item.dialect == "nock" and item.request is None and item.response["type"] == "message"
    assert item.url == "https://api.anthropic.com:443/v1/messages"


def test_an_openai_batch_output_line_is_a_response_only_record(tmp_path: Path) -> None:
    path = tmp_path / "batch_output.jsonl"
    line = {"id": "batch_req_1", "custom_id": "a", "response": {"status_code": 200, "request_id": "req_1",
                                                                "body": {"object": "response", "output": []}}}
    path.write_text(json.dumps(line) + "\n" + json.dumps(line) + "\n")
    items = read_recording(path)
    assert [(i.response_only, i.status, i.line) for i in items] == [(True, 200, 1), (True, 200, 2)]


def test_a_json_mapping_of_no_dialect_names_them_all(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"hello": "world"}')
    with pytest.raises(RecordingError, match="ruby-vcr, go-vcr, vcrpy, vcrpy-lists, polly, har, nock, sse, jsonl, response"):
        read_recording(path)


def test_the_fixtures_are_what_the_build_script_writes() -> None:
    spec = importlib.util.spec_from_file_location("dialects_build", DIALECTS / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    for name, text in build.fixtures().items():
        assert (DIALECTS / name).read_text(encoding="utf-8") == text, f"{name}: run python tests/provider/dialects/build.py"


def test_a_betamax_cassette_reads_as_the_vcr_shape_it_copies(tmp_path: Path) -> None:
    source = read_recording(SOURCES["anthropic"])[0]
    path = tmp_path / "betamax.json"
    path.write_text(json.dumps({"http_interactions": [{
        "request": {"body": {"encoding": "utf-8", "string": json.dumps(source.request)},
                    "headers": {"Content-Type": "application/json"}, "method": "POST", "uri": source.url},
        "response": {"body": {"encoding": "utf-8", "string": json.dumps(source.response)},
                     "headers": {"Content-Type": "application/json"}, "status": {"code": 200, "message": "OK"},
                     "url": source.url},
        "recorded_at": "2026-08-19T14:34:26"}], "recorded_with": "betamax/0.8.1"}))
    (item,) = read_recording(path)
    assert item.dialect == "ruby-vcr" and (item.request, item.response) == (source.request, source.response)
    assert [j.verdict for j in analyze_file(path).judgements] == ["reached-live-task"]


def test_vcrpy_lists_pair_by_index_and_an_unpaired_request_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps({"requests": [{"method": "POST", "uri": "https://api.openai.com/v1/responses",
                                              "body": "{}"}] * 2,
                                "responses": [{"status": {"code": 200, "message": "OK"},
                                               "body": {"string": '{"object": "response", "output": []}'}}]}))
    first, second = read_recording(path)
    assert first.dialect == "vcrpy-lists" and first.response == {"object": "response", "output": []}
    assert second.unreadable and second.error == "responses[1] is missing or not a mapping (2 requests, 1 responses)"


def test_the_dialect_fixtures_are_clean() -> None:
    """Every committed fixture of this folder is audited: no key, id or reasoning text."""
    from conformance.provider.audit import audit

    findings, files = audit([DIALECTS])
    assert files == len(FIXTURES) and findings == [], findings
