"""The adapters of Semantic Kernel, LiteLLM and pydantic-ai call their library: with the library's
step replaced, each row's output changes (or the call is seen), so a row cannot pass by the
adapter's own doing."""

from __future__ import annotations

from typing import Any

import pytest

from conformance import LoadResult
from conformance.peers import all_peers
from conformance.engine.target import RecordingSummarizer

pytestmark = pytest.mark.slow  # every test here imports and runs the peers' libraries

PEERS = {p.name: p for p in all_peers()}
F = "real-failures."


def _history(shipped: LoadResult, scenario: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Returns a copy of the shipped scenario's history and its parameters."""
    found = next(s for s in shipped.scenarios if s.id == scenario)
    return [dict(m) for m in found.history], dict(found.params)


def test_the_semantic_kernel_rows_are_what_the_reducers_keep(shipped: LoadResult,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("semantic_kernel")
    from semantic_kernel.contents.history_reducer.chat_history_summarization_reducer import (
        ChatHistorySummarizationReducer)
    from semantic_kernel.contents.history_reducer.chat_history_truncation_reducer import ChatHistoryTruncationReducer

    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    names = ("semantic-kernel.ChatHistoryTruncationReducer", "semantic-kernel.ChatHistoryTruncationReducer.threshold",
             "semantic-kernel.ChatHistorySummarizationReducer")
    before = [PEERS[n].target().func([dict(m) for m in history], **params) for n in names]
    assert all(len(out) < len(history) for out in before)

    async def keep_last(self: Any) -> Any:  # the library's step replaced: keep the last message alone
        self.messages = self.messages[-1:]
        return self

    for cls in (ChatHistoryTruncationReducer, ChatHistorySummarizationReducer):
        monkeypatch.setattr(cls, "reduce", keep_last)
    after = [PEERS[n].target().func([dict(m) for m in history], **params) for n in names]
    assert after == [history[-1:]] * len(names) != before


def test_the_semantic_kernel_summary_comes_from_the_service_the_reducer_asks(shipped: LoadResult) -> None:
    pytest.importorskip("semantic_kernel")
    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    summarizer = RecordingSummarizer()
    out = PEERS["semantic-kernel.ChatHistorySummarizationReducer"].target().func(history, summarize=summarizer,
                                                                               **params)
    assert len(summarizer.prompts) == 1  # the request the reducer's service was given
    summary = summarizer(summarizer.prompts[0])
    assert out[0] == {"role": "assistant", "content": summary}
    assert summarizer.prompts[0][-1]["role"] == "system"  # the reducer's own instructions close the request


def test_the_litellm_rows_are_what_its_context_management_forwards(shipped: LoadResult,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("litellm")
    from litellm.llms.anthropic.messages.context_management import dispatcher

    history, _ = _history(shipped, F + "f04-ten-parallel-reads-window-6")
    target = PEERS["litellm.clear_tool_uses.inputs-keep-1"].target()
    before = target.func([dict(m) for m in history])
    assert before != history  # it cleared results and inputs
    assert "[Cleared by context management]" in str(before)

    seen: list[dict[str, Any]] = []

    async def forward_first(**kwargs: Any) -> Any:  # the library's step replaced: forward the first message
        seen.append(kwargs["context_management_spec"])
        return dispatcher.PolyfillResult(messages=kwargs["messages"][:1], system=None, applied_edits=[])

    monkeypatch.setattr(dispatcher, "apply_context_management", forward_first)
    assert target.func([dict(m) for m in history]) == history[:1]
    assert seen == [{"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 0},
                                "keep": {"type": "tool_uses", "value": 1}, "clear_tool_inputs": True}]}]


def test_the_pydantic_ai_rows_are_what_the_agent_sends_its_model(shipped: LoadResult,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.capabilities import process_history

    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    names = ("pydantic-ai-slim.ProcessHistory.keep_recent", "pydantic-ai-slim.ProcessHistory.summarize_old")
    before = [PEERS[n].target().func([dict(m) for m in history], **params) for n in names]
    assert all(out != history for out in before)

    ran: list[int] = []

    async def not_run(processor: Any, ctx: Any, messages: list[Any]) -> list[Any]:  # the processor left out
        ran.append(len(messages))
        return messages

    monkeypatch.setattr(process_history, "_run_history_processor", not_run)
    after = [PEERS[n].target().func([dict(m) for m in history], **params) for n in names]
    assert ran == [len(history), len(history)]  # the agent's capability asked for each row's processor
    assert after != before


def test_the_pydantic_ai_summary_is_the_summarizing_agents_answer(shipped: LoadResult) -> None:
    pytest.importorskip("pydantic_ai")
    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    summarizer = RecordingSummarizer()
    out = PEERS["pydantic-ai-slim.ProcessHistory.summarize_old"].target().func(history, summarize=summarizer,
                                                                             **params)
    assert len(summarizer.prompts) == 1
    assert out[0] == {"role": "user", "content": summarizer(summarizer.prompts[0])}  # the CompactionPart's text


def test_the_beeai_rows_are_what_its_memories_hold(shipped: LoadResult, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("beeai_framework")
    from beeai_framework.memory import SlidingMemory, TokenMemory

    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    rows = {"beeai-framework.SlidingMemory": params, "beeai-framework.TokenMemory": {"budget_tokens": 20}}
    before = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    assert all(len(out) < len(history) for out in before)

    seen: list[tuple[str, Any]] = []

    async def keep_newest(self: Any, message: Any, index: int | None = None) -> None:  # the library's step replaced
        seen.append((type(self).__name__, self.config.size if isinstance(self, SlidingMemory) else self._max_tokens))
        self._messages[:] = [message]

    for cls in (SlidingMemory, TokenMemory):
        monkeypatch.setattr(cls, "add", keep_newest)
    after = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    assert after != before
    assert [len(out) for out in after] == [1, 1] and after[0] == after[1]
    assert after[0][0]["role"] == history[-1]["role"]  # the newest message the memory was given
    assert set(seen) == {("SlidingMemory", params["keep_turns"]), ("TokenMemory", 20)}
    assert len(seen) >= 2 * len(history)  # every message was added to each memory


def test_the_griptape_rows_are_the_runs_its_memory_replays(shipped: LoadResult,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("griptape")
    from griptape.common import PromptStack
    from griptape.memory.structure import ConversationMemory

    history, params = _history(shipped, F + "f01-last-n-cut-leaves-leading-results")
    rows = {"griptape.ConversationMemory.max_runs": params, "griptape.ConversationMemory.autoprune": {}}
    before = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    current = history[4:]  # the task in flight, sent after the memory as it is
    assert all(out[-len(current):] == current and out != history for out in before)
    assert before[0][:2] == [history[0], history[3]]  # the settled task replayed as its request and answer

    seen: list[tuple[int, int | None]] = []

    def nothing(self: Any, last_n: int | None = None) -> PromptStack:  # the library's step replaced: no runs
        seen.append((len(self.runs), last_n))
        return PromptStack()

    monkeypatch.setattr(ConversationMemory, "to_prompt_stack", nothing)
    after = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    assert after == [current, current] != before
    assert seen and all(runs == 1 for runs, _ in seen)  # the one finished task, asked of each row's memory


def test_the_agent_framework_rows_are_what_its_compaction_leaves(shipped: LoadResult,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("agent_framework")
    import agent_framework

    history, params = _history(shipped, F + "f06-thinking-tool-loop-window-4")
    rows = {"agent-framework-core.SlidingWindowStrategy": params,
            "agent-framework-core.TruncationStrategy": {"budget_tokens": 100}}
    before = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    assert all(len(out) < len(history) for out in before)

    seen: list[str] = []

    async def keep_newest(messages: list[Any], *, strategy: Any, tokenizer: Any = None) -> list[Any]:
        seen.append(type(strategy).__name__)  # the library's step replaced: the newest message alone
        return messages[-1:]

    monkeypatch.setattr(agent_framework, "apply_compaction", keep_newest)
    after = [PEERS[n].target().func([dict(m) for m in history], **p) for n, p in rows.items()]
    assert seen == ["SlidingWindowStrategy", "TruncationStrategy"]
    assert after != before and after[0] == after[1] and len(after[0]) == 1
    assert after[0][0]["role"] == history[-1]["role"]


def test_the_libraries_that_cannot_run_are_listed_and_stay_out_of_the_extra() -> None:
    import tomllib
    from pathlib import Path

    from conformance.matrix.build import markdown
    from conformance.matrix.not_measured import NOT_MEASURED

    page = markdown({"checked": "today", "scenarios": 0, "rows": []})
    extra = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    pins = {pin.split("==")[0] for pin in extra["project"]["optional-dependencies"]["peers"]}
    for library, version, what, why in NOT_MEASURED:
        name = library
        assert f"| {library} | {version} | {what} | {why} |" in page
        assert name not in pins and name not in {p.library for p in PEERS.values()}
