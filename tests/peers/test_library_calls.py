"""Each row of the libraries added for vendor breadth calls its library's own code: a spy put in
place of the library's function records the call and hands it on, and the row's answer comes from
it (the history comes back changed, as that function changed it). A summariser's prompts reach the
recording fake model, never the network."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest

from conformance.peers import Peer, all_peers

PEERS = {p.name: p for p in all_peers()}
# each new row, and the library function (``module:attr``, ``attr`` may be ``Class.method``) it must call
CALLS: dict[str, str] = {
    "langchain.ContextEditingMiddleware.keep-3": "langchain.agents.middleware:ContextEditingMiddleware.wrap_model_call",
    "langchain.ContextEditingMiddleware.clear-inputs":
        "langchain.agents.middleware:ContextEditingMiddleware.wrap_model_call",
    "langchain.SummarizationMiddleware.tokens": "langchain.agents.middleware:SummarizationMiddleware.before_model",
    "deepagents.SummarizationMiddleware.messages":
        "deepagents.middleware.summarization:SummarizationMiddleware.wrap_model_call",
    "deepagents.SummarizationMiddleware.tokens":
        "deepagents.middleware.summarization:SummarizationMiddleware.wrap_model_call",
    "langmem.summarize_messages": "langmem.short_term:summarize_messages",
    "langmem.summarize_messages.early": "langmem.short_term:summarize_messages",
    "agno.filter_tool_calls": "agno.utils.message:filter_tool_calls",
    "agno.AgentSession.get_messages.limit": "agno.session.agent:AgentSession.get_messages",
    "beeai-framework.SlidingMemory": "beeai_framework.memory.sliding_memory:SlidingMemory.add",
    "griptape.ConversationMemory.max_runs": "griptape.memory.structure:ConversationMemory.to_prompt_stack",
    "griptape.ConversationMemory.autoprune": "griptape.memory.structure:ConversationMemory.add_to_prompt_stack",
    "agent-framework-core.SlidingWindowStrategy": "agent_framework._compaction:SlidingWindowStrategy.__call__",
    "agent-framework-core.TruncationStrategy": "agent_framework._compaction:TruncationStrategy.__call__",
    # beeai-framework.TokenMemory is not here: its estimate counts text parts alone, so this history
    # of long tool results fits its 200 tokens (test_vendor_adapters shows the row calls it)
    "anthropic.tool_runner.compact_before_next_turn":
        "anthropic.lib.tools._beta_runner:BaseToolRunner._register_compaction_response",
}
SUMMARISERS = ("langchain.SummarizationMiddleware.tokens", "deepagents.SummarizationMiddleware.messages",
               "deepagents.SummarizationMiddleware.tokens", "langmem.summarize_messages",
               "langmem.summarize_messages.early")


def _history(rounds: int = 6) -> list[dict[str, Any]]:
    """Returns a settled task of ``rounds`` tool calls with long results, then a new request."""
    history: list[dict[str, Any]] = [{"role": "user", "content": "Read the six files and sum their numbers."}]
    for i in range(rounds):
        history.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Reading file {i}."},
            {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"path": f"f{i}.txt"}}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"number {i}; " + "padding " * 60}]})
    history.append({"role": "assistant", "content": "The sum is 15."})
    history.append({"role": "user", "content": "Thanks. Now list the files again."})
    return history


def _spy(monkeypatch: pytest.MonkeyPatch, where: str, calls: list[int]) -> None:
    """Puts a spy in place of ``where`` that counts its calls in ``calls`` and hands each on."""
    module_name, _, path = where.partition(":")
    owner: Any = importlib.import_module(module_name)
    *parents, attr = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent)
    original: Callable[..., Any] = getattr(owner, attr)

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, attr, spy)


def _peer(name: str) -> Peer:
    peer = PEERS[name]
    if not peer.installed:
        pytest.skip(f"{peer.library} is not installed")
    return peer


def _run(peer: Peer, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns what the peer's target makes of a copy of ``history`` with a window of 4 messages
    or a budget of 200 tokens, whichever its callable takes."""
    target = peer.target()
    return list(target.func([dict(m) for m in history], **target.params_for({"keep_turns": 4, "budget_tokens": 200})))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_row_answers_with_its_library_code(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    peer = _peer(name)
    calls: list[int] = []
    _spy(monkeypatch, CALLS[name], calls)
    history = _history()
    out = _run(peer, history)
    assert calls, f"{name} did not call {CALLS[name]}"
    assert out != history  # what the library did to the history is what the row answers


@pytest.mark.slow
@pytest.mark.parametrize("name", SUMMARISERS)
def test_a_summariser_asks_the_recording_model(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.peers import _fake_model

    peer = _peer(name)
    models: list[Any] = []
    make = _fake_model.recording_model

    def recording(summary: str) -> Any:
        model = make(summary)
        models.append(model)
        return model

    monkeypatch.setattr(_fake_model, "recording_model", recording)
    out = _run(peer, _history())
    prompts = [p for model in models for p in model.prompts]
    assert prompts, f"{name} never asked its summariser"
    assert any("Read the six files" in str(m.content) for p in prompts for m in p)  # the summarised request
    assert any("condensed by a fake model" in str(m["content"]) for m in out)  # its answer is the summary


def test_the_sdk_sends_the_whole_history_and_keeps_only_its_compaction_block(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.peers import anthropic_sdk

    peer = _peer("anthropic.tool_runner.compact_before_next_turn")
    servers: list[anthropic_sdk.StandInServer] = []
    make = anthropic_sdk.StandInServer

    def recording() -> anthropic_sdk.StandInServer:
        servers.append(make())
        return servers[-1]

    monkeypatch.setattr(anthropic_sdk, "StandInServer", recording)
    history = _history()[:-2]  # ends on the tool result the model has yet to read
    out = _run(peer, history)
    compaction, turn = servers[0].requests
    assert compaction["compaction"] == {"type": "summarize"} and compaction["messages"] == history
    assert turn["messages"] == out == [{"role": "assistant", "content": [
        {"type": "compaction", "content": anthropic_sdk.SUMMARY, "signature": "c2lnbmF0dXJl"}]}]


def test_the_stand_in_server_refuses_to_compact_while_a_call_awaits_its_result() -> None:
    import anthropic

    peer = _peer("anthropic.tool_runner.compact_before_next_turn")
    with pytest.raises(anthropic.BadRequestError, match="without a result"):
        _run(peer, _history()[:-3])  # ends on the last call, its result not yet sent
