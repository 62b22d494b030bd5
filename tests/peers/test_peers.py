"""Real peers under test: the registry, each adapter's losslessness, and each peer on the scenarios
that reproduce the failures reported against it."""

from __future__ import annotations

import os
import pytest

from conformance import LoadResult, RunOptions, from_callable, run
from conformance.formats import get
from conformance.formats.base import canonical
from conformance.formats.wrap import mark
from conformance.peers import Peer, PeerNotInstalled, all_peers, select

pytestmark = pytest.mark.slow  # every test here imports and runs the peers' libraries

OPTIONS = RunOptions(reference_targets=frozenset(), idempotence=False, time_limit=30.0, in_process=True)
PEERS = {p.name: p for p in all_peers()}


@pytest.fixture(scope="module", autouse=True)
def _every_peer_installed() -> None:
    """Skips the module's tests unless every peer is installed (CI installs the peers extra, so
    there every peer must run). Asked when the first test runs, not at collection: finding a
    library's module imports its parent packages, seconds of imports for every process collecting."""
    if not os.environ.get("CI"):
        for peer in PEERS.values():
            if not peer.installed:
                pytest.skip(f"{peer.library} is not installed")

F = "real-failures."
# (scenario, invariant) each peer is expected to fail, from the reports the specs cite
KNOWN: dict[str, list[tuple[str, str]]] = {
    "langchain-core.trim_messages.last": [(F + "f01-last-n-cut-leaves-leading-results", "tools.results-answer-previous"),
                                          ("arithmetic.inflight-6-steps-window-10", "live.untouched-suffix")],
    "langchain-core.trim_messages.last-from-human": [("arithmetic.inflight-50-steps-window-20", "live.untouched-suffix"),
                                                     (F + "f03-partial-trim-of-the-in-flight-turn", "reasoning.live-preserved")],
    "langchain-core.trim_messages.partial": [(F + "f06-thinking-tool-loop-window-4", "reasoning.live-preserved")],
    "langchain.ClearToolUsesEdit": [(F + "f04-ten-parallel-reads-window-6", "live.untouched-suffix")],
    "langchain.SummarizationMiddleware": [(F + "f06-thinking-tool-loop-window-4", "live.untouched-suffix"),
                                          (F + "f04-ten-parallel-reads-window-6", "live.untouched-suffix")],
    "autogen-core.BufferedChatCompletionContext": [(F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix")],
    "autogen-core.HeadAndTailChatCompletionContext": [(F + "f05-two-call-turns-then-one-result-turn",
                                                       "live.untouched-suffix")],
    "autogen-core.TokenLimitedChatCompletionContext": [(F + "f01-last-n-cut-leaves-leading-results",
                                                        "tools.uses-answered-next")],
    "strands-agents.SlidingWindowConversationManager": [(F + "f06-thinking-tool-loop-window-4",
                                                         "reasoning.live-preserved")],
    "llama-index-core.ChatMemoryBuffer": [(F + "f24-oversized-result-over-budget", "tools.results-answer-previous")],
    "haystack-ai.SlidingWindowCompactor": [("arithmetic.inflight-50-steps-window-20", "live.untouched-suffix")],
    "openai-agents.SQLiteSession.limit": [(F + "f03-partial-trim-of-the-in-flight-turn", "tools.results-answer-previous")],
    "langchain.SummarizationMiddleware.tokens": [(F + "f02-tiny-budget-keeps-the-task-in-flight", "live.untouched-suffix"),
                                                 (F + "f06-thinking-tool-loop-window-4", "reasoning.live-preserved")],
    "langchain.ContextEditingMiddleware.keep-3": [(F + "f04-ten-parallel-reads-window-6", "live.untouched-suffix")],
    "langchain.ContextEditingMiddleware.clear-inputs": [
        (F + "f02-tiny-budget-keeps-the-task-in-flight", "live.untouched-suffix"),
        (F + "f06-thinking-tool-loop-window-4", "thinking.prefix-unchanged")],
    "deepagents.SummarizationMiddleware.messages": [
        (F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix"),
        (F + "f03-partial-trim-of-the-in-flight-turn", "reasoning.live-preserved")],
    "deepagents.SummarizationMiddleware.tokens": [(F + "f02-tiny-budget-keeps-the-task-in-flight",
                                                   "live.untouched-suffix")],
    "langmem.summarize_messages": [(F + "f02-tiny-budget-keeps-the-task-in-flight", "live.untouched-suffix"),
                                   (F + "f04-ten-parallel-reads-window-6", "tools.results-answer-previous")],
    "langmem.summarize_messages.early": [(F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix"),
                                         (F + "f04-ten-parallel-reads-window-6", "tools.results-answer-previous")],
    "agno.filter_tool_calls": [(F + "f04-ten-parallel-reads-window-6", "live.untouched-suffix")],
    "agno.AgentSession.get_messages.limit": [(F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix")],
    "anthropic.tool_runner.compact_before_next_turn": [
        (F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix"),
        (F + "f03-partial-trim-of-the-in-flight-turn", "reasoning.live-preserved")],
    "semantic-kernel.ChatHistoryTruncationReducer": [(F + "f01-last-n-cut-leaves-leading-results", "live.untouched-suffix"),
                                                     (F + "f07-compaction-turn-inside-the-task-in-flight",
                                                      "reasoning.live-preserved")],
    "semantic-kernel.ChatHistoryTruncationReducer.threshold": [(F + "f13-history-processor-sees-the-current-run",
                                                                "live.untouched-suffix")],
    "semantic-kernel.ChatHistorySummarizationReducer": [(F + "f06-thinking-tool-loop-window-4", "summary.no-reasoning"),
                                                        (F + "f05-two-call-turns-then-one-result-turn",
                                                         "live.untouched-suffix")],
    "semantic-kernel.ChatHistorySummarizationReducer.with-functions": [(F + "f04-ten-parallel-reads-window-6",
                                                                        "summary.no-reasoning")],
    # results of at most 46 bytes are neither counted nor cleared (as the API does), so the ten tiny
    # parallel reads of f04 stay; clearing their inputs (keep=1) reaches them
    "litellm.clear_tool_uses": [("live-content.error-results-then-retry-window-4", "thinking.prefix-unchanged")],
    "litellm.clear_tool_uses.inputs-keep-1": [(F + "f04-ten-parallel-reads-window-6", "live.untouched-suffix"),
                                              (F + "f18-reasoning-only-settled-turn-dropped",
                                               "thinking.prefix-unchanged")],
    "pydantic-ai-slim.ProcessHistory.keep_recent": [(F + "f03-partial-trim-of-the-in-flight-turn", "output.well-formed"),
                                                    (F + "f01-last-n-cut-leaves-leading-results",
                                                     "live.untouched-suffix")],
    "pydantic-ai-slim.ProcessHistory.summarize_old": [(F + "f06-thinking-tool-loop-window-4", "summary.no-reasoning"),
                                                      (F + "f03-partial-trim-of-the-in-flight-turn",
                                                       "reasoning.live-preserved")],
    # the window counts messages alone, so it starts the kept history on a tool result or mid-turn
    "beeai-framework.SlidingMemory": [(F + "f03-partial-trim-of-the-in-flight-turn", "live.untouched-suffix"),
                                      (F + "f03-partial-trim-of-the-in-flight-turn",
                                       "tools.results-answer-previous")],
    # it counts text parts alone (tool results and calls weigh nothing) and evicts the oldest message
    "beeai-framework.TokenMemory": [("blind-spots.last-settled-task-over-budget-is-trimmed-as-settled",
                                     "thinking.prefix-unchanged"),
                                    ("agent-notices.reminders-in-the-request-and-after-each-result-in-flight-window-3",
                                     "live.untouched-suffix")],
    # a finished task is kept as its request and answer alone, so a call still waiting in an earlier
    # task is lost and its late result answers nothing
    "griptape.ConversationMemory.max_runs": [("limits.interleaved-late-result", "tools.results-answer-previous"),
                                             ("limits.interleaved-late-result", "reasoning.live-preserved")],
    "griptape.ConversationMemory.autoprune": [(F + "f24-oversized-result-over-budget", "thinking.prefix-unchanged"),
                                              ("limits.interleaved-late-result", "tools.results-answer-previous")],
    # whole groups (a call with its results) go, but a group boundary is not a turn boundary: the task
    # in flight loses its opening steps and the thinking that led them
    "agent-framework-core.SlidingWindowStrategy": [(F + "f07-compaction-turn-inside-the-task-in-flight",
                                                    "reasoning.live-preserved"),
                                                   (F + "f03-partial-trim-of-the-in-flight-turn",
                                                    "thinking.prefix-unchanged")],
    "agent-framework-core.TruncationStrategy": [("parallel-tools.error-and-image-results-in-flight",
                                                 "live.untouched-suffix"),
                                                (F + "f03-partial-trim-of-the-in-flight-turn",
                                                 "thinking.prefix-unchanged")],
}
# settings under which each adapter's library keeps everything: the adapter alone must then be lossless
KEEP_ALL: dict[str, dict[str, int]] = {
    "autogen-core.BufferedChatCompletionContext": {"keep_turns": 10_000},
    "autogen-core.TokenLimitedChatCompletionContext": {"budget_tokens": 10_000_000},
    "llama-index-core.ChatMemoryBuffer": {"budget_tokens": 10_000_000},
    "haystack-ai.SlidingWindowCompactor": {"budget_tokens": 10_000_000},
    "strands-agents.SlidingWindowConversationManager": {"keep_turns": 10_000},
    "langchain-core.trim_messages.last": {"keep_turns": 10_000},
    "openai-agents.SQLiteSession.limit": {"keep_turns": 10_000},
    "langchain.ContextEditingMiddleware.keep-3": {"budget_tokens": 10_000_000},
    "langchain.SummarizationMiddleware.tokens": {"budget_tokens": 10_000_000},
    "deepagents.SummarizationMiddleware.messages": {"keep_turns": 10_000},
    "langmem.summarize_messages": {"budget_tokens": 10_000_000},
    "semantic-kernel.ChatHistoryTruncationReducer": {"keep_turns": 10_000},
    "semantic-kernel.ChatHistorySummarizationReducer": {"keep_turns": 10_000},
    "beeai-framework.SlidingMemory": {"keep_turns": 10_000},
    "beeai-framework.TokenMemory": {"budget_tokens": 10_000_000},
    "agent-framework-core.SlidingWindowStrategy": {"keep_turns": 10_000},
    "agent-framework-core.TruncationStrategy": {"budget_tokens": 10_000_000},
}


def test_the_registry_has_ten_components_from_six_libraries() -> None:
    components = {(p.library, p.component) for p in PEERS.values()}
    assert len(components) >= 10
    assert len({p.library for p in PEERS.values()}) >= 6
    assert len(PEERS) == len(all_peers())  # names are unique
    for peer in PEERS.values():
        assert peer.version, peer.name
        get(peer.format)  # a known format


def test_every_peer_with_a_reported_failure_reproduces_it(shipped: LoadResult) -> None:
    by_id = {s.id: s for s in shipped.scenarios}
    for name, cells in KNOWN.items():
        peer = PEERS[name]
        scenarios = mark([by_id[s] for s, _ in cells], get(peer.format))
        report = run([peer.target()], scenarios, options=OPTIONS)
        failed = {(r.scenario, r.invariant) for r in report.results if r.outcome == "fail"}
        assert set(cells) <= failed, (name, set(cells) - failed)


def _opens_on_a_result(history: list) -> bool:
    """Returns whether the history opens on a tool result, which some libraries drop by design
    (autogen-core's contexts remove a leading function result) however much they keep."""
    first = history[0] if history else {}
    return isinstance(first.get("content"), list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in first["content"])


@pytest.mark.parametrize("name", sorted(KEEP_ALL))
def test_an_adapter_whose_library_keeps_everything_returns_the_history_unchanged(name: str,
                                                                                shipped: LoadResult) -> None:
    peer = PEERS[name]
    fmt = get(peer.format)
    target = peer.target()
    checked = 0
    for scenario in shipped.scenarios[::3]:
        if fmt.why_not(scenario.history) is not None or _opens_on_a_result(scenario.history):
            continue
        out = target.func([dict(m) for m in scenario.history], **KEEP_ALL[name])
        assert canonical(out) == canonical(scenario.history), (name, scenario.id)
        checked += 1
    assert checked >= 20


def test_a_peer_whose_library_is_missing_is_not_installed() -> None:
    ghost = Peer("ghost.Trimmer", "no-such-library", "Trimmer", "defaults", "anthropic", "no_such_module:trim",
                 "no_such_module")
    assert not ghost.installed and ghost.version is None
    with pytest.raises(PeerNotInstalled, match="not installed"):
        ghost.target()


def test_peers_are_selected_by_name_or_library() -> None:
    assert {p.library for p in select(["autogen-core"])} == {"autogen-core"}
    assert [p.name for p in select(["langchain.ClearToolUsesEdit"])] == ["langchain.ClearToolUsesEdit"]
    with pytest.raises(KeyError, match="unknown peer"):
        select(["nope"])


def test_the_example_adapter_stays_importable(shipped: LoadResult) -> None:
    from examples.peers import langchain_trim

    scenario = next(s for s in shipped.scenarios if s.id == F + "f01-last-n-cut-leaves-leading-results")
    report = run([from_callable(langchain_trim.trim_last, "trim_last")], [scenario], options=OPTIONS)
    assert ("tools.results-answer-previous", "fail") in {(r.invariant, r.outcome) for r in report.results}


def test_the_summarizer_runs_on_a_fake_model(shipped: LoadResult) -> None:
    from conformance.peers.langchain import SUMMARY

    scenario = next(s for s in shipped.scenarios if s.id == F + "f06-thinking-tool-loop-window-4")
    out = PEERS["langchain.SummarizationMiddleware"].target().func([dict(m) for m in scenario.history],
                                                                   **scenario.params)
    assert any(isinstance(m["content"], str) and SUMMARY in m["content"] for m in out)
