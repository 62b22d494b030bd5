"""Build a probe's history live, so every thinking block in it is one the server wrote and signed.

A probe with ``script`` has a history template: its user messages are sent in turn, every tool call
the server makes is answered with the ``tool_result`` written at its place, and the assistant
messages the server returns are kept (their block types and tool names must match the template).
``drive`` does this through any SDK client, so the same code records against a server and replays
from a cassette. ``analysis_probe`` then gives the probe the analyzer judges: the built history
with the server's tool ids renamed to the template's and each scrubbed thinking text replaced by
filler of the size recorded for it.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import cassettes
from . import semantics as sem
from .probes import Probe


class ScriptError(Exception):
    """The server's answers do not give the history the probe's shape; the message says where."""


@dataclass
class Built:
    """A history built live: the messages as sent and the server's tool ids mapped to the template's."""

    messages: list[dict[str, Any]]
    ids: dict[str, str] = field(default_factory=dict)

    def thinking_sizes(self) -> dict[str, int]:
        """Returns the estimated tokens of each thinking text and redacted_thinking ``data``, keyed by
        its scrubbed placeholder."""
        sizes = {}
        for message in self.messages:
            for block in sem.content_blocks(message):
                field_name = sem.REASONING_TEXT.get(str(block.get("type")))
                text = block.get(field_name) if field_name else None
                if isinstance(text, str) and not cassettes.PLACEHOLDER.match(text):
                    sizes[cassettes.placeholder(text)] = sem.estimate_text(text)
        return dict(sorted(sizes.items()))


def script_kwargs(probe: Probe) -> dict[str, Any]:
    """Returns the ``create`` arguments of the building turns (no context management, the script's thinking)."""
    script = probe.script or {}
    kwargs: dict[str, Any] = {"model": probe.request["model"],
                              "max_tokens": script.get("max_tokens", probe.request["max_tokens"]),
                              "thinking": script["thinking"]}
    for key in ("system", "tools"):
        if key in probe.request:
            kwargs[key] = probe.request[key]
    if script.get("betas"):
        kwargs["betas"] = list(script["betas"])
    return kwargs


def _shape(blocks: list[dict[str, Any]]) -> list[str]:
    """Returns what decides a message's place in a task: its tool calls by name, else that it answers in text.

    Text beside tool calls (a model often says what it is about to do) and thinking do not count.
    """
    calls = [f"tool_use {b.get('name')}" for b in blocks if b.get("type") == "tool_use"]
    if calls:
        return calls
    return ["text"] if any(b.get("type") == "text" for b in blocks) else [b.get("type", "?") for b in blocks]


def _check_answer(index: int, template: dict[str, Any], answer: list[dict[str, Any]], opens_turn: bool) -> None:
    """Returns None when ``answer`` has the template message's shape; raises ``ScriptError`` otherwise.

    Thinking is required where the template has it at the start of a turn (the API guarantees it
    there); after tool results a model may or may not think, and turn numbering does not depend on it.
    """
    expected, got = _shape(sem.content_blocks(template)), _shape(answer)
    if expected != got:
        raise ScriptError(f"message {index}: the server answered [{', '.join(got)}], the script needs "
                          f"[{', '.join(expected)}]")
    wants_thinking = opens_turn and any(b.get("type") in sem.THINKING_TYPES for b in sem.content_blocks(template))
    if wants_thinking and not any(b.get("type") in sem.THINKING_TYPES for b in answer):
        raise ScriptError(f"message {index}: the script needs thinking here and the server sent none")


def _as_param(block: Any) -> dict[str, Any]:
    return block.model_dump(mode="json", exclude_none=True)


def drive(probe: Probe, create: Callable[..., Any]) -> Built:
    """Returns the history built by sending the template's user side through ``create``.

    Raises ``ScriptError`` when an answer does not have the template's shape, and lets the SDK's
    errors through (the caller decides whether they are retryable).
    """
    template = probe.messages()
    built = Built([])
    kwargs = script_kwargs(probe)
    for index, message in enumerate(template):
        if message["role"] == "user":
            sent = copy.deepcopy(message)
            wire = {t: w for w, t in built.ids.items()}
            for block in sem.content_blocks(sent) if isinstance(sent["content"], list) else []:
                if block.get("type") == "tool_result":
                    block["tool_use_id"] = wire.get(block["tool_use_id"], block["tool_use_id"])
            built.messages.append(sent)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reply = create(**kwargs, messages=built.messages)
        answer = [_as_param(b) for b in reply.content]
        opens_turn = index > 0 and not sem.is_tool_result_message(template[index - 1])
        _check_answer(index, message, answer, opens_turn)
        wanted = [b["id"] for b in sem.content_blocks(message) if b.get("type") == "tool_use"]
        got = [b["id"] for b in answer if b.get("type") == "tool_use"]
        built.ids.update(zip(got, wanted))
        built.messages.append({"role": "assistant", "content": answer})
    return built


def wire_kwargs(probe: Probe, built: Built) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Returns the ``create`` and ``count_tokens`` arguments of the probe request on the built history,
    with the probe's ``client_edit`` applied."""
    create = {k: v for k, v in probe.create_kwargs().items()}
    create["messages"] = probe.edited(built.messages)
    count = None
    if probe.count_tokens:
        count = {k: v for k, v in create.items() if k != "max_tokens"}
    return create, count


def _rename(messages: list[dict[str, Any]], ids: dict[str, str], sizes: dict[str, int]) -> list[dict[str, Any]]:
    renamed = copy.deepcopy(messages)
    for message in renamed:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_use":
                block["id"] = ids.get(block["id"], block["id"])
            elif block.get("type") == "tool_result":
                block["tool_use_id"] = ids.get(block["tool_use_id"], block["tool_use_id"])
            elif (field_name := sem.REASONING_TEXT.get(str(block.get("type")))) is not None:
                text = block.get(field_name, "")
                if isinstance(text, str) and cassettes.PLACEHOLDER.match(text):
                    if text not in sizes:
                        raise ScriptError(f"no recorded size for {block['type']} {text}")
                    block[field_name] = sem.filler(sizes[text])
    return renamed


def analysis_probe(probe: Probe, built: Built, sizes: dict[str, int]) -> Probe:
    """Returns the probe as the analyzer judges it: built history, template ids, sized thinking.

    Raises ``ScriptError`` when the built history's live span or documented outcome differs from the
    template's, so a conversation that went another way is never judged against the wrong prediction.
    """
    judged = dataclasses.replace(probe, history=_rename(built.messages, built.ids, sizes), padding=())
    tools = [s.tool_use_id for s in sem.tool_steps(judged.history) if s.message >= probe.live.from_message]
    turns = [t.number for t in sem.assistant_turns(judged.history)
             if t.messages[0] >= probe.live.from_message and t.has_thinking]
    if tools != list(probe.live.tool_use_ids) or turns != list(probe.live.thinking_turns):
        raise ScriptError(f"the built history's task in flight has tool uses {tools} and thinking turns {turns}, "
                          f"the probe declares {list(probe.live.tool_use_ids)} and {list(probe.live.thinking_turns)}")
    documented, declared = judged.documented(), probe.documented()
    for key in sem.OUTCOME_FIELDS:
        if getattr(documented, key) != getattr(declared, key):
            raise ScriptError(f"on the built history the documented {key} is {getattr(documented, key)!r}, "
                              f"on the template {getattr(declared, key)!r}")
    return judged
