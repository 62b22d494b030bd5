"""Audit fails on planted secrets and reasoning text, and passes every shipped cassette."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.cli import main
from conformance.provider.audit import TEXT_RULES, audit
from conformance.provider.cassettes import dump

from .conftest import CASSETTES


@pytest.mark.slow
def test_shipped_cassettes_are_clean() -> None:
    findings, files = audit([CASSETTES])
    assert files >= 30 and findings == []


PLANTS = {
    "key": ("status:open", "sk-ant-api03-AbCdEfGhIjKlMnOp", "API key"),
    "org": ("content-type:", "anthropic-organization-id:\n      - 6f0c4a51-2b9e-4d1c-9a57-0d3e8c2b7f10\n      content-type:",
            "organization id"),
    "auth": ("anthropic-beta:", "authorization:\n      - Bearer abcdefghijklmnop\n      anthropic-beta:", "authorization"),
    "thinking": ("[scrubbed:", "Now I will read the log first, then [scrubbed:", "unscrubbed reasoning text"),
}


@pytest.mark.slow
@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_leaks_are_found(plant: str, shipped_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, label = PLANTS[plant]
    path = shipped_copy / "clear-thinking.keep-one-turn.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    findings, _ = audit([shipped_copy])
    assert findings and all(f.path == path for f in findings)
    assert any(label in f.message for f in findings), [str(f) for f in findings]
    assert main(["audit", str(shipped_copy)]) == 1
    assert label in capsys.readouterr().out


# the rules as first written: a leading word boundary or optional backslash
PLAIN_RULES = (r"sk-ant-[A-Za-z0-9_\-]{6,}", r"\bsk-(?:proj-)?[A-Za-z0-9]{20,}", r"Bearer\s+[A-Za-z0-9._~+/\-]{8,}",
               r"\borg-[A-Za-z0-9]{12,}", r"\bproj_[A-Za-z0-9]{12,}", r"\bwrkspc_[A-Za-z0-9]{8,}",
               r"://(?P<secret>[^/\s@'\"<>?#]+)@",
               r"(?i)[?&;](?:[A-Za-z0-9]+[-_])*(?:api[-_]?key|apikey|key|token|secret|password|passwd|sig|signature"
               r"|credential)=(?!REDACTED\b|<|%3C)(?P<secret>[^&;\s'\"<>#]+)",
               r'\\?"thinking\\?"\s*:\s*\\?"(?!\[scrubbed:[0-9a-f]{12}\]\\?"|\\?")')
PIECES = st.sampled_from(["sk-", "sk-ant-", "proj-", "org-", "proj_", "wrkspc_", "Bearer ", '"thinking"', '\\"thinking\\"',
                          ": ", ":", '"', '\\"', "[scrubbed:0123456789ab]", "[scrubbed:", "a", "Z9", "_", "-", " ", "\n",
                          "x" * 12, "A1" * 10, "é"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(PIECES, max_size=14).map("".join))
def test_the_rules_find_what_their_plain_forms_find(text: str) -> None:
    """The rules open on a literal for speed; each finds the same matches as its plain form."""
    assert len(TEXT_RULES) == len(PLAIN_RULES)
    for (_, rule), plain in zip(TEXT_RULES, PLAIN_RULES):
        assert [m.span() for m in rule.finditer(text)] == [m.span() for m in re.finditer(plain, text)], plain


def test_unparseable_cassette_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("interactions: [ {")
    findings, _ = audit([tmp_path])
    assert findings and "cannot parse" in findings[0].message


@pytest.mark.slow
def test_audit_cli_passes_clean_cassettes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(CASSETTES)]) == 0
    assert "0 finding(s)" in capsys.readouterr().out


def _cassette(tmp_path: Path, body: object, headers: dict | None = None) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(dump({"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": "http://127.0.0.1:1/v1/messages", "body": "{}", "headers": {}},
        "response": {"status": {"code": 200}, "headers": headers or {}, "body": {"string": body}}}]}))
    return path


@pytest.mark.parametrize("name", ["x-goog-api-key", "X-Session-Token", "x-account-id", "openai-organization"])
def test_any_credential_shaped_header_name_is_found(tmp_path: Path, name: str) -> None:
    findings, _ = audit([_cassette(tmp_path, "{}", {name: ["v"]})])
    assert any(f"carries header {name!r}" in f.message for f in findings), [str(f) for f in findings]


def test_binary_and_gzip_bodies_are_decoded_and_audited(tmp_path: Path) -> None:
    thinking = json.dumps({"content": [{"type": "thinking", "thinking": "raw plan", "signature": "s"}]}).encode()
    findings, _ = audit([_cassette(tmp_path, gzip.compress(thinking))])
    assert any("unscrubbed reasoning text" in f.message for f in findings), [str(f) for f in findings]
    findings, _ = audit([_cassette(tmp_path, b"\xff key sk-ant-api03-AbCdEfGhIjKlMnOp")])
    assert any("API key in interactions[0].response.body" in f.message for f in findings), [str(f) for f in findings]
    findings, _ = audit([_cassette(tmp_path, b"\x1f\x8b not gzip")])
    assert any("does not decompress" in f.message for f in findings)


def test_a_yaml_file_that_is_not_a_cassette_is_scanned_as_text(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("- interactions\n- Bearer abcdefghijklmnop\n")
    findings, _ = audit([tmp_path])
    assert [f.message.split(":")[0] for f in findings] == ["bearer token"]


def test_a_finding_shows_a_hash_of_the_key_not_the_key(tmp_path: Path) -> None:
    from conformance.provider.audit import audit_file

    key = "sk-ant-api03-" + "Q" * 40
    (tmp_path / "leak.yaml").write_text(f"interactions: []\nnote: {key}\n", encoding="utf-8")
    findings = audit_file(tmp_path / "leak.yaml")
    shown = " ".join(f.message for f in findings)
    assert findings and "sk-ant" in shown
    assert key[:13] not in shown and "QQQQ" not in shown


@pytest.mark.parametrize("headers", [
    {"Anthropic-Organization-Id": ["<ANTHROPIC_ORGANIZATION_ID>"], "Authorization": ["Bearer <AUTH_TOKEN>"],
     "X-Api-Key": ["REDACTED"], "Request-Id": ["[scrubbed:0123456789ab]"], "Openai-Project": ["<OPENAI_PROJECT>"]},
    {"Anthropic-Ratelimit-Input-Tokens-Remaining": ["10000000"], "X-Ratelimit-Remaining-Tokens": ["1999"],
     "Content-Type": ["application/json"]},
])
def test_placeholders_and_rate_limits_are_not_findings(tmp_path: Path, headers: dict) -> None:
    assert audit([_cassette(tmp_path, "{}", headers)]) == ([], 1)


@pytest.mark.parametrize("name, value, label", [
    ("Anthropic-Workspace-Id", "wrkspc_01AbCdEfGhIjKlMn", "workspace id"),
    ("Openai-Project", "proj_AbCdEfGhIjKlMnOp", "project id"),
    ("X-Trace", "org-AbCdEfGhIjKlMnOpQr", "organization id"),
    ("Set-Cookie", "__cf_bm=abc123; path=/", "cookie"),
])
def test_a_secret_header_value_is_found_by_name_or_value(tmp_path: Path, name: str, value: str, label: str) -> None:
    findings, _ = audit([_cassette(tmp_path, "{}", {name: [value]})])
    assert any(f"carries header {name!r} ({label})" in f.message for f in findings), [str(f) for f in findings]


def test_every_dialect_and_suffix_in_a_folder_is_audited(tmp_path: Path) -> None:
    thinking = {"type": "message", "content": [{"type": "thinking", "thinking": "a plan", "signature": "s"}]}
    (tmp_path / "a.har").write_text(json.dumps({"log": {"entries": [{
        "request": {"url": "https://api.anthropic.com/v1/messages", "headers": [
            {"name": "x-api-key", "value": "live-key-0123456789"}]},
        "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{}"}}}]}}))
    (tmp_path / "b.json").write_text(json.dumps([{"scope": "https://api.openai.com:443", "method": "POST",
                                                  "path": "/v1/responses", "body": {}, "status": 200, "response": {},
                                                  "rawHeaders": ["openai-organization", "user-abc123"]}]))
    (tmp_path / "c.jsonl").write_text(json.dumps({"request": {"messages": []}, "response": thinking}) + "\n"
                                      + json.dumps({"request": {"messages": []}, "response": {}}) + "\n")
    (tmp_path / "d.yml").write_text(dump({"http_interactions": [{"request": {"headers": {"Cookie": ["s=1"]}}}]}))
    findings, files = audit([tmp_path])
    assert files == 4
    found = {(f.path.name, f.line) for f in findings}
    assert {name for name, _ in found} == {"a.har", "b.json", "c.jsonl", "d.yml"}, [str(f) for f in findings]
    assert ("c.jsonl", 1) in found  # reasoning in a JSON-lines body, named by its line


def test_a_compressed_recording_is_audited_for_what_it_holds(tmp_path: Path) -> None:
    text = dump({"requests": [{"method": "POST", "uri": "https://api.anthropic.com/v1/messages", "body": "{}",
                               "headers": {"x-api-key": ["sk-ant-api03-AbCdEfGhIjKlMnOp"]}}],
                 "responses": [{"status": {"code": 200}, "headers": {}, "body": {"string": "{}"}}]})
    path = tmp_path / "c.yaml.gz"
    path.write_bytes(gzip.compress(text.encode()))
    findings, _ = audit([tmp_path])
    assert any("API key" in f.message for f in findings), [str(f) for f in findings]
    assert not any("not UTF-8" in f.message for f in findings)


def test_fix_says_what_it_could_not_scrub(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import base64

    body = gzip.compress(json.dumps({"type": "message", "content": [
        {"type": "thinking", "thinking": "a private plan", "signature": "s"}]}).encode())
    har = {"log": {"creator": {"name": "Polly.JS"}, "entries": [{
        "request": {"url": "https://api.anthropic.com/v1/messages", "headers": []},
        "response": {"status": 200, "headers": [{"name": "content-encoding", "value": "gzip"}],
                     "content": {"encoding": "base64", "mimeType": "application/json",
                                 "text": json.dumps([base64.b64encode(body).decode()])}}}]}}
    path = tmp_path / "recording.har"
    path.write_text(json.dumps(har))
    assert main(["audit", "--fix", str(path)]) == 1
    out = capsys.readouterr().out
    assert "unscrubbed reasoning text" in out and "finding(s) remain in it, scrub those by hand" in out


def test_fix_never_writes_over_a_file_it_did_not_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "recording.json"
    path.write_text(json.dumps({"type": "message", "content": [
        {"type": "thinking", "thinking": "a private plan", "signature": "s"}]}))
    mine = tmp_path / "recording.scrubbed.json"
    mine.write_text("my own notes\n")
    assert main(["audit", "--fix", str(path)]) == 2
    assert mine.read_text() == "my own notes\n" and "not overwritten" in capsys.readouterr().err
    mine.unlink()
    assert main(["audit", "--fix", str(path)]) == 1  # its own copy, written again as it was
    first = mine.read_text()
    assert main(["audit", "--fix", str(path)]) == 1 and mine.read_text() == first


@pytest.mark.parametrize("opening", [": keep-alive\n\n", "retry: 3000\n\n", "id: 7\n"])
def test_fix_scrubs_a_stream_opening_with_a_comment_id_or_retry_line(
        tmp_path: Path, opening: str, capsys: pytest.CaptureFixture[str]) -> None:
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "a private plan"}}
    path = tmp_path / "stream.sse"
    path.write_text(f"{opening}event: content_block_delta\ndata: {json.dumps(event)}\n\n")
    findings, _ = audit([path])
    assert findings and not any("cannot parse" in f.message for f in findings), [str(f) for f in findings]
    assert main(["audit", "--fix", str(path)]) == 1
    copy = tmp_path / "stream.scrubbed.sse"
    assert "a private plan" not in copy.read_text() and copy.read_text().startswith(opening)
    assert audit([copy])[0] == []
    capsys.readouterr()


def _cassette_at(tmp_path: Path, uri: str) -> Path:
    path = tmp_path / "u.yaml"
    path.write_text(dump({"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": uri, "body": "{}", "headers": {}},
        "response": {"status": {"code": 200}, "headers": {}, "body": {"string": "{}"}}}]}))
    return path


@pytest.mark.parametrize(("uri", "label", "secret"), [
    ("http://team-gw:gw_9f8e7d6c5b4a@127.0.0.1:8089/v1/messages", "credentials in a URL", "gw_9f8e7d6c5b4a"),
    ("http://gw_live_token_77@127.0.0.1:8089/v1/messages", "credentials in a URL", "gw_live_token_77"),
    ("https://gateway.example/v1/messages?api_key=gwk_live_4f9a8b7c", "credential in a URL query", "gwk_live_4f9a8b7c"),
    ("https://host.example/v1beta/models/m:generateContent?alt=sse&key=AIzaSyA-0123456789abcdefghijklmnopqrstu",
     "credential in a URL query", "AIzaSyA-0123456789abcdefghijklmnopqrstu"),
    ("https://host.example/v1/x?X-Amz-Signature=0f1e2d3c4b5a", "credential in a URL query", "0f1e2d3c4b5a"),
])
def test_credentials_in_a_request_uri_are_found_and_fixed(tmp_path: Path, uri: str, label: str, secret: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = _cassette_at(tmp_path, uri)
    findings, _ = audit([path])
    assert any(label in f.message for f in findings), [str(f) for f in findings]
    assert not any(secret in f.message for f in findings)
    assert main(["audit", "--fix", str(path)]) == 1
    copy = tmp_path / "u.scrubbed.yaml"
    assert secret not in copy.read_text() and audit([copy])[0] == []
    assert secret not in capsys.readouterr().out


@pytest.mark.parametrize("uri", ["http://127.0.0.1:8089/v1/messages?beta=true&max_tokens=5",
                                 "https://gateway.example/v1/messages?api_key=REDACTED&key=<GEMINI_KEY>",
                                 "https://gateway.example/v1/messages"])
def test_a_uri_without_credentials_is_no_finding(tmp_path: Path, uri: str) -> None:
    assert audit([_cassette_at(tmp_path, uri)])[0] == []


def test_redacted_thinking_data_is_a_finding_until_scrubbed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
    path = _cassette(tmp_path, json.dumps({"type": "message", "content": [{"type": "redacted_thinking", "data": data}]}))
    findings, _ = audit([path])
    assert any("redacted_thinking data" in f.message for f in findings), [str(f) for f in findings]
    assert main(["audit", "--fix", str(path)]) == 1
    copy = tmp_path / "c.scrubbed.yaml"
    assert data not in copy.read_text() and audit([copy])[0] == []
    capsys.readouterr()
