"""Anthropic's probes (a probe file without ``provider``, or ``provider: anthropic``): build each
schema-valid entry and check it against the documented semantics.

The declared live span must be where the history's task in flight starts, and the declared
prediction must be what ``semantics.predict`` gives. Every problem is a located ``SpecError``.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..._text import article
from ...engine._yamlsource import Locator
from ..analyze.model import LIVE_REASONING_LOST, SETTLED, worst
from . import semantics as sem
from . import semantics_binding as binding

@dataclass(frozen=True)
class Probe:
    """One probe: a request with a history, its declared live span and its documented prediction."""

    id: str
    description: str
    request: dict[str, Any]
    history: list[dict[str, Any]]
    padding: tuple[dict[str, Any], ...]
    live: sem.Span
    predict: dict[str, Any]
    count_tokens: bool = True
    path: str = "<memory>"
    line: int = 0
    script: dict[str, Any] | None = None
    client_edit: dict[str, Any] | None = None

    provider = "anthropic"

    @property
    def expected_error(self) -> dict[str, str] | None:
        """Returns the predicted rejection (``type`` and ``code`` and/or ``message`` pattern), if any."""
        return self.predict.get("error")

    @property
    def betas(self) -> list[str]:
        """Returns the beta names the probe sends in ``anthropic-beta``."""
        return list(self.request.get("betas") or [])

    @property
    def family(self) -> str:
        """Returns the strategy family: the edit name without its date, ``compaction`` or ``combined``;
        ``thinking-binding`` for a probe of the prefix check alone (no edit, a block binding set)."""
        if self.request.get("compaction") is not None:
            return "compaction"
        kinds = sorted({e["type"].rsplit("_", 1)[0] for e in sem.edits_of(self.request)})
        if not kinds and binding.behavior(self.request) is not None:
            return "thinking-binding"
        return kinds[0] if len(kinds) == 1 else ("combined" if kinds else "none")

    def messages(self) -> list[dict[str, Any]]:
        """Returns the history with every padding applied (shared between calls: do not mutate)."""
        return self._padded

    @cached_property
    def _padded(self) -> list[dict[str, Any]]:
        messages = copy.deepcopy(self.history)
        for seed, pad in enumerate(self.padding):
            block = messages[pad["message"]]["content"][pad["block"]]
            grow = " " + sem.filler(pad["tokens"], seed)
            kind = block["type"]
            if kind == "tool_use":
                block["input"][pad["field"]] += grow
            elif kind == "tool_result" and isinstance(block["content"], str):
                block["content"] += grow
            elif kind == "tool_result":
                block["content"][0]["text"] += grow
            else:
                block[{"thinking": "thinking", "text": "text"}[kind]] += grow
        return messages

    def edited(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Returns ``messages`` with the probe's ``client_edit`` of a block applied (a copy), or
        ``messages`` themselves when it edits no block."""
        edit = self.client_edit or {}
        if "message" not in edit:
            return messages
        changed = copy.deepcopy(messages)
        message = changed[edit["message"]]
        if isinstance(message["content"], str):
            message["content"] = edit["text"]
            return changed
        block = message["content"][edit["block"]]
        block["content" if block["type"] == "tool_result" else "text"] = edit["text"]
        return changed

    def create_kwargs(self) -> dict[str, Any]:
        """Returns the keyword arguments for ``client.beta.messages.create`` (shared values: do not mutate):
        the history with the probe's ``client_edit`` applied."""
        kwargs = {k: v for k, v in self.request.items() if k != "betas"}
        kwargs["messages"] = self.edited(self.messages())
        if self.client_edit and "system" in self.client_edit:
            kwargs["system"] = self.client_edit["system"]
        if self.betas:
            kwargs["betas"] = self.betas
        return kwargs

    def count_kwargs(self) -> dict[str, Any] | None:
        """Returns the keyword arguments for ``count_tokens``, or None when the probe skips it."""
        if not self.count_tokens:
            return None
        return {k: v for k, v in self.create_kwargs().items() if k not in ("max_tokens",)}

    def semantic_request(self) -> dict[str, Any]:
        """Returns the request as the documented semantics read it (no betas, padded messages)."""
        return {k: v for k, v in self.create_kwargs().items() if k != "betas"}

    def built_request(self) -> dict[str, Any]:
        """Returns the request as the semantics read it before the client's edit: the history as built,
        which every thinking block in it was produced after."""
        request = {k: v for k, v in self.request.items() if k != "betas"}
        request["messages"] = self.messages()
        return request

    def documented(self) -> sem.Prediction:
        """Returns what the documented semantics predict for this probe: the edits and compaction, then
        the prefix check of the thinking it sends back (``semantics_binding``)."""
        found = sem.predict(self.semantic_request(), self.betas, self.live)
        if found.verdict == "rejected":
            return found
        bound = binding.predict(self.built_request(), self.semantic_request(), self.betas)
        if bound.error is not None:
            return sem.Prediction("rejected", error_code=bound.error, reasons=[bound.reason],
                                  error_message=bound.message)
        if bound.dropped:
            live = any(int(p.split(".")[1]) >= self.live.from_message for p in bound.dropped)
            found.verdict = worst([found.verdict, LIVE_REASONING_LOST if live else SETTLED])
            found.dropped_thinking = list(bound.dropped)
            found.reasons.append(bound.reason)
        return found

    def config_label(self) -> str:
        """Returns a short one-line description of the strategy configuration, for tables."""
        setting = binding.behavior(self.request)
        bound = f"block_binding {setting}" if setting else ""
        if self.request.get("compaction") is not None:
            return "compaction summarize (on demand)" + (" + context_management" if sem.edits_of(self.request) else "") + (
                f" + {bound}" if bound else "")
        return " + ".join([*(_edit_label(e) for e in sem.edits_of(self.request)), *([bound] if bound else [])]) or (
            "(no edits)")


def _edit_label(edit: dict[str, Any]) -> str:
    """Returns a compact label for one edit: ``clear_tool_uses(keep 2, tokens>3000)``."""
    parts = []
    trigger = edit.get("trigger")
    if trigger:
        parts.append(f"{'uses' if trigger['type'] == 'tool_uses' else 'tokens'}>{trigger['value']}")
    keep = edit.get("keep")
    if keep is not None:
        value = "all" if keep == "all" or keep.get("type") == "all" else keep["value"]
        parts.append(f"keep {value}")
    if edit.get("clear_at_least"):
        parts.append(f"at_least {edit['clear_at_least']['value']}")
    if edit.get("exclude_tools"):
        parts.append("exclude " + ",".join(edit["exclude_tools"]))
    if edit.get("clear_tool_inputs"):
        value = edit["clear_tool_inputs"]
        parts.append("inputs " + ("all" if value is True else ",".join(value)))
    if edit.get("pause_after_compaction"):
        parts.append("pause")
    return f"{edit['type'].rsplit('_', 1)[0]}({', '.join(parts)})"


def _check_padding(raw: dict[str, Any], where: tuple, locator: Locator) -> None:
    history = raw["history"]
    for index, pad in enumerate(raw.get("padding") or []):
        field = where + ("padding", index)
        try:
            content = history[pad["message"]]["content"]
            block = content[pad["block"]] if isinstance(content, list) else None
        except IndexError:
            block = None
        if not isinstance(block, dict):
            raise locator.error(field, "points at no content block of the history")
        kind = block.get("type")
        if kind not in ("tool_result", "thinking", "text", "tool_use"):
            raise locator.error(field, f"cannot pad {article(str(kind))} block")
        if kind == "tool_use" and not isinstance(block.get("input", {}).get(pad.get("field")), str):
            raise locator.error(field, "a tool_use pad needs `field` naming a string of its input")
        if raw.get("script") is not None and history[pad["message"]].get("role") != "user":
            raise locator.error(field, "with `script` the server writes the assistant turns; pad only user "
                                       "messages and tool results")


def _check_thinking_needs_script(raw: dict[str, Any], where: tuple, locator: Locator) -> None:
    if raw.get("script") is not None:
        return
    for m_index, message in enumerate(raw["history"]):
        for b_index, block in enumerate(sem.content_blocks(message)):
            if block.get("type") in sem.THINKING_TYPES:
                raise locator.error(where + ("history", m_index, "content", b_index),
                                    "thinking cannot be written by hand (the API checks its signature); "
                                    "add `script` so record builds this history live")


def _check_client_edit(raw: dict[str, Any], where: tuple, locator: Locator) -> None:
    edit = raw.get("client_edit")
    if edit is None:
        return
    field = where + ("client_edit",)
    if raw.get("script") is None:
        raise locator.error(field, "a client edit changes a history built live: add `script`")
    if "message" not in edit:
        return
    history = raw["history"]
    if edit["message"] >= len(history) or history[edit["message"]].get("role") != "user":
        raise locator.error(field + ("message",), "points at no user message of the history (the server "
                                                  "writes the assistant turns)")
    blocks = sem.content_blocks(history[edit["message"]])
    if edit["block"] >= len(blocks) or blocks[edit["block"]].get("type") not in ("text", "tool_result"):
        raise locator.error(field + ("block",), "points at no text or tool_result block of that message")


def _check_expected_error(probe: Probe, where: tuple, locator: Locator) -> None:
    error = probe.expected_error
    if error is None:
        return
    field = where + ("predict", "error")
    pattern = error.get("message")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise locator.error(field + ("message",), f"not a regular expression: {exc}") from None
    documented = probe.documented()
    if documented.verdict != "rejected":
        raise locator.error(field, f"the documented semantics do not reject this request ({documented.verdict})")
    named = error.get("code") or error["type"]
    if named != documented.error_code:
        raise locator.error(field + ("code" if error.get("code") else "type",),
                            f"the documented semantics give error {documented.error_code!r}, not {named!r}")
    if pattern is not None and documented.error_message is not None and not re.search(pattern, documented.error_message):
        raise locator.error(field + ("message",), f"does not match the documented message {documented.error_message!r}")


def _check_live(probe: Probe, where: tuple, locator: Locator) -> None:
    messages = probe.history
    span = probe.live
    field = where + ("live",)
    if span.from_message > len(messages):
        raise locator.error(field + ("from_message",), f"beyond the history ({len(messages)} messages)")
    if span.from_message < len(messages):
        opener = messages[span.from_message]
        if opener["role"] != "user" or sem.is_tool_result_message(opener):
            raise locator.error(field + ("from_message",), "a live span starts at a user request, not here")
    settled = sem.last_settled_index(messages)
    if settled > span.from_message:
        raise locator.error(field + ("from_message",),
                            "a settled assistant answer follows it; the task in flight starts later")
    if any(m["role"] == "user" and not sem.is_tool_result_message(m)
           for m in messages[settled:span.from_message]):
        raise locator.error(field + ("from_message",), "an earlier user request is still unanswered")
    tools = [s.tool_use_id for s in sem.tool_steps(messages) if s.message >= span.from_message]
    if list(span.tool_use_ids) != tools:
        raise locator.error(field + ("tool_use_ids",), f"the live span's tool uses are {tools}")
    turns = [t.number for t in sem.assistant_turns(messages) if t.messages[0] >= span.from_message and t.has_thinking]
    if list(span.thinking_turns) != turns:
        raise locator.error(field + ("thinking_turns",), f"the live span's thinking turns are {turns}")


def _check_prediction(probe: Probe, where: tuple, locator: Locator) -> None:
    documented = probe.documented()
    declared = probe.predict
    expected = {key: getattr(documented, key) for key in sem.OUTCOME_FIELDS}
    for key, value in declared.items():
        if key in expected and expected[key] != value:
            reason = "; ".join(documented.reasons)
            raise locator.error(where + ("predict", key),
                                f"the documented semantics give {expected[key]!r}, not {value!r}"
                                + (f" ({reason})" if reason else ""))


def build(raw: dict[str, Any], path: Path, where: tuple, locator: Locator) -> Probe:
    """Returns the probe checked against the documented semantics; raises a located ``SpecError``."""
    _check_padding(raw, where, locator)
    _check_thinking_needs_script(raw, where, locator)
    _check_client_edit(raw, where, locator)
    live = raw["live"]
    probe = Probe(raw["id"], raw["description"], raw["request"], raw["history"], tuple(raw.get("padding") or ()),
                  sem.Span(live["from_message"], tuple(live["tool_use_ids"]), tuple(live["thinking_turns"])),
                  raw["predict"], raw.get("count_tokens", True), str(path), locator.line(where) or 0,
                  raw.get("script"), raw.get("client_edit"))
    _check_live(probe, where, locator)
    _check_prediction(probe, where, locator)
    _check_expected_error(probe, where, locator)
    return probe
