"""Building a history live: the shape check, the id mapping and the sized stand-ins for scrubbed thinking."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types.beta import BetaMessage

from conformance.provider.anthropic import live
from conformance.provider.anthropic import semantics as sem
from conformance.provider.cassettes import placeholder
from conformance.provider.anthropic.probes import Probe


def _reply(content: list[dict[str, Any]]) -> BetaMessage:
    return BetaMessage.model_validate({"id": "m", "type": "message", "role": "assistant", "model": "m",
                                       "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                                       "usage": {"input_tokens": 1, "output_tokens": 1}})


# what a well-behaved server answers to each building turn of the three-turn template, in order
PLAN = ["search", None, None, "read_file", "search"]


def _server(text_beside_calls: bool = False, skip_thinking: bool = False) -> Any:
    """Returns a stand-in ``create`` that answers the n-th building turn as ``PLAN`` says."""

    def create(**kwargs: Any) -> BetaMessage:
        n = sum(1 for m in kwargs["messages"] if m["role"] == "assistant")
        thought = [] if skip_thinking else [{"type": "thinking", "thinking": f"thought {n} " * (40 * 2 ** n),
                                             "signature": f"s{n}"}]
        if PLAN[n] is None:
            return _reply([*thought, {"type": "text", "text": "done"}])
        extra = [{"type": "text", "text": "Let me look."}] if text_beside_calls else []
        return _reply([*thought, *extra, {"type": "tool_use", "id": f"toolu_real{n}", "name": PLAN[n], "input": {}}])

    return create


def test_the_history_is_built_in_the_templates_shape(probes: dict[str, Probe]) -> None:
    probe = probes["clear-thinking.keep-one-turn"]
    built = live.drive(probe, _server(text_beside_calls=True))
    assert [m["role"] for m in built.messages] == [m["role"] for m in probe.messages()]
    assert set(built.ids.values()) == {"toolu_a1", "toolu_b1", "toolu_b2"}
    # the tool results go back under the server's ids, with the template's padded content
    assert built.messages[2]["content"][0]["tool_use_id"] in built.ids
    assert built.messages[2]["content"][0]["content"] == probe.messages()[2]["content"][0]["content"]
    sizes = built.thinking_sizes()
    judged = live.analysis_probe(probe, live.Built(_scrubbed(built.messages), built.ids), sizes)
    assert [step.tool_use_id for step in sem.tool_steps(judged.history)] == ["toolu_a1", "toolu_b1", "toolu_b2"]
    assert judged.documented().cleared_thinking_turns == [1, 2]


def _scrubbed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{**b, "thinking": placeholder(b["thinking"])} if b.get("type") == "thinking" else b
                       for b in content]
        out.append({**m, "content": content})
    return out


def test_a_missing_thinking_block_breaks_the_script(probes: dict[str, Probe]) -> None:
    with pytest.raises(live.ScriptError, match="message 1: the script needs thinking here"):
        live.drive(probes["clear-thinking.keep-one-turn"], _server(skip_thinking=True))


def test_a_scrubbed_thinking_without_a_recorded_size_is_refused(probes: dict[str, Probe]) -> None:
    probe = probes["clear-thinking.keep-one-turn"]
    built = live.drive(probe, _server())
    with pytest.raises(live.ScriptError, match="no recorded size for thinking"):
        live.analysis_probe(probe, live.Built(_scrubbed(built.messages), built.ids), {})


def _redacting_server() -> Any:
    """Returns a stand-in ``create`` that answers like ``_server`` with every thinking block redacted
    (the API's answer when its safety system encrypts the reasoning), each of its own length."""
    thinking = _server()

    def create(**kwargs: Any) -> BetaMessage:
        reply = thinking(**kwargs)
        content = [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3" + "Qx9" * (30 * 2 ** i)} if b.type == "thinking"
                   else b.model_dump(mode="json", exclude_none=True) for i, b in enumerate(reply.content)]
        return _reply(content)

    return create


def _tokens(history: list[dict[str, Any]]) -> list[int]:
    return [sem.block_tokens(b) for m in history for b in sem.content_blocks(m)]


def test_a_scrubbed_redacted_thinking_is_judged_at_its_recorded_size(probes: dict[str, Probe]) -> None:
    from conformance.provider.cassettes import scrub_json

    probe = probes["clear-thinking.keep-one-turn"]
    built = live.drive(probe, _redacting_server())
    data = [b["data"] for m in built.messages for b in sem.content_blocks(m) if b.get("type") == "redacted_thinking"]
    assert data and all(len(d) > 80 for d in data)
    scrubbed = scrub_json([{**m, "content": [dict(b) for b in m["content"]]} if isinstance(m["content"], list) else m
                           for m in built.messages])
    assert not any(d in repr(scrubbed) for d in data)  # what a cassette holds
    as_sent = live.analysis_probe(probe, built, {})
    replayed = live.analysis_probe(probe, live.Built(scrubbed, built.ids), built.thinking_sizes())
    assert _tokens(replayed.history) == _tokens(as_sent.history)
    assert replayed.documented() == as_sent.documented()
    with pytest.raises(live.ScriptError, match="no recorded size for redacted_thinking"):
        live.analysis_probe(probe, live.Built(scrubbed, built.ids), {})
