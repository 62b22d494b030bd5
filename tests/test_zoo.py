"""Every invariant can fail: each broken compactor is caught by the invariant it targets, and the
legitimately different correct compactors pass every MUST."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from conformance import CATALOG, RunOptions, Scenario, check_scenario, from_callable, run
from conformance.engine.results import CheckResult
from conformance.engine.runner import keyword_filter

from .conftest import shipped_specs
from .zoo import broken, correct

OPTIONS = RunOptions(time_limit=0.5)
IN_PROCESS = RunOptions(time_limit=30, in_process=True)  # a correct compactor must answer: the limit only bounds a broken one
FULL_RUN = {"crash_on_unpaired_result"}  # read scenario by scenario below
pytestmark = pytest.mark.xdist_group("zoo")  # with the kill-rate test of test_fuzz, which reads _results
# Where the defect of a broken compactor shows among the shipped scenarios, as a ``-k`` expression
# (words of a scenario's id, family or features), for those the shipped order catches only past
# its first 20 scenarios: _results reads the scenarios it selects first, then the rest in the
# shipped order. It changes how soon the scan stops, never whether it finds a catch: the scenarios
# are checked one by one, each on its own, and every one of them is read before a compactor goes
# uncaught. A stale expression only costs time.
LOOK_FIRST = {
    "prune_settled_code_runs": "programmatic-call",
    "keep_request_and_answer": "paused-split",
    "window_splits_paused_pairs": "paused-split",
    "reencode_search_results": "paused-split",
    "fixed_server_registry": "server-tool",
    "notice_to_newest": "moved-notices",
    "window_opens_on_notice": "interleaved",
    "prune_large_text": "large-text",
    "reserialise_compaction": "compaction",
    "rewrite_compaction_summary": "compaction",
    "whitelist_settled": "unknown-block",
    "rebuild_blocks": "cache-control",
    "trim_thinking_text": "live-content",
    "compact_tool_summary_only": "compaction-tool",
    "cap_live_task": "loop-scripts",
}


@cache
def _scenarios() -> tuple[Scenario, ...]:
    return tuple(shipped_specs().scenarios)


@cache
def _results(name: str, module: str) -> tuple[CheckResult, ...]:
    """Returns the results of a compactor of the zoo on the shipped scenarios: every scenario for a
    correct one; for a broken one, scenarios in order (those of ``LOOK_FIRST`` first) until each
    invariant it targets has caught it (as ``-x`` would stop), all of them when one never does."""
    func = getattr(broken if module == "broken" else correct, name)
    scenarios = list(_scenarios())
    if module == "broken" and name in LOOK_FIRST:
        first = keyword_filter(LOOK_FIRST[name])
        scenarios = [s for s in scenarios if first(s)] + [s for s in scenarios if not first(s)]
    if name == "hangs":
        scenarios = scenarios[:1]
    options = OPTIONS if name == "hangs" else IN_PROCESS  # worker processes are tested in test_worker
    if module == "correct" and name not in correct.SURVIVE_PREFIX_CHECK:
        options = replace(options, prefix_check=False)  # correct for models without the prefix check only
    target = from_callable(func, name)
    if module != "broken" or name in FULL_RUN:
        return tuple(run([target], scenarios, options=options).results)
    uncaught, results = set(broken.CAUGHT_BY[name]), []
    for scenario in scenarios:
        found = check_scenario(target, scenario, options)
        results.extend(found)
        uncaught -= {r.invariant for r in found if r.outcome in ("fail", "error")}
        if not uncaught:
            break
    return tuple(results)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(broken.CAUGHT_BY))
def test_broken_compactor_is_caught_by_its_invariant(name: str) -> None:
    results = _results(name, "broken")
    for invariant in broken.CAUGHT_BY[name]:
        caught = [r for r in results if r.invariant == invariant and r.outcome in ("fail", "error")]  # error: raised or hung
        assert caught, f"{name} was not caught by {invariant}"


def test_every_invariant_has_a_broken_compactor() -> None:
    targeted = {inv for invariants in broken.CAUGHT_BY.values() for inv in invariants}
    missing = {inv.id for inv in CATALOG if inv.level != "REFERENCE"} - targeted
    assert not missing


@pytest.mark.slow
@pytest.mark.parametrize("name", ["noop", "live_only", "summarizer", "deep_copy",
                                  "budget_chars_3", "budget_chars_4", "budget_chars_5",
                                  "last_settled_task", "settled_media_dropped", "boundary_tasks", "model_summary"])
def test_correct_compactor_passes_every_must(name: str) -> None:
    """Each passes every MUST: those of ``correct.SURVIVE_PREFIX_CHECK`` as current models judge
    them (the agent loop included), the others as models without the prefix check do."""
    results = _results(name, "correct")
    assert results
    bad = [f"{r.scenario} {r.invariant}: {r.message}" for r in results
           if r.level == "MUST" and r.outcome not in ("pass", "skip")]
    assert not bad, "\n".join(bad[:10])


@pytest.mark.slow
def test_a_programming_error_is_a_crash_even_where_refusal_is_allowed() -> None:
    refusal_allowed = {s.id for s in _scenarios() if s.expect.refusal_allowed}
    results = _results("crash_on_unpaired_result", "broken")
    crashed = {r.scenario for r in results if r.invariant == "call.completes" and r.outcome in ("fail", "error")
               and "KeyError" in r.message}
    assert crashed & refusal_allowed, "a KeyError where refusal is allowed passed as a refusal"
    declined = [r for r in results if r.scenario in crashed and r.outcome == "skip"
                and not r.details.get("blocked_by")]  # a not-run check (blocked by the crash) is no refusal
    assert not declined, "checks were skipped as if the target had declined"


def test_correct_compactors_really_compact() -> None:
    for name in ("live_only", "summarizer"):
        scenarios = _scenarios()
        shorter = [s for s in scenarios if len(getattr(correct, name)(s.history)) < len(s.history)]
        assert len(shorter) > len(scenarios) // 4, name


@pytest.mark.slow
def test_reference_level_catches_a_compactor_that_is_not_the_reference() -> None:
    target = from_callable(broken.keeps_settled_reasoning, "impostor")
    options = RunOptions(reference_targets=frozenset({"impostor"}), in_process=True)
    report = run([target], _scenarios(), options=options)
    assert any(r.invariant == "reference.exact-output" and r.outcome == "fail" for r in report.results)
    assert report.exit_code == 1
    assert not [r for r in report.results if r.level == "MUST" and r.outcome == "fail"]


def test_where_to_look_first_names_broken_compactors_and_shipped_scenarios() -> None:
    for name, expression in LOOK_FIRST.items():
        assert name in broken.CAUGHT_BY and any(map(keyword_filter(expression), _scenarios())), name


def test_every_broken_compactor_has_a_defect_class() -> None:
    """The kill rate is reported by defect class (benchmarks/kill_rate.py): every compactor has one."""
    assert set(broken.DEFECT_CLASS) == set(broken.CAUGHT_BY)
    assert len(set(broken.DEFECT_CLASS.values())) >= 10


@pytest.mark.slow
@pytest.mark.parametrize(("family", "name", "invariant"), [
    ("paused-split", "keep_request_and_answer", "tools.server-results-kept"),
    ("paused-split", "window_splits_paused_pairs", "tools.server-results-kept"),
    ("moved-notices", "notice_to_newest", "tools.uses-answered-next"),
    ("agent-notices", "agent_notice_to_newest", "tools.uses-answered-next"),
    ("agent-notices", "agent_notice_to_newest", "live.untouched-suffix"),
    ("programmatic-calls", "prune_settled_code_runs", "tools.caller-use-kept"),
])
def test_each_new_family_catches_its_compactor_by_the_right_invariant(family: str, name: str,
                                                                      invariant: str) -> None:
    assert len([s for s in _scenarios() if s.family == family]) >= 8
    caught = {r.scenario for r in _family_results(family, name) if r.invariant == invariant and r.outcome == "fail"}
    assert len(caught) >= 3, f"{family} catches {name} by {invariant} in {sorted(caught)}"


@cache
def _family_results(family: str, name: str) -> tuple[CheckResult, ...]:
    """Returns the results of a broken compactor on every shipped scenario of ``family`` (once per
    process: a compactor may be read there for more than one invariant)."""
    target = from_callable(getattr(broken, name), name)
    return tuple(r for s in _scenarios() if s.family == family for r in check_scenario(target, s, IN_PROCESS))


def _settled_reasoning_scenario(shortest: int = 8) -> Scenario:
    """Returns the first shipped scenario whose settled history holds a thinking text of ``shortest`` characters or more."""
    from .zoo._history import live_start

    for scenario in _scenarios():
        settled = scenario.history[:live_start(scenario.history)]
        if any(isinstance(m.get("content"), list) and any(b.get("type") == "thinking" and len(b.get("thinking", "")) >= shortest
                                                        for b in m["content"]) for m in settled):
            return scenario
    raise AssertionError("no shipped scenario holds settled reasoning")


@pytest.mark.parametrize("give", [
    lambda summarize, settled: summarize("Summarise the earlier conversation.", settled),  # a second argument
    lambda summarize, settled: summarize("Summarise.", history=settled),  # a keyword
    lambda summarize, settled: summarize(json.dumps(settled).encode()),  # bytes
])
def test_reasoning_given_to_the_summarizer_any_way_fails_summary_no_reasoning(give: Any) -> None:
    from .zoo._history import live_start

    def summarises(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
        start = live_start(history)
        if start and summarize is not None:
            give(summarize, history[:start])
        return list(history)

    results = check_scenario(from_callable(summarises, "summarises"), _settled_reasoning_scenario(), IN_PROCESS)
    assert [r.outcome for r in results if r.invariant == "summary.no-reasoning"] == ["fail"]


SUMMARY = "[conversation summary] "


def _running_summary(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
    """A running summary: the first compaction summarises the settled turns without their reasoning;
    a history that opens on its summary has the summary and the turns settled since summarised
    again, and that path forgets to strip their thinking (only the agent loop's calls take it)."""
    from .zoo._history import live_start, without_reasoning

    start = live_start(history)
    settled, live = history[:start], history[start:]
    if summarize is None or not settled:
        return list(history)
    if isinstance(settled[0].get("content"), str) and settled[0]["content"].startswith(SUMMARY):
        if len(settled) <= 2:
            return list(history)
        prompt = settled  # (the turns settled since keep their thinking)
    else:
        prompt = [m for m in (without_reasoning(m) for m in settled) if m is not None]
    return [{"role": "user", "content": SUMMARY + summarize(prompt)}, {"role": "assistant", "content": "Noted."}, *live]


def test_reasoning_given_to_the_summarizer_on_a_call_of_the_agent_loop_fails_summary_no_reasoning() -> None:
    target = from_callable(_running_summary, "running_summary")
    caught = []
    for scenario in _scenarios():
        results = check_scenario(target, scenario, IN_PROCESS)
        caught += [r for r in results if r.invariant == "summary.no-reasoning" and r.outcome == "fail"]
        if caught:
            break
    assert caught, "a running summary leaking reasoning on the loop's calls passed"
    assert "agent loop" in caught[0].message  # (the run's own call gave the summarizer no reasoning)


def test_a_summarizer_kept_from_an_earlier_call_still_has_its_prompts_judged() -> None:
    from conformance.engine.target import RecordingSummarizer

    from .zoo._history import live_start

    made_once = RecordingSummarizer()  # the stand-in an earlier call gave a target that keeps its client

    def keeps_its_client(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
        start = live_start(history)
        if start:
            made_once(history[:start])  # (the settled turns, reasoning and all)
        return list(history)

    results = check_scenario(from_callable(keeps_its_client, "keeps_its_client"), _settled_reasoning_scenario(),
                             IN_PROCESS)
    assert [r.outcome for r in results if r.invariant == "summary.no-reasoning"] == ["fail"]


def _excerpts(history: list[dict[str, Any]], share: float) -> list[str]:
    """Returns the first ``share`` of each settled thinking text (24 characters at least)."""
    from .zoo._history import live_start

    return [b["thinking"][:max(24, int(len(b["thinking"]) * share))] for m in history[:live_start(history)]
            if isinstance(m.get("content"), list) for b in m["content"] if b.get("type") == "thinking"]


def test_an_excerpt_of_reasoning_written_as_text_fails_reasoning_not_transcribed() -> None:
    from .zoo._history import live_start, without_reasoning

    def notes_excerpts(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        start = live_start(history)
        kept = [m for m in (without_reasoning(m) for m in history[:start]) if m is not None]
        notes = [e for e, t in zip(_excerpts(history, 0.6), _excerpts(history, 1.0)) if len(e) < len(t)]
        if not notes:
            return list(history)
        note = {"role": "user", "content": "(notes from earlier reasoning: " + " | ".join(notes) + ")"}
        return [note, {"role": "assistant", "content": "Noted."}, *kept, *history[start:]]

    scenario = _settled_reasoning_scenario(shortest=100)
    assert any(len(e) < len(t) for e, t in zip(_excerpts(scenario.history, 0.6), _excerpts(scenario.history, 1.0)))
    results = check_scenario(from_callable(notes_excerpts, "notes_excerpts"), scenario, IN_PROCESS)
    assert [r.outcome for r in results if r.invariant == "reasoning.not-transcribed"] == ["fail"]


def test_an_excerpt_of_reasoning_given_to_the_summarizer_fails_summary_no_reasoning() -> None:
    def summarises_excerpts(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
        if summarize is not None:
            summarize("Summarise: " + " ".join(e for e, t in zip(_excerpts(history, 0.5), _excerpts(history, 1.0))
                                               if len(e) < len(t)))
        return list(history)

    results = check_scenario(from_callable(summarises_excerpts, "summarises_excerpts"),
                             _settled_reasoning_scenario(shortest=100), IN_PROCESS)
    assert [r.outcome for r in results if r.invariant == "summary.no-reasoning"] == ["fail"]


def test_a_note_of_the_tool_calls_made_in_its_own_words_is_no_transcribed_reasoning() -> None:
    """A thinking text naming a call ("I'll call read_file on docker-compose.yml ...") shares a few
    words with a note a compactor writes from the calls' names and inputs alone: no excerpt."""
    from .zoo._history import live_start

    def notes_calls(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        start = live_start(history)
        calls = [f"{b['name']} on {next((v for v in b['input'].values() if isinstance(v, str)), '')}"
                 for m in history[:start] if m["role"] == "assistant" and isinstance(m["content"], list)
                 for b in m["content"] if b.get("type") == "tool_use"]
        if not calls:
            return list(history)
        note = {"role": "user", "content": "[earlier work cleared; tool calls made: " + "; ".join(calls) + "]"}
        return [note, {"role": "assistant", "content": "Noted."}, *history[start:]]

    named = [s for s in _scenarios() if any("read_file on " in b.get("thinking", "") for m in s.history
                                            if isinstance(m.get("content"), list) for b in m["content"])][:10]
    outcomes = [r.outcome for scenario in named
                for r in check_scenario(from_callable(notes_calls, "notes_calls"), scenario, IN_PROCESS)
                if r.invariant == "reasoning.not-transcribed"]
    assert "pass" in outcomes and "fail" not in outcomes  # (judged at least once: a note was written)


def test_a_summarizer_of_a_call_given_up_at_its_limit_credits_no_later_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.engine.target import RecordingSummarizer

    later, kept, left_running = RecordingSummarizer(), RecordingSummarizer(), RecordingSummarizer()
    left_running.abandoned = True  # (call_guarded marks the stand-in of a call that hung)
    monkeypatch.setattr(RecordingSummarizer, "under_way", later)
    left_running("the hung call's prompt")
    kept("a prompt through a client made at an earlier call")
    assert later.prompts == ["a prompt through a client made at an earlier call"]


def test_a_summarizer_given_what_cannot_be_copied_does_not_break_the_call() -> None:
    import threading

    def summarises(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
        if summarize is not None:
            summarize("Summarise.", client={"lock": threading.Lock()})
        return list(history)

    results = check_scenario(from_callable(summarises, "summarises"), _settled_reasoning_scenario(), IN_PROCESS)
    assert {r.invariant: r.outcome for r in results}["call.completes"] == "pass"
    assert [r.outcome for r in results if r.invariant == "summary.no-reasoning"] == ["pass"]


THOUGHT = "The user wants the failing test in utils.py fixed.\nLet me \"run\" it first."


def _transcribing(quote: Any) -> Any:
    """Returns a target that puts ``quote(history)`` as a user note before the history's last message."""
    def target(history: list[dict[str, Any]], summarize: Any = None) -> list[dict[str, Any]]:
        return [*history[:-1], {"role": "user", "content": quote(history)}, history[-1]]
    return target


def _thinking_scenario(request: str) -> Scenario:
    from conformance import Truth

    history = [{"role": "user", "content": request},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": THOUGHT, "signature": "sig"},
                                                 {"type": "text", "text": "Done."}]},
               {"role": "user", "content": "Thanks. Now the docs."}]
    return Scenario("zoo.transcribed", "zoo", "zoo", history, Truth(2))


@pytest.mark.parametrize("quote", [
    lambda history: f"Earlier reasoning: {THOUGHT}",
    lambda history: "Earlier conversation: " + json.dumps(history[:2]),  # escaped as JSON writes it
    lambda history: f"Earlier: {history[:2]!r}",  # escaped as repr writes it
], ids=["raw", "json", "repr"])
def test_reasoning_sent_back_as_prompt_text_fails_however_it_is_escaped(quote: Any) -> None:
    results = check_scenario(from_callable(_transcribing(quote), "t"), _thinking_scenario("Fix utils.py."),
                             RunOptions(in_process=True, idempotence=False, prefix_check=False))
    assert [r.outcome for r in results if r.invariant == "reasoning.not-transcribed"] == ["fail"]


def test_a_thinking_text_the_visible_history_already_holds_proves_nothing() -> None:
    quote = _transcribing(lambda history: f"Earlier the user said: {history[0]['content']}")
    scenario = _thinking_scenario(f"Please: {THOUGHT}")  # the request itself holds the thinking text
    results = check_scenario(from_callable(quote, "t"), scenario,
                             RunOptions(in_process=True, idempotence=False, prefix_check=False))
    assert [r.outcome for r in results if r.invariant == "reasoning.not-transcribed"] == ["pass"]
