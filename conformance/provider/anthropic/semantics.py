"""The documented semantics of server-side context management, as pure functions over API-shaped data.

Everything here reads plain Messages API dictionaries (a request's keyword arguments) and returns
plain dataclasses: which tool uses, tool inputs and thinking turns each edit clears, whether
compaction fires, which requests are rejected, and the verdict those rules predict for a declared
live span. Token sizes are estimated with ``estimate_text`` (four characters per token); the
analyzer compares them with reported counts within a tolerance, never exactly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

CONTEXT_BETA = "context-management-2025-06-27"
COMPACT_BETA = "compact-2026-01-12"
ON_DEMAND_BETA = "compact-2026-09-04"

CLEAR_TOOL_USES = "clear_tool_uses_20250919"
CLEAR_THINKING = "clear_thinking_20251015"
COMPACT = "compact_20260112"
EDIT_TYPES = (CLEAR_TOOL_USES, CLEAR_THINKING, COMPACT)
BETA_FOR_EDIT = {CLEAR_TOOL_USES: CONTEXT_BETA, CLEAR_THINKING: CONTEXT_BETA, COMPACT: COMPACT_BETA}

DEFAULT_TOOL_TRIGGER = {"type": "input_tokens", "value": 100_000}
DEFAULT_TOOL_KEEP = 3
DEFAULT_COMPACT_TRIGGER = 150_000
MIN_COMPACT_TRIGGER = 50_000
THINKING_TYPES = ("thinking", "redacted_thinking")
REASONING_TEXT = {"thinking": "thinking", "redacted_thinking": "data"}  # block type -> the field of its reasoning

VERDICTS = ("settled-only", "reached-live-task", "no-edit", "rejected", "inconsistent")

# The readings the answers rest on where the documentation does not spell them out; every output
# that says whether a configuration reaches a task in flight states the reading beside the answer.
TURN_READING = ("a turn runs from one user message that carries text to the next, so a tool result sent "
                "with text beside it starts a new turn and a task of several steps spans several turns")
REQUEST_READING = ("the request that opened a task is part of it: a summary that folds that request reaches "
                   "the task, even before its first step")
READINGS = {CLEAR_THINKING: TURN_READING, COMPACT: REQUEST_READING, "compaction": REQUEST_READING}

_FILLER_WORDS = ("cat", "dog", "sun", "sky", "red", "map", "box", "cup",
                 "pen", "oak", "ice", "fog", "bay", "elm", "fig", "jar")


def estimate_text(text: str) -> int:
    """Returns the estimated token count of ``text``: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


@lru_cache(maxsize=512)
def filler(tokens: int, seed: int = 0) -> str:
    """Returns deterministic filler of three-letter words that estimates to exactly ``tokens`` tokens."""
    return " ".join(_FILLER_WORDS[(i * 7 + seed) % len(_FILLER_WORDS)] for i in range(tokens))


def content_blocks(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Returns a message's content as a list of blocks (a string becomes one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def tool_result_text(block: Mapping[str, Any]) -> str:
    """Returns the text of a tool_result block's content, string or list of text blocks."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, Mapping))


def block_tokens(block: Mapping[str, Any]) -> int:
    """Returns the estimated token count of one content block."""
    kind = block.get("type")
    if kind == "text":
        return estimate_text(block.get("text", ""))
    if kind == "thinking":
        return estimate_text(block.get("thinking", ""))
    if kind == "redacted_thinking":
        return estimate_text(block.get("data", ""))
    if kind == "tool_use":
        return estimate_text(block.get("name", "")) + input_tokens(block)
    if kind == "tool_result":
        return estimate_text(tool_result_text(block))
    if kind == "compaction":
        return estimate_text(block.get("content") or "")
    return estimate_text(json.dumps(block, sort_keys=True))


def input_tokens(tool_use: Mapping[str, Any]) -> int:
    """Returns the estimated token count of a tool_use block's ``input``."""
    return estimate_text(json.dumps(tool_use.get("input", {}), sort_keys=True, separators=(",", ":")))


def request_tokens(request: Mapping[str, Any]) -> int:
    """Returns the estimated input tokens of a request: messages, system prompt and tool definitions."""
    total = 0
    for message in request.get("messages", []):
        total += 3 + sum(block_tokens(b) for b in content_blocks(message))
    system = request.get("system")
    if system:
        total += estimate_text(system if isinstance(system, str) else json.dumps(system))
    if request.get("tools"):
        total += estimate_text(json.dumps(request["tools"], sort_keys=True))
    return total


@dataclass(frozen=True)
class ToolStep:
    """One tool_use block and its result, located by message and block index."""

    tool_use_id: str
    name: str
    message: int
    result_message: int | None
    result_tokens: int
    input_tokens: int


@dataclass(frozen=True)
class Turn:
    """One assistant turn (a tool-use loop is one turn), numbered from 1 in request order."""

    number: int
    messages: tuple[int, ...]
    thinking_tokens: int
    thinking_blocks: int = 0  # its thinking and redacted_thinking blocks
    unsized: bool = False  # one of its thinking blocks has empty text: the signature carries reasoning of unknown size

    @property
    def has_thinking(self) -> bool:
        """Returns whether any message of the turn carries a thinking or redacted_thinking block (one
        with empty text too: the signature carries the reasoning)."""
        return self.thinking_blocks > 0


def is_tool_result_message(message: Mapping[str, Any]) -> bool:
    """Returns whether a user message carries tool results and nothing that opens a new request."""
    blocks = content_blocks(message)
    return bool(blocks) and all(b.get("type") == "tool_result" for b in blocks)


def tool_steps(messages: Sequence[Mapping[str, Any]]) -> list[ToolStep]:
    """Returns every tool_use of the history in order, paired with its result in the next message."""
    steps: list[ToolStep] = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        results: dict[str, int] = {}
        if index + 1 < len(messages) and messages[index + 1].get("role") == "user":
            for block in content_blocks(messages[index + 1]):
                if block.get("type") == "tool_result":
                    results[block.get("tool_use_id", "")] = estimate_text(tool_result_text(block))
        for block in content_blocks(message):
            if block.get("type") != "tool_use":
                continue
            found = block.get("id", "") in results
            steps.append(ToolStep(block.get("id", ""), block.get("name", ""), index,
                                  index + 1 if found else None, results.get(block.get("id", ""), 0),
                                  input_tokens(block)))
    return steps


def assistant_turns(messages: Sequence[Mapping[str, Any]]) -> list[Turn]:
    """Returns the assistant turns: assistant messages joined across tool-result user messages."""
    groups: list[list[int]] = []
    open_turn = False
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            if not open_turn:
                groups.append([])
                open_turn = True
            groups[-1].append(index)
        elif message.get("role") == "user" and not is_tool_result_message(message):
            open_turn = False
    turns = []
    for number, group in enumerate(groups, start=1):
        thinking = [b for i in group for b in content_blocks(messages[i]) if b.get("type") in THINKING_TYPES]
        unsized = any(b.get("type") == "thinking" and not b.get("thinking") for b in thinking)
        turns.append(Turn(number, tuple(group), sum(map(block_tokens, thinking)), len(thinking), unsized))
    return turns


SERVER_CALL_TYPES = ("server_tool_use", "mcp_tool_use")


def open_tool_call(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Returns whether the history ends in an assistant message with a tool call that has no result.

    A client ``tool_use`` there has no result yet by construction; a ``server_tool_use`` or
    ``mcp_tool_use`` is open when no block of the same message answers its id (a paused turn).
    """
    if not messages or messages[-1].get("role") != "assistant":
        return False
    blocks = content_blocks(messages[-1])
    answered = {b.get("tool_use_id") for b in blocks}
    return any(b.get("type") == "tool_use" or (b.get("type") in SERVER_CALL_TYPES and b.get("id") not in answered)
               for b in blocks)


def last_settled_index(messages: Sequence[Mapping[str, Any]]) -> int:
    """Returns the index just after the latest assistant turn with text and no tool_use (0 if none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "assistant":
            continue
        types = {b.get("type") for b in content_blocks(message)}
        if "tool_use" not in types and "text" in types:
            return index + 1
    return 0


def thinking_enabled(request: Mapping[str, Any]) -> bool:
    """Returns whether the request turns thinking on (``enabled`` or ``adaptive``)."""
    thinking = request.get("thinking") or {}
    return thinking.get("type") in ("enabled", "adaptive")


def edits_of(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Returns the request's ``context_management.edits`` as a list (empty when absent)."""
    return list((request.get("context_management") or {}).get("edits") or [])


def readings(request: Mapping[str, Any]) -> list[str]:
    """Returns the readings (``READINGS``) the verdict on a request with these edits rests on, once each."""
    kinds = [e.get("type") for e in edits_of(request)] + (["compaction"] if request.get("compaction") else [])
    return list(dict.fromkeys(READINGS[k] for k in kinds if k in READINGS))


@dataclass(frozen=True)
class ToolPlan:
    """What one ``clear_tool_uses_20250919`` edit clears under the documented rules."""

    applies: bool
    reason: str
    cleared: tuple[ToolStep, ...] = ()
    cleared_inputs: tuple[str, ...] = ()
    tokens: int = 0


@dataclass(frozen=True)
class ThinkingPlan:
    """What one ``clear_thinking_20251015`` edit clears under the documented rules."""

    applies: bool
    reason: str
    cleared: tuple[Turn, ...] = ()
    tokens: int = 0


def inputs_cleared_for(edit: Mapping[str, Any], steps: Sequence[ToolStep]) -> tuple[str, ...]:
    """Returns the ids among ``steps`` whose tool inputs ``clear_tool_inputs`` clears too."""
    setting = edit.get("clear_tool_inputs", False)
    if setting is True:
        return tuple(s.tool_use_id for s in steps)
    if isinstance(setting, list):
        return tuple(s.tool_use_id for s in steps if s.name in setting)
    return ()


def trigger_fires(trigger: Mapping[str, Any], prompt_tokens: int, tool_uses: int) -> bool:
    """Returns whether a clearing trigger is exceeded (``input_tokens`` or ``tool_uses``)."""
    measured = tool_uses if trigger.get("type") == "tool_uses" else prompt_tokens
    return measured > int(trigger.get("value", 0))


def plan_clear_tool_uses(edit: Mapping[str, Any], request: Mapping[str, Any]) -> ToolPlan:
    """Returns the documented effect of a tool-clearing edit: oldest first, keep, exclude, clear_at_least."""
    messages = request.get("messages", [])
    steps = tool_steps(messages)
    trigger = edit.get("trigger") or DEFAULT_TOOL_TRIGGER
    if not trigger_fires(trigger, request_tokens(request), len(steps)):
        return ToolPlan(False, f"trigger {trigger['type']} > {trigger['value']} not reached")
    keep = int((edit.get("keep") or {}).get("value", DEFAULT_TOOL_KEEP))
    excluded = set(edit.get("exclude_tools") or [])
    candidates = [s for s in steps if s.result_message is not None and s.name not in excluded]
    cleared = tuple(candidates[: max(0, len(candidates) - keep)])
    if not cleared:
        return ToolPlan(False, f"nothing older than the {keep} kept tool uses")
    inputs = inputs_cleared_for(edit, cleared)
    tokens = sum(s.result_tokens for s in cleared) + sum(s.input_tokens for s in cleared
                                                          if s.tool_use_id in inputs)
    least = (edit.get("clear_at_least") or {}).get("value")
    if least is not None and tokens < int(least):
        return ToolPlan(False, f"clearable {tokens} tokens below clear_at_least {least}")
    return ToolPlan(True, "cleared", cleared, inputs, tokens)


def thinking_keep(edit: Mapping[str, Any]) -> int | None:
    """Returns the number of thinking turns ``keep`` preserves, or None for all."""
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or (isinstance(keep, Mapping) and keep.get("type") == "all"):
        return None
    return int(keep["value"])


def plan_clear_thinking(edit: Mapping[str, Any], request: Mapping[str, Any]) -> ThinkingPlan:
    """Returns the documented effect of a thinking-clearing edit: keep the N latest turns with thinking."""
    keep = thinking_keep(edit)
    if keep is None:
        return ThinkingPlan(False, "keep all thinking turns")
    turns = [t for t in assistant_turns(request.get("messages", [])) if t.has_thinking]
    cleared = tuple(turns[: max(0, len(turns) - keep)])
    if not cleared:
        return ThinkingPlan(False, f"no thinking turn older than the {keep} kept")
    return ThinkingPlan(True, "cleared", cleared, sum(t.thinking_tokens for t in cleared))


def compact_trigger(edit: Mapping[str, Any]) -> int:
    """Returns the input-token threshold of a ``compact_20260112`` edit."""
    return int((edit.get("trigger") or {}).get("value", DEFAULT_COMPACT_TRIGGER))


def rejection(request: Mapping[str, Any], betas: Sequence[str]) -> tuple[str, str] | None:
    """Returns ``(error_code, reason)`` when the documented rules reject the request, else None."""
    edits = edits_of(request)
    if request.get("compaction") is not None:
        if request.get("context_management") is not None:
            return "invalid_request_error", "compaction cannot be combined with context_management"
        if ON_DEMAND_BETA not in betas:
            return "invalid_request_error", f"compaction needs beta {ON_DEMAND_BETA}"
        if open_tool_call(request.get("messages", [])):
            return "compaction_incomplete_turn", "the last assistant turn has a tool call with no result"
    for index, edit in enumerate(edits):
        kind = edit.get("type")
        beta = BETA_FOR_EDIT.get(str(kind))
        if beta is None or beta not in betas:
            return "invalid_request_error", f"{kind} needs beta {beta}"
        if kind == CLEAR_THINKING:
            if index != 0:
                return "invalid_request_error", "clear_thinking_20251015 must be listed first"
            if not thinking_enabled(request):
                return "invalid_request_error", "clear_thinking_20251015 requires thinking"
            keep = edit.get("keep")
            if isinstance(keep, Mapping) and keep.get("type") == "thinking_turns" and keep.get("value", 0) < 1:
                return "invalid_request_error", "thinking_turns value must be > 0"
        if kind == COMPACT and compact_trigger(edit) < MIN_COMPACT_TRIGGER:
            return "invalid_request_error", f"compact trigger below {MIN_COMPACT_TRIGGER}"
    return None


@dataclass(frozen=True)
class Span:
    """The declared live span: first live message index, its tool_use ids and thinking turn numbers."""

    from_message: int
    tool_use_ids: tuple[str, ...] = ()
    thinking_turns: tuple[int, ...] = ()


@dataclass
class Outcome:
    """What one exchange did to the prompt: the verdict and the items cleared, summarised or refused.

    ``live_reached`` names which parts of the task in flight went (``LIVE_PARTS``, in that order), so
    "its request was summarised" reads apart from "its tool results were cleared". A probe's
    ``predict`` mapping uses the same field names (``OUTCOME_FIELDS``); the documented
    ``Prediction`` and the analyzer's finding both extend this.
    """

    verdict: str
    cleared_tool_use_ids: list[str] = field(default_factory=list)
    cleared_tool_inputs: list[str] = field(default_factory=list)
    cleared_thinking_turns: list[int] = field(default_factory=list)
    summarized: bool = False
    error_code: str | None = None
    live_reached: list[str] = field(default_factory=list)
    dropped_thinking: list[str] = field(default_factory=list)


OUTCOME_FIELDS = tuple(f.name for f in fields(Outcome))


@dataclass
class Prediction(Outcome):
    """The outcome the documented rules give for one request and its declared live span, with the reasons
    (and, for a rejection whose text the documentation gives, that text)."""

    reasons: list[str] = field(default_factory=list)
    error_message: str | None = None


def compaction_fires(request: Mapping[str, Any]) -> bool:
    """Returns whether a documented compaction (threshold edit or on-demand parameter) happens."""
    if request.get("compaction") is not None:
        return True
    tokens = request_tokens(request)
    return any(e.get("type") == COMPACT and tokens >= compact_trigger(e) for e in edits_of(request))


LIVE_PARTS = ("request", "tool_calls", "tool_results", "tool_inputs", "thinking")


@dataclass(frozen=True)
class LiveReach:
    """What an exchange removed of the task in flight: its parts (``LIVE_PARTS``) and the items named.

    ``summarized`` says the parts went into a compaction summary; otherwise they were cleared.
    ``request_messages`` are the task's user messages that carry more than tool results (the request
    that opened it first).
    """

    parts: tuple[str, ...] = ()
    summarized: bool = False
    request_messages: tuple[int, ...] = ()
    tool_use_ids: tuple[str, ...] = ()
    tool_inputs: tuple[str, ...] = ()
    thinking_turns: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.parts)

    def words(self) -> list[str]:
        """Returns one phrase per part removed, naming its messages, tool use ids or turns."""
        verb = "summarised" if self.summarized else "cleared"
        out = []
        if self.request_messages:
            where = ", ".join(map(str, self.request_messages))
            out.append(f"summarised the request of the task in flight (message {where})")
        ids = ",".join(self.tool_use_ids)
        if "tool_calls" in self.parts:
            out.append(f"summarised the tool calls {ids} and their results")
        elif "tool_results" in self.parts:
            out.append(f"cleared the tool results of {ids}")
        if "tool_inputs" in self.parts:
            out.append(f"cleared the tool inputs of {','.join(self.tool_inputs)}")
        if "thinking" in self.parts:
            out.append(f"{verb} the thinking of turn {','.join(map(str, self.thinking_turns))}")
        return out


def request_messages(span: Span, messages: Sequence[Mapping[str, Any]]) -> tuple[int, ...]:
    """Returns the indices of the task in flight's user messages that carry more than tool results."""
    return tuple(i for i in range(span.from_message, len(messages))
                 if messages[i].get("role") == "user" and not is_tool_result_message(messages[i]))


def live_reach(span: Span, tool_ids: Sequence[str], turns: Sequence[int], summarized: bool,
               messages: Sequence[Mapping[str, Any]], inputs: Sequence[str] = ()) -> LiveReach:
    """Returns what of the live span was removed: cleared (``tool_ids``, ``inputs``, ``turns``) or, when
    ``summarized``, everything of it in ``messages``, its request included: a compaction folds the whole
    prompt, and a task whose request was summarised is answered from the summary, not the question asked.
    """
    requests: tuple[int, ...] = ()
    if summarized:
        requests = request_messages(span, messages)
        tool_ids = [s.tool_use_id for s in tool_steps(messages)]
        turns = [t.number for t in assistant_turns(messages) if t.has_thinking]
    live_tools = tuple(i for i in tool_ids if i in span.tool_use_ids)
    live_inputs = tuple(i for i in inputs if i in span.tool_use_ids and not summarized)
    live_turns = tuple(n for n in turns if n in span.thinking_turns)
    answered = {s.tool_use_id for s in tool_steps(messages) if s.result_message is not None}
    parts = [name for name, present in (("request", requests), ("tool_calls", summarized and live_tools),
                                         ("tool_results", answered.intersection(live_tools)),
                                         ("tool_inputs", live_inputs), ("thinking", live_turns)) if present]
    return LiveReach(tuple(parts), summarized, requests, live_tools, live_inputs, live_turns)


def reached(span: Span, tool_ids: Sequence[str], turns: Sequence[int], summarized: bool,
            messages: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[int]]:
    """Returns the live span's tool use ids and thinking turns that were removed, in history order.

    Removed means cleared (``tool_ids``, ``turns``) or, when ``summarized``, anywhere in ``messages``:
    a compaction summarises the whole prompt before it.
    """
    found = live_reach(span, tool_ids, turns, summarized, messages)
    return list(found.tool_use_ids), list(found.thinking_turns)


def verdict_for(span: Span, tool_ids: Sequence[str], turns: Sequence[int], summarized: bool,
                messages: Sequence[Mapping[str, Any]]) -> str:
    """Returns the verdict for the items an edit removed, measured against the live span.

    Any part of the task in flight counts, its request too: a summary that folds only the request of a
    task with no step yet has reached it.
    """
    if live_reach(span, tool_ids, turns, summarized, messages):
        return "reached-live-task"
    if tool_ids or turns or summarized:
        return "settled-only"
    return "no-edit"


def predict(request: Mapping[str, Any], betas: Sequence[str], span: Span) -> Prediction:
    """Returns the documented prediction for a request sent with ``betas`` and its declared live span."""
    rejected = rejection(request, betas)
    if rejected:
        return Prediction("rejected", error_code=rejected[0], reasons=[rejected[1]])
    tools: list[str] = []
    inputs: list[str] = []
    turns: list[int] = []
    reasons: list[str] = []
    for edit in edits_of(request):
        if edit.get("type") == CLEAR_TOOL_USES:
            plan = plan_clear_tool_uses(edit, request)
            tools += [s.tool_use_id for s in plan.cleared]
            inputs += list(plan.cleared_inputs)
            reasons.append(f"{CLEAR_TOOL_USES}: {plan.reason}")
        elif edit.get("type") == CLEAR_THINKING:
            thinking = plan_clear_thinking(edit, request)
            turns += [t.number for t in thinking.cleared]
            reasons.append(f"{CLEAR_THINKING}: {thinking.reason}")
    summarized = compaction_fires(request)
    messages = request.get("messages", [])
    verdict = verdict_for(span, tools, turns, summarized, messages)
    parts = list(live_reach(span, tools, turns, summarized, messages, inputs).parts)
    return Prediction(verdict, tools, inputs, turns, summarized, None, parts, reasons=reasons)


def tolerance(total: int, items: int) -> int:
    """Returns how far a reported token count may sit from the estimate and still match."""
    return int(0.03 * total) + 24 * (items + 1)
