"""Every egress check catches a broken serializer by its id; correct serializers unlike any shipped
example pass every MUST; a leak is never printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.egress.canaries import CIPHERTEXT, REASONING_TEXT, FRAGMENT
from conformance.egress.run import run
from conformance.egress.surfaces import surface
from conformance.engine.target import from_callable

from . import zoo

ANTHROPIC_BROKEN = [
    (zoo.dump_all, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.json_in_string, "trace", {"egress.no-reasoning-text"}),
    (zoo.base64_thought, "audit", {"egress.no-reasoning-text"}),
    (zoo.gzip_dump, "warehouse", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.xz_dump, "warehouse", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.gzip_members, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.gzip_cut_short, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.share_link, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.base64_in_pieces, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.utf16_dump, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.slotted_record, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.code_points, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.numbered_attributes, "trace", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.lazy_context, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.base32_dump, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.spaced_hex, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.shouting_log, "log", {"egress.no-reasoning-text"}),
    (zoo.url_escaped, "log", {"egress.no-reasoning-text"}),
    (zoo.html_escaped, "console", {"egress.no-reasoning-text"}),
    (zoo.relabelled, "conversation-store", {"egress.no-reasoning-text"}),
    (zoo.first_40, "console", {"egress.no-reasoning-text"}),
    (zoo.middle_fragment, "log", {"egress.no-reasoning-text"}),
    (zoo.passes_stream, "browser-stream", {"egress.no-reasoning-text", "egress.answer-kept"}),
    (zoo.interleaves_reasoning, "browser-stream", {"egress.no-reasoning-text"}),
    (zoo.logs_events_as_json_lines, "log", {"egress.no-reasoning-text"}),
    (zoo.relays_bedrock_chunks, "log", {"egress.no-reasoning-text"}),
    (zoo.keeps_signature, "conversation-store", {"egress.no-reasoning-ciphertext"}),
    (zoo.thought_words, "log", {"egress.no-reasoning-text"}),
    (zoo.signature_as_hex, "trace", {"egress.no-reasoning-ciphertext"}),
    (zoo.drops_answer, "conversation-store", {"egress.answer-kept"}),
    (zoo.truncates_answer, "console", {"egress.answer-kept"}),
    (zoo.keeps_thinking_without_tools, "trace", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.raises, "log", {"egress.call-completes"}),
    (zoo.hangs, "log", {"egress.call-completes"}),
    (zoo.strips_in_place, "provider-request", {"egress.input-unmutated", "egress.reasoning-byte-identical"}),
    (zoo.request_trims_thinking, "provider-request", {"egress.reasoning-byte-identical"}),
    (zoo.request_drops_redacted, "provider-request", {"egress.reasoning-byte-identical"}),
]


def _failing(results: list) -> set[str]:
    return {r.invariant for r in results if r.level == "MUST" and r.outcome in ("fail", "error")}


@pytest.mark.slow
@pytest.mark.parametrize(("serializer", "where", "caught"), ANTHROPIC_BROKEN, ids=lambda v: getattr(v, "__name__", None))
def test_each_broken_serializer_is_caught_by_its_check(conversations, serializer, where, caught) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    # only `hangs` meets its limit (it never answers, so a short one is safe); the others answer
    # at once and keep a limit no busy machine reaches
    report = run([from_callable(serializer)], mine, surface(where), time_limit=0.1 if serializer is zoo.hangs else 5.0)
    assert _failing(report.results) == caught
    assert report.exit_code == 1


@pytest.mark.parametrize(("serializer", "where"), [
    (zoo.log_line, "log"), (zoo.console_html, "console"), (zoo.browser_events, "browser-stream"),
    (zoo.provider_request, "provider-request"), (zoo.memory_holder, "request-memory"),
    (zoo.log_line, "warehouse"), (zoo.console_html, "audit")], ids=lambda v: getattr(v, "__name__", v))
def test_correct_serializers_unlike_the_examples_pass(conversations, serializer, where) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(serializer)], mine, surface(where))
    assert not report.failures(), [(r.scenario, r.invariant, r.message) for r in report.failures()]
    assert any(r.invariant == "egress.answer-kept" and r.outcome == "pass" for r in report.results)


def test_a_streamed_reply_leak_is_found_only_by_joining_the_events(conversations) -> None:
    streamed = [c for c in conversations if c.streamed and c.format == "anthropic"]
    deltas = [e["delta"]["thinking"] for c in streamed for e in c.stream if e.get("delta", {}).get("type") == "thinking_delta"]
    assert deltas and max(map(len, deltas)) < FRAGMENT  # no single event holds a fragment
    report = run([from_callable(zoo.passes_stream)], streamed, surface("browser-stream"))
    failing = [r for r in report.results if r.invariant == "egress.no-reasoning-text" and r.outcome == "fail"]
    assert failing and "(joined)" in failing[0].message


def test_responses_and_gemini_and_langchain_reasoning_are_found(conversations) -> None:
    def dump(messages):
        from conformance.egress.decode import plain
        return json.dumps(plain(messages))

    for fmt in ("openai-responses", "google-genai", "langchain"):
        mine = [c for c in conversations if c.format == fmt]
        report = run([from_callable(dump)], mine, surface("log"))
        kinds = {line.split(" canary ")[0] for r in report.results if r.outcome == "fail"
                 for line in [r.message, *r.details.get("diff", [])]}
        declared = {k.kind for c in mine for k in c.canaries} & (REASONING_TEXT | CIPHERTEXT)
        assert declared and declared <= kinds, (fmt, declared - kinds)


def test_a_correct_responses_store_passes(conversations) -> None:
    mine = [c for c in conversations if c.format == "openai-responses"]
    report = run([from_callable(zoo.responses_store)], mine, surface("conversation-store"))
    assert not report.failures()


@pytest.mark.slow
def test_the_cli_runs_in_workers_and_never_prints_a_canary(conversations, tmp_path: Path, capsys, monkeypatch) -> None:
    from conformance.cli import main

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    out_json = tmp_path / "r.json"
    code = main(["egress", "--target", "tests.egress.zoo:raises", "--surface", "log", "--no-progress",
                 "--json", str(out_json), "--report", str(tmp_path / "rep")])
    printed = capsys.readouterr().out
    assert code == 1 and "egress.call-completes" in printed
    code = main(["egress", "--target", "tests.egress.zoo:first_40", "--surface", "log", "--no-progress",
                 "--json", str(out_json), "--report", str(tmp_path / "rep")])
    printed += capsys.readouterr().out
    assert code == 1
    written = printed + out_json.read_text() + "".join(p.read_text() for p in (tmp_path / "rep").iterdir())
    for c in conversations:
        for canary in c.of(REASONING_TEXT | CIPHERTEXT):
            assert not any(piece in written for piece in canary.fragments()), canary.id
    assert json.loads(out_json.read_text())["exit_code"] == 1


@pytest.mark.slow
def test_the_cli_exit_codes(capsys) -> None:
    from conformance.cli import main

    assert main(["egress", "--target", "tests.egress.zoo:log_line", "--surface", "nowhere"]) == 2
    assert main(["egress", "--target", "no.such.module:x", "--surface", "log"]) == 2
    assert main(["egress", "--target", "tests.egress.zoo:log_line", "--surface", "log", "--format", "klingon"]) == 2
    assert main(["egress", "--target", "tests.egress.zoo:log_line", "--surface", "log", "-k", "nothing-matches",
                 "--no-progress"]) == 2
    assert main(["egress", "--target", "tests.egress.zoo:log_line", "--surface", "log", "--no-progress"]) == 0
    assert "CONFORMS" in capsys.readouterr().out


@pytest.mark.parametrize(("fmt", "serializer", "where"), [
    ("google-genai", zoo.gemini_store, "conversation-store"), ("langchain", zoo.langchain_text, "console"),
    ("openai-responses", zoo.request_as_is, "provider-request"), ("google-genai", zoo.request_as_is, "provider-request"),
    ("langchain", zoo.request_as_is, "provider-request")])
def test_correct_serializers_of_the_other_formats_pass(conversations, fmt, serializer, where) -> None:
    report = run([from_callable(serializer)], [c for c in conversations if c.format == fmt], surface(where))
    assert not report.failures(), [(r.scenario, r.invariant, r.message) for r in report.failures()]


def test_a_responses_request_without_its_reasoning_items_is_caught(conversations) -> None:
    mine = [c for c in conversations if c.format == "openai-responses"]
    report = run([from_callable(zoo.request_without_reasoning_items)], mine, surface("provider-request"))
    assert _failing(report.results) == {"egress.reasoning-byte-identical"}


def test_a_serializer_taking_only_kwargs_gets_no_stream_keyword(conversations) -> None:
    seen: list[dict] = []

    def dump(messages, **kwargs):  # as json.dumps: keywords of its own, none named stream
        seen.append(kwargs)
        return json.dumps(messages, **kwargs)

    streamed = [c for c in conversations if c.streamed and c.format == "anthropic"]
    assert streamed
    report = run([from_callable(dump)], streamed, surface("log"), jobs=1)
    assert not [r for r in report.results if r.invariant == "egress.call-completes" and r.outcome != "pass"]
    assert seen == [{}] * len(streamed)


def test_json_dumps_is_a_target(capsys) -> None:
    from conformance.cli import main

    code = main(["egress", "--target", "json:dumps", "--surface", "log", "--in-process", "--no-progress",
                 "--json", "-"])
    records = json.loads(capsys.readouterr().out)["records"]
    outcomes = {(r["invariant"], r["outcome"]) for r in records}
    assert code == 1  # it logs the reasoning: a MUST fails, the calls do not
    assert ("egress.no-reasoning-text", "fail") in outcomes
    assert {o for i, o in outcomes if i == "egress.call-completes"} == {"pass"}


@pytest.mark.slow
def test_a_payload_carrying_another_conversations_reasoning_is_a_leak(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.keeps_breadcrumbs())], mine, surface("log"), time_limit=5.0)
    failing = {(r.scenario, r.invariant) for r in report.results if r.level == "MUST" and r.outcome == "fail"}
    assert (mine[0].id, "egress.no-reasoning-text") not in failing  # (the first call carries nothing earlier)
    assert (mine[1].id, "egress.no-reasoning-text") in failing
    assert all(c.value[:20] not in json.dumps([r.message, r.details]) for r in report.results
               for m in mine for c in m.canaries if c.kind != "answer")
