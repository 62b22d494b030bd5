"""Write the dialect fixtures: two real recordings re-expressed in the shape each recorder writes.

Run ``python tests/provider/dialects/build.py`` from the checkout to regenerate them. The sources
are real: ruby_llm's Anthropic compaction cassette (one interaction) and pydantic-ai's OpenAI
stateful-mode cassette (four interactions chained by ``previous_response_id``), both in
``tests/provider/real/``. Only the container changes; every body is the recorded one.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "real"
ANTHROPIC = REAL / "ruby_llm" / "anthropic_compacts_a_long_conversation.yml"
OPENAI = REAL / "openai" / "test_openai_responses_compact_stateful_mode.yaml"


def _pairs() -> dict[str, list[tuple[str, str, str]]]:
    """Returns per source (url, request body text, response body text) as recorded."""
    from conformance.provider.recordings import read_recording

    found = {}
    for name, path in (("anthropic", ANTHROPIC), ("openai", OPENAI)):
        found[name] = [(i.url, json.dumps(i.request, separators=(",", ":"), ensure_ascii=False),
                        json.dumps(i.response, separators=(",", ":"), ensure_ascii=False))
                       for i in read_recording(path)]
    return found


def _yaml(data: Any) -> str:
    return "---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def go_vcr_v1(pairs: list[tuple[str, str, str]]) -> str:
    """gopkg.in/dnaeon/go-vcr.v1 ``recorder``: version 1, ``url``, ``status: 200 OK`` beside ``code``."""
    return _yaml({"version": 1, "interactions": [{
        "request": {"body": req, "form": {}, "headers": {"Content-Type": ["application/json"]}, "url": url,
                    "method": "POST"},
        "response": {"body": resp, "headers": {"Content-Type": ["application/json"]}, "status": "200 OK",
                     "code": 200, "duration": "1.2s"}} for url, req, resp in pairs]})


def go_vcr_v4(pairs: list[tuple[str, str, str]]) -> str:
    """gopkg.in/dnaeon/go-vcr.v4 ``cassette`` format version 2: ``id``, proto fields, ``content_length``."""
    return _yaml({"version": 2, "interactions": [{
        "id": n,
        "request": {"proto": "HTTP/1.1", "proto_major": 1, "proto_minor": 1, "content_length": len(req.encode()),
                    "transfer_encoding": [], "trailer": {}, "host": urlsplit(url).hostname, "remote_addr": "",
                    "request_uri": "", "body": req, "form": {}, "headers": {"Content-Type": ["application/json"]},
                    "url": url, "method": "POST"},
        "response": {"proto": "HTTP/2.0", "proto_major": 2, "proto_minor": 0, "transfer_encoding": [],
                     "trailer": {}, "content_length": -1, "uncompressed": True, "body": resp,
                     "headers": {"Content-Type": ["application/json"]}, "status": "200 OK", "code": 200,
                     "duration": "1.2s"}} for n, (url, req, resp) in enumerate(pairs)]})


def polly(pairs: list[tuple[str, str, str]], name: str) -> str:
    """@pollyjs/persister-fs ``recording.har``; the node-http adapter's gzip body as base64 chunks."""
    entries = []
    for n, (url, req, resp) in enumerate(pairs):
        packed = gzip.compress(resp.encode(), mtime=0)
        half = len(packed) // 2
        chunks = [base64.b64encode(packed[:half]).decode(), base64.b64encode(packed[half:]).decode()]
        entries.append({
            "_id": f"{n:032x}", "_order": 0, "cache": {},
            "request": {"bodySize": len(req.encode()), "cookies": [],
                        "headers": [{"_fromType": "array", "name": "content-type", "value": "application/json"}],
                        "headersSize": 120, "httpVersion": "HTTP/1.1", "method": "POST",
                        "postData": {"mimeType": "application/json", "params": [], "text": req},
                        "queryString": [], "url": url},
            "response": {"bodySize": len(packed), "content": {"encoding": "base64", "mimeType": "application/json",
                                                               "size": len(packed), "text": json.dumps(chunks)},
                         "cookies": [], "headers": [{"name": "content-encoding", "value": "gzip"},
                                                    {"name": "content-type", "value": "application/json"}],
                         "headersSize": 200, "httpVersion": "HTTP/1.1", "redirectURL": "", "status": 200,
                         "statusText": "OK"},
            "startedDateTime": "2026-08-19T14:34:19.000Z", "time": 1200, "timings": {"blocked": -1, "wait": 1200}})
    return json.dumps({"log": {"_recordingName": name, "creator": {"comment": "persister:fs", "name": "Polly.JS",
                                                                   "version": "6.0.6"},
                               "entries": entries, "pages": [], "version": "1.2"}}, indent=2) + "\n"


def nock(pairs: list[tuple[str, str, str]], gzipped: bool) -> str:
    """``nock.recorder.rec({output_objects: true})``: parsed bodies, or hex chunks for a gzip answer."""
    out = []
    for url, req, resp in pairs:
        parts = urlsplit(url)
        packed = gzip.compress(resp.encode(), mtime=0)
        out.append({"scope": f"{parts.scheme}://{parts.hostname}:443", "method": "POST", "path": parts.path,
                    "body": json.loads(req), "status": 200,
                    "response": [packed[:64].hex(), packed[64:].hex()] if gzipped else json.loads(resp),
                    "rawHeaders": ["Content-Type", "application/json", *(["Content-Encoding", "gzip"] if gzipped else [])],
                    "responseIsBinary": False})
    return json.dumps(out, indent=2) + "\n"


def ruby_vcr_json(pairs: list[tuple[str, str, str]]) -> str:
    """Ruby VCR with ``serialize_with: :json``: the YAML cassette's fields as JSON."""
    return json.dumps({"http_interactions": [{
        "request": {"method": "post", "uri": url, "body": {"encoding": "UTF-8", "string": req},
                    "headers": {"Content-Type": ["application/json"]}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {"Content-Type": ["application/json"]},
                     "body": {"encoding": "ASCII-8BIT", "base64_string": base64.b64encode(resp.encode()).decode()}},
        "recorded_at": "Wed, 19 Aug 2026 14:34:26 GMT"} for url, req, resp in pairs],
        "recorded_with": "VCR 6.4.0"}, indent=2) + "\n"


def gateway_lines(pairs: list[tuple[str, str, str]], style: str) -> str:
    """JSON lines as LLM gateways and SDK middleware log them, one request/response pair a line."""
    lines = []
    for url, req, resp in pairs:
        if style == "request_body":
            lines.append({"ts": "2026-08-19T14:34:26Z", "url": url, "status_code": 200,
                          "request_body": json.loads(req), "response_body": resp})
        else:
            lines.append({**json.loads(req), "url": url, "response": json.loads(resp)})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def fixtures() -> dict[str, str]:
    """Returns every dialect fixture: file name -> text."""
    pairs = _pairs()
    return {
        "go-vcr-v1.anthropic.yaml": go_vcr_v1(pairs["anthropic"]),
        "go-vcr-v4.openai.yaml": go_vcr_v4(pairs["openai"]),
        "polly.anthropic.har": polly(pairs["anthropic"], "compaction"),
        "nock.openai.json": nock(pairs["openai"], gzipped=False),
        "nock-gzip.anthropic.json": nock(pairs["anthropic"], gzipped=True),
        "ruby-vcr.openai.json": ruby_vcr_json(pairs["openai"]),
        "gateway-request-body.openai.jsonl": gateway_lines(pairs["openai"], "request_body"),
        "gateway-messages.anthropic.jsonl": gateway_lines(pairs["anthropic"] * 2, "messages"),
    }


def main() -> None:
    """Writes every dialect fixture next to this file."""
    for name, text in fixtures().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {name}")


if __name__ == "__main__":
    main()
