"""Judge recorded Messages API traffic of any project: did server-side context management reach
into the task in flight of the request it answered, did the service drop the task's reasoning, and
did it reject the request for a broken history?

The task in flight is found in each request's own history by ``conformance.engine.transcript.find_live_start``
(the one definition the scenarios use). What the server did is read from what it reported:
``context_management.applied_edits`` (matched to tool results and thinking turns by ``judge_edits``),
compaction blocks and ``usage.iterations``, a compaction block the request carries (the server
drops what lies before it; followed to the interaction that produced it), and ``count_tokens``
totals. A summary that folds the request of the task in flight reaches into it, steps or not.
Under preserved thinking the answer's ``input_transformations`` list the thinking blocks the
service dropped or let through with a failed check (``judge_thinking``), judged whether or not the
request uses context management; so is a rejection whose message names a rule of the history the
request broke (``judge_rejections``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...engine.transcript import find_live_start, settles_at
from ..._json import is_mapping as _is_mapping
from ..analyze.earlier import Earlier, digest, stand_in
from ..analyze.request_judge import RequestJudge
from ..base import Watch
from ..analyze.model import BROKEN_HISTORY, CANNOT_TELL, NO_EDIT, NOT_JUDGED, REACHED, REJECTED, SETTLED, Judgement, failed, start, worst
from ..recordings import Interaction
from . import judge_rejections, judge_thinking
from . import semantics as sem
from .judge_edits import Finding, clear_thinking, clear_tool_uses, folded, live_tools, live_turns, loose

PROVIDER = "anthropic"
APPLIED_TYPES = (sem.CLEAR_TOOL_USES, sem.CLEAR_THINKING)
# The response content blocks the judge knows; any other is named, since it might be what it looks for.
KNOWN_BLOCKS = frozenset({"text", "tool_use", "compaction", "container_upload", "mcp_tool_result", *sem.THINKING_TYPES,
                          *sem.SERVER_CALL_TYPES})


def _known_block(kind: str) -> bool:
    return kind in KNOWN_BLOCKS or kind.endswith("_tool_result")


def is_count_tokens(item: Interaction) -> bool:
    """Returns whether the interaction is a ``count_tokens`` call (``count-tokens:rawPredict`` on Vertex AI)."""
    return item.endpoint.rstrip("/").endswith(("/count_tokens", "/count-tokens:rawPredict"))


def is_count_tokens_answer(response: Any) -> bool:
    """Returns whether the response has the shape of a ``count_tokens`` answer (``{"input_tokens": N,
    ...}``: a top-level integer count, no content and no message type), which tells a token count
    whose URL was redacted or not recorded."""
    return (_is_mapping(response) and isinstance(response.get("input_tokens"), int) and "content" not in response
            and response.get("type") != "message")


def _mapping(value: Any) -> Mapping[str, Any]:
    """Returns ``value`` when it is a mapping, else an empty one."""
    return value if _is_mapping(value) else {}


def _blocks(message: Any) -> list[dict[str, Any]]:
    return [b for b in sem.content_blocks(message) if isinstance(b, dict)] if _is_mapping(message) else []


def compaction_positions(messages: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """Returns ``(message, block)`` of every compaction block the request carries, in order."""
    found = []
    for i, message in enumerate(messages):
        # the content read as it is, without copying each message
        content = message.get("content") if _is_mapping(message) else None
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            found += [(i, j) for j, b in enumerate(_blocks(message)) if b.get("type") == "compaction"]
            continue
        found += [(i, j) for j, block in enumerate(content) if _is_mapping(block) and block.get("type") == "compaction"]
    return found


def _positions(request: Mapping[str, Any], resent: Any = None) -> list[tuple[int, int]]:
    """Returns ``compaction_positions`` of the request's messages (none when it has no messages list).
    ``resent`` (``Earlier.resent``: the guard's word that the first messages are the previous request's
    of the conversation, with its notes) spares walking the resent ones again: their positions are
    the ones noted for that request."""
    messages = request.get("messages")
    if not isinstance(messages, list):
        return []
    if resent is None or resent.messages is not messages:
        return compaction_positions(messages)
    noted = resent.notes.get(POSITIONS)
    count, known = noted if noted is not None and noted[0] == resent.count else (0, [])
    found = known + [(i + count, j) for i, j in compaction_positions(messages[count:])]
    resent.notes[POSITIONS] = (len(messages), found)
    return found


POSITIONS = "anthropic.compaction_positions"  # the note of a conversation's compaction positions
LIVE = "anthropic.live_start"  # the note of what a conversation's settled turns are


def _live_start(messages: list[Any], resent: Any = None, samples: bool = True) -> int:
    """Returns ``find_live_start(messages)``, where in a request that ``samples`` (not an on-demand
    compaction nor a token count, which may end on a finished turn) a last assistant message never settles: the model
    continues it (``_continued``); with ``resent`` (see ``_positions``), looking only at
    the new messages and the resent ones whose next message the new ones may be.

    Whether message ``i`` settles depends on it and the first message after it that is not a system
    message, so for every ``i`` before the last such message of the resent ones (``last``) it is as
    it was in the previous request: the note keeps ``last`` and the live start those messages give
    (``before``: one past the latest that settles, else 0), and only the messages from ``last`` on
    are looked at again."""
    if resent is None or resent.messages is not messages:
        live = find_live_start(messages)
        last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") != "system"), -1)
        if samples and live == last + 1 and _continued(messages, last):
            return next((i + 1 for i in range(last - 1, -1, -1) if settles_at(messages, i)), 0)
        return live
    noted = resent.notes.get(LIVE)
    if noted is not None and noted[0] == resent.count:
        _, last, before = noted
    else:
        last, before = -1, 0  # (nothing known: every message is looked at)
    n = len(messages)
    now = next((i for i in range(n - 1, max(last, 0) - 1, -1) if messages[i].get("role") != "system"), last)
    settled = next((i + 1 for i in range(now - 1, max(last, 0) - 1, -1) if settles_at(messages, i)), before)
    resent.notes[LIVE] = (n, now, settled)
    # (the messages after ``now`` are system messages, which never settle: only ``now`` may settle later)
    return now + 1 if now >= 0 and settles_at(messages, now) and not (samples and _continued(messages, now)) \
        else settled


def _continued(messages: Sequence[Any], last: int) -> bool:
    """Returns whether the request's last message (``last``, system messages aside) is an assistant
    turn the model is asked to continue (after ``pause_turn``, or a prefill): it never settles."""
    return last >= 0 and _is_mapping(messages[last]) and messages[last].get("role") == "assistant"



def uses_context_management(request: Mapping[str, Any], positions: list[tuple[int, int]] | None = None) -> bool:
    """Returns whether a request uses server-side context management: edits, on-demand compaction or
    a carried compaction block (``positions``: the request's ``compaction_positions``, when known)."""
    return (request.get("context_management") is not None or request.get("compaction") is not None
            or bool(_positions(request) if positions is None else positions))


def binding(request: Mapping[str, Any]) -> str | None:
    """Returns the request's ``thinking.block_binding.prefix_mismatch_behavior`` (e.g. ``drop_block``), or None."""
    thinking = request.get("thinking")
    bound = thinking.get("block_binding") if _is_mapping(thinking) else None
    behavior = bound.get("prefix_mismatch_behavior") if _is_mapping(bound) else None
    return str(behavior) if behavior is not None else None


def strategy(request: Mapping[str, Any], count_tokens: bool, positions: list[tuple[int, int]] | None = None,
             managed: bool = True) -> str:
    """Returns a short label of what the request asks for, e.g. ``compact_20260112+carried block`` or
    ``block_binding drop_block`` (``positions``: the request's ``compaction_positions``, when known;
    ``managed``: whether it uses context management, else the label names its thinking binding, or
    preserved thinking when it turns thinking on; empty when it asks for none of these)."""
    parts = [str(e.get("type")) for e in sem.edits_of(request) if _is_mapping(e)]
    if request.get("compaction") is not None:
        parts.append("on-demand compaction")
    if _positions(request) if positions is None else positions:
        parts.append("carried block")
    behavior = binding(request)
    if behavior is not None:
        parts.append(f"block_binding {behavior}")
    thinking = _is_mapping(request.get("thinking")) and sem.thinking_enabled(request)
    label = "+".join(parts) or ("context_management (no edits)" if managed else "preserved thinking" if thinking else "")
    return f"count_tokens {label}".rstrip() if count_tokens else label


SOURCES = "anthropic.compaction"  # the Earlier space: a compaction block's digest -> the interaction that returned it


def _block_key(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    return digest(content if isinstance(content, str) else json.dumps(content, sort_keys=True))


def remember(item: Interaction, earlier: Earlier) -> None:
    """Notes, for a later request carrying it, each compaction block the response returned and the
    history it summarised (the request's messages); and, for a later request whose thinking block
    the service drops, the history of a request that sends or gets back thinking blocks."""
    response = item.response if _is_mapping(item.response) else {}
    if isinstance(item.request, dict) and "thinking" in item.request:
        judge_thinking.remember(item.request, response, earlier)
    content = response.get("content")
    if content is None or isinstance(content, list) and not any(
            isinstance(b, dict) and b.get("type") == "compaction" for b in content):
        return  # (the common cases, told without copying the content: no content, as another API's answer)
    blocks = [b for b in _blocks(response) if b.get("type") == "compaction"]
    if not blocks:
        return
    request = item.request if _is_mapping(item.request) else {}
    messages = request.get("messages")
    value = {"messages": [_without_reasoning(m) for m in messages] if isinstance(messages, list) else []}
    for block in blocks:
        earlier.put(SOURCES, _block_key(block), value)


def _without_reasoning(message: Any) -> Any:
    """Returns the message with the text of its thinking blocks replaced by a stand-in of the same length."""
    content = message.get("content") if _is_mapping(message) else None
    if not isinstance(content, list) or not any(_is_mapping(b) and b.get("type") in REASONING for b in content):
        return message
    blocks = [{**b, REASONING[b["type"]]: stand_in(str(b.get(REASONING[b["type"]]) or ""))}
              if _is_mapping(b) and b.get("type") in REASONING else b for b in content]
    return {**message, "content": blocks}


REASONING = sem.REASONING_TEXT  # block type -> the field of its text


def _source(block: Mapping[str, Any], earlier: Earlier) -> tuple[int, dict[str, Any]] | None:
    """Returns the index and noted request messages of the latest earlier interaction whose response
    returned this block, or None."""
    hit = earlier.lookup(SOURCES, _block_key(block))
    if hit is None:
        return None
    at, found = hit
    return (at, found) if isinstance(found, dict) else None


def carried(messages: Sequence[Mapping[str, Any]], live_start: int, earlier: Earlier,
            positions: list[tuple[int, int]] | None = None) -> Finding | None:
    """Returns what the last compaction block the request carries does to the task in flight, or None
    (``positions``: ``compaction_positions(messages)``, when known)."""
    positions = compaction_positions(messages) if positions is None else positions
    if not positions:
        return None
    k, b = positions[-1]
    producer = _source(_blocks(messages[k])[b], earlier)
    source = producer[0] if producer is not None else None
    where = f"the compaction block at message {k} ({'from interaction ' + str(source) if source is not None else 'not produced in this recording'})"
    before = "message 0" if k == 1 else f"messages 0-{k - 1}" if k else "nothing before it"
    if live_start > k:
        return Finding(SETTLED, [f"{where} stands in for {before}" + (f" and {b} block(s) of message {k}" if b else "")
                                 + ", all settled; the task in flight follows it"])
    if live_start < k or b:
        return Finding(REACHED, [f"{where} lies inside the task in flight; the server drops what precedes it: "
                                 + ", ".join(folded(messages[:k] if live_start < k else messages[: k + 1],
                                                    live_start, live_start))])
    if producer is None:
        return Finding(CANNOT_TELL, [f"the task in flight starts at {where}: whether the summary folds its request "
                                     "cannot be told without the interaction that produced it"])
    history = list(producer[1].get("messages") or [])
    # The summary stands for ``history``; what message k holds besides the block follows it.
    rest = [blk for i, blk in enumerate(_blocks(messages[k])) if i != b]
    full = [*history, *([{**messages[k], "content": rest}] if rest else []), *messages[k + 1:]]
    first = find_live_start(full)
    if first < len(history):
        return Finding(REACHED, [f"{where} summarised interaction {source}'s history, whose task is still in flight: "
                                 + ", ".join(folded(history, first, first))])
    return Finding(SETTLED, [f"{where} summarised interaction {source}'s history, all settled"])


def _iteration_tokens(iteration: Mapping[str, Any]) -> int:
    return (int(iteration.get("input_tokens") or 0) + int(iteration.get("cache_read_input_tokens") or 0)
            + int(iteration.get("cache_creation_input_tokens") or 0))


def iterations_said(passes: Sequence[Mapping[str, Any]], answers: Sequence[Mapping[str, Any]]) -> str:
    """Returns what ``usage.iterations`` shows, in words: a ``compaction`` entry is the cost of the
    summarising call (SDK 2.14 docstring: "NOT the size of the context that was compacted away", which
    can be far larger), the last ``message`` entry the prompt the answer was computed from."""
    said = (f"usage.iterations: the compaction pass cost {_iteration_tokens(passes[0])} input tokens (the "
            "summarising call's own usage, not the size of the context it folded away)")
    return said + (f", then the answer was computed from {_iteration_tokens(answers[-1])}" if answers else "")


def below_trigger(request: Mapping[str, Any], passes: Sequence[Mapping[str, Any]], trigger: int) -> bool:
    """Returns whether a threshold compaction fired below its trigger: the request, as estimated, is
    below it (beyond the estimate's tolerance) and no compaction pass read that many tokens either. A
    pass's tokens are the summarising call's cost and may be far fewer than the context it closed, so
    a small pass never shows the trigger was missed; one that read the trigger's worth shows it was
    reached (a recording whose request text was trimmed keeps its reported passes)."""
    tokens = sem.request_tokens(request)
    if tokens + sem.tolerance(tokens, 0) >= trigger:
        return False
    return not any(_iteration_tokens(p) >= trigger for p in passes)


def compaction(request: Mapping[str, Any], response: Mapping[str, Any], live_start: int,
               positions: list[tuple[int, int]] | None = None) -> Finding | None:
    """Returns what a compaction in the response folded of the task in flight, or None without one
    (``positions``: the request's ``compaction_positions``, when known)."""
    messages = request.get("messages") or []
    blocks = [b for b in _blocks(response) if b.get("type") == "compaction"]
    usage = _mapping(response.get("usage"))
    iterations = [i for i in usage.get("iterations") or [] if _is_mapping(i)]
    passes = [i for i in iterations if i.get("type") == "compaction"]
    if not blocks:
        if passes:
            return Finding("inconsistent", ["usage.iterations has a compaction pass but the response has no "
                                            "compaction block"])
        return None
    evidence = ["compaction block in the response"]
    if passes:
        answers = [i for i in iterations if i.get("type") == "message"]
        evidence[0] += "; " + iterations_said(passes, answers)
    problems = []
    if iterations and not passes:
        problems.append("usage.iterations has no compaction pass")
    edit = next((e for e in sem.edits_of(request) if _is_mapping(e) and e.get("type") == sem.COMPACT), None)
    if edit is not None:
        evidence[0] += f"; trigger {sem.compact_trigger(edit)} input tokens"
    report = response.get("context_management") if _is_mapping(response.get("context_management")) else None
    if report is not None:
        applied = [str(a.get("type")) for a in report.get("applied_edits") or [] if _is_mapping(a)]
        evidence[0] += f"; applied_edits: [{', '.join(applied)}]"
    if request.get("compaction") is not None:
        if response.get("stop_reason") != "compaction":
            problems.append(f"on-demand compaction ended with stop_reason {response.get('stop_reason')!r}")
    elif edit is None:
        problems.append("a compaction block came back but the request asked for no compaction")
    elif below_trigger(request, passes, sem.compact_trigger(edit)):
        tokens = sem.request_tokens(request)
        problems.append(f"compacted a request of about {tokens} input tokens, below the trigger "
                        f"{sem.compact_trigger(edit)} (the compaction pass's own tokens cannot show the context "
                        "reached it: they are the cost of the summarising call)")
    positions = compaction_positions(messages) if positions is None else positions
    first = positions[-1][0] if positions else 0
    parts = folded(messages, first, live_start)
    if parts:
        return Finding(REACHED, [*evidence, "folded into the summary: " + ", ".join(parts), *problems])
    if problems:
        return Finding("inconsistent", [*evidence, *problems])
    return Finding(SETTLED, [*evidence, f"the summary covers messages {first}-{len(messages) - 1}, all settled"])


def count_tokens(request: Mapping[str, Any], response: Mapping[str, Any], live_start: int) -> Finding:
    """Returns what a ``count_tokens`` answer says was cleared: only a total, so items are named by the rule."""
    messages = request.get("messages") or []
    report = _mapping(response.get("context_management"))
    original, now = report.get("original_input_tokens"), response.get("input_tokens")
    if not isinstance(original, int) or not isinstance(now, int):
        return Finding(CANNOT_TELL, ["count_tokens answered without context_management.original_input_tokens"])
    removed = original - now
    line = f"count_tokens: {original} input tokens before the edits, {now} after"
    if removed <= 0:
        return Finding(NO_EDIT, [f"{line}: nothing cleared"])
    tools = {s.tool_use_id for s in sem.tool_steps(messages) if s.result_message is not None} & live_tools(messages, live_start)
    turns = live_turns(messages, live_start)
    if not tools and not turns:
        return Finding(SETTLED, [f"{line}; the task in flight has no tool result or thinking to clear"])
    for edit in sem.edits_of(request):
        if _is_mapping(edit) and edit.get("type") == sem.CLEAR_TOOL_USES:
            plan = sem.plan_clear_tool_uses(edit, request)
            hit = [s.tool_use_id for s in plan.cleared if s.tool_use_id in tools]
            if plan.applies and hit and loose(plan.tokens, removed):
                return Finding(REACHED, [line, f"the documented rule clears {len(plan.cleared)} tool result(s) "
                                               f"({plan.tokens} estimated tokens) including {', '.join(hit)} of the task "
                                               "in flight"])
    return Finding(CANNOT_TELL, [line, "count_tokens reports a total only, and the task in flight holds clearable "
                                       "items: which were cleared cannot be told"])


def _applied(request: Mapping[str, Any], response: Mapping[str, Any], live_start: int) -> list[Finding]:
    report = _mapping(response.get("context_management"))
    found = []
    messages = request.get("messages") or []
    for item in report.get("applied_edits") or []:
        kind = item.get("type") if _is_mapping(item) else None
        if kind not in APPLIED_TYPES:
            continue  # named by ``unmodelled``
        edit = next((e for e in sem.edits_of(request) if _is_mapping(e) and e.get("type") == kind), None)
        if edit is None:
            found.append(Finding("inconsistent", [f"{kind} reported but the request has no such edit"]))
        elif kind == sem.CLEAR_TOOL_USES:
            found.append(clear_tool_uses(edit, int(item.get("cleared_tool_uses") or 0),
                                         int(item.get("cleared_input_tokens") or 0), messages, live_start))
        else:
            found.append(clear_thinking(edit, int(item.get("cleared_thinking_turns") or 0),
                                        int(item.get("cleared_input_tokens") or 0), messages, live_start))
    return found


def unreadable(request: Mapping[str, Any], response: Any) -> str | None:
    """Returns why the interaction cannot be read at all (no messages list, a malformed block), or None."""
    if not isinstance(request.get("messages"), list):
        return "the request has no 'messages' list"
    if not _is_mapping(response):
        return None
    if response.get("type") not in ("message", "error") and "input_tokens" not in response \
            and judge_rejections.carried(response) is None:  # (a gateway's envelope of the service's error)
        return f"the response is not a Messages API message (type {response.get('type', response.get('object'))!r})"
    content = response.get("content")
    if response.get("type") == "message" and not isinstance(content, list):
        return "the response message has no content list"
    for index, block in enumerate(content if isinstance(content, list) else []):
        if not _is_mapping(block) or not isinstance(block.get("type"), str):
            return f"response content[{index}] is not a block with a type"
    return None


def _kind(value: Any) -> str:
    return str(value.get("type")) if _is_mapping(value) else type(value).__name__


def unmodelled(request: Mapping[str, Any] | None, response: Any) -> list[str]:
    """Returns one evidence line per edit, response block or applied-edit type this judge does not model."""
    lines = []
    for index, edit in enumerate(sem.edits_of(request) if request else []):
        if not _is_mapping(edit) or edit.get("type") not in sem.EDIT_TYPES:
            lines.append(f"edit `{_kind(edit)}` at context_management.edits[{index}] is not a type this judge models")
    content = response.get("content") if _is_mapping(response) else None
    for index, block in enumerate(content if isinstance(content, list) else []):
        kind = block.get("type") if _is_mapping(block) else None
        if isinstance(kind, str) and not _known_block(kind):
            lines.append(f"response block `{kind}` at content[{index}] is not a type this judge models")
    report = response.get("context_management") if _is_mapping(response) else None
    for index, item in enumerate((report.get("applied_edits") or []) if _is_mapping(report) else []):
        if not _is_mapping(item) or item.get("type") not in APPLIED_TYPES:
            lines.append(f"applied edit `{_kind(item)}` at context_management.applied_edits[{index}] is not a type "
                         "this judge models")
    return lines


def _iterations(response: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    usage: Mapping[str, Any] = response["usage"] if _is_mapping(response.get("usage")) else {}
    return [i for i in usage.get("iterations") or [] if _is_mapping(i)]


def response_only(response: Mapping[str, Any], count: bool) -> Finding | None:
    """Returns what a response recorded without its request shows, or None when it reports no context management.

    A compaction block means the server summarised the whole input, the request being answered
    included (the reasoning ``compaction`` applies to full recordings); an empty ``applied_edits``
    means nothing was edited; anything else cannot be told without the request.
    """
    report = response.get("context_management") if _is_mapping(response.get("context_management")) else None
    if count or ("input_tokens" in response and "content" not in response):
        original, now = (report or {}).get("original_input_tokens"), response.get("input_tokens")
        if not isinstance(original, int) or not isinstance(now, int):
            return None
        line = f"count_tokens: {original} input tokens before the edits, {now} after"
        if original == now:
            return Finding(NO_EDIT, [f"{line}: nothing cleared"])
        return Finding(CANNOT_TELL, [line, "without the request, which items were cleared, and whether of the task "
                                           "in flight, cannot be told"])
    blocks = _blocks(response)
    positions = [n for n, b in enumerate(blocks) if b.get("type") == "compaction"]
    if positions:
        iterations = _iterations(response)
        passes = [i for i in iterations if i.get("type") == "compaction"]
        answers = [i for i in iterations if i.get("type") == "message"]
        line = f"the response holds a compaction block at content[{positions[0]}]"
        if passes:
            line += "; " + iterations_said(passes, answers)
        if len(positions) > 1 or positions[0] != 0:  # not the documented shape: said, not guessed
            return Finding(CANNOT_TELL, [line, "the compaction block does not open the response (or there are several): "
                                               "what it folded cannot be told without the request"])
        return Finding(REACHED, [line, "a compaction summarises the whole input, so the request this response "
                                       "answers (the task in flight) was folded into the summary"])
    applied = [a for a in (report or {}).get("applied_edits") or [] if _is_mapping(a)
               and a.get("type") in APPLIED_TYPES]
    if report is None:
        return None
    if not applied:
        return Finding(NO_EDIT, ["applied_edits is empty: nothing was edited, and no compaction block came back"])
    lines = []
    for item in applied:
        count_key = "cleared_tool_uses" if item.get("type") == sem.CLEAR_TOOL_USES else "cleared_thinking_turns"
        lines.append(f"{item.get('type')} cleared {int(item.get(count_key) or 0)} item(s), "
                     f"{int(item.get('cleared_input_tokens') or 0)} tokens")
    if all(int(a.get("cleared_tool_uses") or a.get("cleared_thinking_turns") or 0) == 0 for a in applied):
        if any(int(a.get("cleared_input_tokens") or 0) > 0 for a in applied):
            return Finding("inconsistent", [*lines, "an edit reports no items cleared alongside tokens cleared"])
        return Finding(NO_EDIT, lines)
    return Finding(CANNOT_TELL, [*lines, "without the request, which items were cleared, and whether of the task in "
                                         "flight, cannot be told"])


def _judge_response_only(item: Interaction, response: Mapping[str, Any]) -> Judgement:
    found = start(item, PROVIDER)
    found.strategy = "response only"
    where = "no request body was recorded (a response-only file or a request without a body)"
    broken = judge_rejections.rule(response, item.status)
    if broken is not None:
        found.verdict = BROKEN_HISTORY
        found.evidence = [where, *judge_rejections.response_only(broken, response, item.status).evidence]
        return found
    if (item.status or 200) >= 400 or response.get("type") == "error":
        found.verdict = NOT_JUDGED
        found.evidence = [f"{where}; an error answer alone says nothing about context management"]
        return found
    if response.get("type") != "message" and not is_count_tokens_answer(response):
        found.verdict = NOT_JUDGED  # a batch, a file, a model listing: not an answer to judge
        found.evidence = [f"{where}; the response is not a Messages API message "
                          f"(type {response.get('type', response.get('object'))!r})"]
        return found
    problem = unreadable({"messages": []}, response)
    if problem:
        return failed(item, PROVIDER, problem)
    finding = response_only(response, is_count_tokens(item))
    dropped = judge_thinking.response_only(response)
    unknown = unmodelled(None, response)
    if finding is None and dropped is None and "context_management" not in response:
        found.verdict = NOT_JUDGED  # nothing says context management was used, or a thinking block dropped
        found.evidence = [f"{where}; the response reports no context management", *unknown]
        return found
    findings = [f for f in (finding, dropped, Finding(CANNOT_TELL, unknown) if unknown else None) if f is not None]
    found.verdict = worst([f.verdict for f in findings])
    found.evidence = [where, *[line for f in findings for line in f.evidence]]
    return found


@functools.lru_cache(maxsize=1024)
def _claims_url(url: str) -> bool:
    """Returns whether the URL alone makes the traffic the Messages API's (a log names few distinct
    URLs: each is told once)."""
    item = Interaction("", 0, url=url)  # (its endpoint and host are the URL's)
    return item.endpoint.rstrip("/").endswith(("/v1/messages", "/v1/messages/count_tokens")) or "anthropic" in item.host


class AnthropicJudge(RequestJudge):
    """The Messages API judge ``analyze`` finds as ``JUDGE``."""

    provider = PROVIDER
    api = "Messages"
    # A Messages call whose request names none of these words passes the guard unparsed: no
    # ``context_management`` nor ``compaction`` (no answer of it can be a later call's chain), and no
    # thinking (its configuration, its ``block_binding`` or a block: a thinking block it sends or gets
    # back is noted, so that when a later call's block is dropped for its prefix, or the call refused
    # for it, the verdict can name what the client changed since); unless its answer reports a thinking
    # block dropped or let through with a failed check, or is a rejection.
    # (the Messages API on Vertex AI, ``:rawPredict`` and ``:streamRawPredict``, and on Bedrock,
    # ``/invoke``, through the SDK's AnthropicVertex and AnthropicBedrock: the model is in the path)
    watch = Watch(paths=("/messages", "/messages/count_tokens", ":rawPredict", ":streamRawPredict", "/invoke"),
                  plain=("/messages",),
                  words=(b"context_management", b"compaction", b"block_binding", b'"thinking"'),
                  reported=(b"thinking_dropped", b"thinking_mismatch_allowed"), tail_word=b"context_management",
                  unread=("/invoke-with-response-stream",),  # (Bedrock's event stream: AWS framing, not read)
                  ends=(b'"message_stop"',))
    response_only = staticmethod(_judge_response_only)

    def claims(self, item: Interaction) -> bool:
        """Returns whether the interaction is Messages API traffic (endpoint, host or body shape)."""
        if _claims_url(item.url):
            return True
        request = item.request if _is_mapping(item.request) else {}
        response = item.response if _is_mapping(item.response) else {}
        if item.request is None and (response.get("type") == "message" or (
                isinstance(response.get("input_tokens"), int) and "context_management" in response
                and "object" not in response)):
            return True  # a response-only file: a Messages API message or a count_tokens answer
        if item.request is None and response.get("type") == "error" and _is_mapping(response.get("error")):
            return True  # a response-only error body: ``{"type": "error", "error": {"type": ..., "message": ...}}``
        if (item.request is None or isinstance(request.get("messages"), list)) and "error" in response \
                and judge_rejections.carried(response) is not None:
            return True  # that body, carried in a gateway's error envelope
        return isinstance(request.get("messages"), list) and (
            "anthropic_version" in request or response.get("type") == "message"
            or (response.get("type") == "error" and _is_mapping(response.get("error")))  # the service's error body
            or _is_mapping(request.get("context_management")))

    remember = staticmethod(remember)

    def judge_request(self, item: Interaction, request: Mapping[str, Any], earlier: Earlier) -> Judgement:
        """Returns the verdict on one Messages API interaction whose request is a JSON object (see the
        module docstring); ``earlier`` is the index of the interactions before it."""
        positions = _positions(request, getattr(earlier, "resent", None))  # walked once: the history may be long
        managed = uses_context_management(request, positions)
        answer = item.response if _is_mapping(item.response) else None
        listed = judge_thinking.entries(answer) if answer is not None else None
        broken = judge_rejections.rule(answer, item.status) if answer is not None else None
        if not managed and not listed and broken is None:
            found = start(item, PROVIDER, NOT_JUDGED)
            found.evidence.append("no context management in the request" + (f" ({item.error})" if item.error else ""))
            return found
        if item.error is not None:
            return failed(item, PROVIDER, item.error)
        problem = unreadable(request, item.response)
        if problem:
            return failed(item, PROVIDER, problem)
        found = start(item, PROVIDER)
        counting = is_count_tokens(item) or is_count_tokens_answer(answer)  # (a log may redact or omit the URL)
        found.strategy = strategy(request, counting, positions, managed)
        messages = request["messages"]
        found.live_start, found.history = _live_start(messages, getattr(earlier, "resent", None),
                                                     samples=request.get("compaction") is None and not counting), len(messages)
        response = answer
        if response is None:
            found.verdict = CANNOT_TELL
            found.evidence.append("no response was recorded: what the server did cannot be told")
            return found
        if broken is not None:
            finding = judge_rejections.judge(broken, request, response, item.status, found.live_start, earlier)
            found.verdict, found.evidence = finding.verdict, finding.evidence
            return found
        if (item.status or 200) >= 400 or response.get("type") == "error":
            error = _mapping(response.get("error"))
            details = _mapping(error.get("details"))
            found.verdict = REJECTED
            found.evidence.append(f"status {item.status}: {details.get('error_code') or error.get('type') or 'error'}")
            return found
        findings: list[Finding] = []  # (without context management, only what befell the thinking blocks sent back)
        if managed and counting:
            findings = [count_tokens(request, response, found.live_start)]
        elif managed:
            findings = [f for f in (carried(messages, found.live_start, earlier, positions),
                                    compaction(request, response, found.live_start, positions)) if f is not None]
            findings[1:1] = _applied(request, response, found.live_start)
        findings += judge_thinking.judge(request, response, found.live_start, earlier)
        unknown = unmodelled(request, response)
        if unknown:
            findings.append(Finding(CANNOT_TELL, unknown))
        if not findings:
            findings = [Finding(NO_EDIT, ["applied_edits is empty and no compaction block came back"])]
        found.verdict = worst([f.verdict for f in findings])
        found.evidence = [line for f in findings for line in f.evidence]
        return found


JUDGE = AnthropicJudge()
