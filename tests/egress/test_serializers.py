"""Every egress check catches a broken serializer by its id; correct serializers unlike any shipped
example pass every MUST; a leak is never printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.egress.canaries import CIPHERTEXT, REASONING_TEXT, FRAGMENT
from conformance.egress.run import SERVINGS, run
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
    (zoo.base85_dump, "log", {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext"}),
    (zoo.ascii85_thought, "trace", {"egress.no-reasoning-text"}),
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
    (zoo.logs_request_headers, "log", {"egress.no-credential"}),
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
    (zoo.log_line, "warehouse"), (zoo.console_html, "audit"), (zoo.logs_masked_headers, "log")], ids=lambda v: getattr(v, "__name__", v))
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
    assert seen == [{}] * (SERVINGS * len(streamed))  # (each conversation is served SERVINGS times)


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
    lines = {r.scenario: [r.message, *r.details.get("diff", [])] for r in report.results
             if r.invariant == "egress.no-reasoning-text" and r.outcome == "fail"}
    # (the first conversation's calls carry only its own earlier calls: no other conversation's canary)
    assert not any(f"canary {other.id}/" in line for line in lines.get(mine[0].id, []) for other in mine)
    assert any(f"canary {mine[0].id}/" in line for line in lines[mine[1].id])
    assert all(c.value[:20] not in json.dumps([r.message, r.details]) for r in report.results
               for m in mine for c in m.canaries if c.kind != "answer")


def _leak_outcomes(report) -> dict[tuple[str, str], str]:
    leak_checks = ("egress.no-reasoning-text", "egress.no-reasoning-ciphertext")
    return {(r.scenario, r.invariant): r.outcome for r in report.results if r.invariant in leak_checks}


def test_a_sampler_writing_one_call_in_three_leaks_on_every_conversation(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.sampled_log(3))], mine, surface("log"))
    outcomes = _leak_outcomes(report)
    # every conversation holds reasoning text and ciphertext, and a written call dumps all of it
    assert len(outcomes) == 2 * len(mine) and set(outcomes.values()) == {"fail"}
    assert report.exit_code == 1


def test_a_sampler_that_never_writes_is_no_leak_nowhere(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.sampled_log(10_000))], mine, surface("log"))
    outcomes = _leak_outcomes(report)
    assert len(outcomes) == 2 * len(mine) and set(outcomes.values()) == {"skip"}
    assert all(r.message.startswith("cannot tell: nothing was written") for r in report.results
               if r.invariant == "egress.no-reasoning-text")
    answered = [r for r in report.results if r.invariant == "egress.answer-kept"]
    assert answered and {r.outcome for r in answered} == {"fail"}  # (an answer no call wrote is lost)
    in_flight = [c for c in mine if c.task == "in-flight"]  # no answer: no answer-kept to fail
    assert in_flight
    report = run([from_callable(zoo.sampled_log(10_000))], in_flight, surface("log"))
    assert report.exit_code == 2 and report.verdict and report.verdict.startswith("CANNOT TELL")


def test_a_correct_sampler_keeps_the_answer_on_the_calls_it_writes(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.sampled_answer_log(3))], mine, surface("log"))
    answered = [r for r in report.results if r.invariant == "egress.answer-kept"]
    assert answered and {r.outcome for r in answered} == {"pass"}  # (the calls it skipped say nothing of it)
    assert set(_leak_outcomes(report).values()) == {"pass"} and report.exit_code == 0


def test_a_correct_logger_that_writes_every_call_still_conforms(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.log_line)], mine, surface("log"))
    assert set(_leak_outcomes(report).values()) == {"pass"} and report.exit_code == 0 and report.verdict is None


@pytest.mark.slow
def test_a_sampler_in_worker_processes_leaks_on_every_conversation(conversations, capsys, monkeypatch) -> None:
    from conformance.cli import main

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    code = main(["egress", "--target", "tests.egress.zoo:every_third_call", "--surface", "log", "--no-progress",
                 "--jobs", "2", "--json", "-"])
    records = json.loads(capsys.readouterr().out)["records"]
    leak = [r["outcome"] for r in records if r["invariant"] == "egress.no-reasoning-text"]
    assert code == 1 and leak and set(leak) == {"fail"}


def test_a_matrix_row_that_wrote_nothing_is_no_leak_nowhere(conversations) -> None:
    from conformance.egress.adapters import Component
    from conformance.egress.matrix import component_row, smallest_fix, verdict

    mine = [c for c in conversations if c.format == "anthropic" and c.task == "in-flight"]
    never = Component("zoo.never-writes", "pytest", "a 1-in-10000 sampling logger", "defaults", "log", "anthropic",
                      "tests.egress.zoo:never_writes", "tests.egress.zoo")
    row = component_row(never, mine)
    assert row["unjudged"] == len(mine) and not row["failures"]
    assert "no leak" not in verdict(row) and "cannot tell" in verdict(row)
    assert smallest_fix(row, [row]) != "none needed"


def test_a_correct_serializer_that_writes_nothing_for_one_conversation_conforms_where_it_wrote(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic"]
    silent = next(c.id for c in mine if c.task == "in-flight")  # (no answer there to lose)

    def log_but_one(messages: list) -> str:  # writes nothing for one conversation, the others as log_line
        return "" if any(c.id == silent and c.messages == messages for c in mine) else zoo.log_line(messages)

    report = run([from_callable(log_but_one)], mine, surface("log"))
    outcomes = _leak_outcomes(report)
    assert {o for (scenario, _), o in outcomes.items() if scenario == silent} == {"skip"}
    assert {o for (scenario, _), o in outcomes.items() if scenario != silent} == {"pass"}
    assert report.exit_code == 0 and report.verdict and "1 of 4" in report.verdict


def test_the_credential_canary_is_never_shown_and_the_matrix_clients_send_it(conversations) -> None:
    from conformance.egress.adapters.anthropic_replay import streaming_client
    from conformance.egress.adapters.openai_replay import client
    from conformance.egress.canaries import CREDENTIAL

    mine = [c for c in conversations if c.format == "anthropic"]
    report = run([from_callable(zoo.logs_request_headers)], mine, surface("log"))
    caught = [r for r in report.results if r.invariant == "egress.no-credential"]
    assert caught and {r.outcome for r in caught} == {"fail"}
    shown = json.dumps([[r.message, r.details] for r in report.results])
    assert not any(piece in shown for piece in CREDENTIAL.fragments()) and "credential canary api-key" in shown
    assert streaming_client([]).api_key == CREDENTIAL.value and client([]).api_key == CREDENTIAL.value
