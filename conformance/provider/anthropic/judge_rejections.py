"""Rejections that name a broken history: which rule the client's history broke, and where.

A 4xx answer of the Messages API says in its error message which message it refuses, e.g.
``messages.48.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01...`` or
``messages.1.content.0: Invalid `signature` in `thinking` block. The block is bound to a different
conversation. ...``; compaction errors carry ``error.details.error_code``. ``rule`` reads which of
the known rules an answer names (the service says its wording may change: a message no rule reads
is left to the caller, never guessed), ``judge`` places the message it points at against the
request's task in flight and, for a thinking block bound to another conversation, names the
client's first change since the previous request that carried it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...engine.transcript import blocks as message_blocks
from ...engine.transcript import describe_block
from ..._json import is_mapping
from ..analyze.earlier import Earlier
from ..analyze.model import BROKEN_HISTORY
from . import judge_thinking
from .judge_edits import Finding


@dataclass(frozen=True)
class Rule:
    """A rule of the history the service enforces: its short name, what it asks of the history, and
    the pattern of the error message that says it was broken (``ids`` names the ids it lists)."""

    name: str
    asks: str
    pattern: re.Pattern[str]


RULES = (
    Rule("orphaned tool_result", "every tool result answers a tool use: a client tool_result one in the message just "
         "before it, a server tool's result a server_tool_use before it",
         re.compile(r"unexpected `tool_use_id` found in `(?P<kind>\w+)` blocks?: (?P<ids>[\w, -]+)")),
    # (the service's two wordings: one points at the assistant message and lists the ids, the other,
    # "Did not find N `tool_result` block(s) at the beginning of this message", with or without the
    # backticks, at the message after it)
    Rule("tool_use without tool_result", "every client tool_use is answered by a tool_result in the next message",
         re.compile(r"`tool_use` ids were found without `tool_result` blocks immediately after: (?P<ids>[\w, -]+)"
                    r"|Did not find \d+ `?tool_result`? block\(s\) at the beginning of this message")),
    Rule("duplicate tool_use id", "every tool_use id appears once in the request",
         re.compile(r"`?tool_use`? ids must be unique")),
    Rule("server tool use without its result", "every server tool use is followed by its result block",
         re.compile(r"tool use with id `(?P<ids>[\w-]+)` was found without a corresponding `\w+` block")),
    Rule("missing source tool of a caller", "a tool use whose `caller` names a server tool use comes with that "
         "tool use in the history", re.compile(r"source tool `(?P<ids>[\w-]+)` not found for tool use block")),
    Rule("thinking block bound to a different conversation", "a thinking block comes back after the same `system`, "
         "`tools` and earlier messages it was produced after, and after the thinking block that preceded it",
         re.compile(r"bound to a different conversation")),
    Rule("thinking block modified", "the thinking blocks of the latest assistant message come back as they were "
         "returned", re.compile(r"blocks in the latest assistant message cannot be modified")),
    Rule("thinking block signature invalid", "a thinking block comes back byte for byte as it was returned",
         re.compile(r"Invalid `signature` in `thinking` block")),
    Rule("final assistant message without its thinking", "with thinking on, the final assistant message starts with "
         "the thinking block it was returned with",
         re.compile(r"must start with a thinking block|the first block must be thinking or redacted_thinking")),
)
# Compaction errors, told by ``error.details.error_code``: what each says the history broke.
COMPACTION = {
    "compaction_block_ambiguous": "a request carries at most one compaction block with content",
    "compaction_block_misplaced": "a compaction block opens the conversation (the messages it summarised are "
                                  "removed) and never sits in a system message",
    "compaction_content_mismatch": "a compaction block comes back as it was returned",
    "compaction_signature_invalid": "a compaction block comes back with the signature it was returned with",
    "compaction_tool_changes_mismatch": "the tool changes a compaction block summarised still match the request",
    "compaction_incomplete_turn": "a compaction request does not end on an assistant turn whose tool call has no "
                                  "result yet",
}
POINTS_AT = re.compile(r"\s*(messages\.(\d+)(?:\.content\.(\d+))?)")
# What else the service's message says: for a block bound to another conversation, what changed before
# it (the end of its message); for a message that lacks its tool results, how many it should begin with.
CHANGED = (
    (re.compile(r"Did not find (\d+) `?tool_result`? block"),
     "the message it points at does not begin with the {0} tool_result block(s) the tool_use blocks before it ask for"),
    (re.compile(r"first at `(messages\.\d+(?:\.content\.\d+)?)`"), "the content before it first differs at {0}"),
    (re.compile(r"The `system` prompt differs"), "`system` differs from when the block was produced"),
    (re.compile(r"`tools` differ"), "`tools` differ from when the block was produced"),
    (re.compile(r"preceded this one when it was created is missing"),
     "the thinking block that preceded it when it was produced is missing"),
)
HEADER = re.compile(r"requires the `([\w-]+)` value in the `anthropic-beta` header")
IDS_SHOWN = 5


@dataclass(frozen=True)
class Broken:
    """A rejection that names a broken rule of the history: the rule, the path it points at (``None``
    when the message names none), the message and block index of that path, and the ids it lists."""

    rule: str
    asks: str
    path: str | None
    message: int | None
    block: int | None
    ids: tuple[str, ...]
    said: tuple[str, ...]


# Where a gateway puts the service's own error body, as a JSON string, in an envelope of its own:
# ``error.metadata.raw`` (a router that names the provider beside it), ``error.message`` (a cloud
# platform's ``{"error": {"code": 400, "message": "<the body>", "status": "INVALID_ARGUMENT"}}``).
ENVELOPES = (("error", "metadata", "raw"), ("error", "message"))


def carried(response: Any) -> tuple[Mapping[str, Any], str] | None:
    """Returns the Messages API error body a gateway's error envelope carries, and where (e.g.
    ``error.metadata.raw``); None when ``response`` is no such envelope (a body of the service's
    own included: it carries nothing)."""
    if not is_mapping(response) or response.get("type") == "error":
        return None
    for path in ENVELOPES:
        value: Any = response
        for key in path:
            value = value.get(key) if is_mapping(value) else None
        if not isinstance(value, str) or not value.lstrip().startswith("{"):
            continue
        try:
            inner = json.loads(value)
        except ValueError:
            continue
        if is_mapping(inner) and inner.get("type") == "error" and is_mapping(inner.get("error")):
            return inner, ".".join(path)
    return None


def _error(response: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = carried(response)
    error = (inner[0] if inner is not None else response).get("error")
    return error if is_mapping(error) else {}


def _code(response: Any) -> int | None:
    """Returns the status an envelope's ``error.code`` gives (the gateway answered with it), or None."""
    error = response.get("error") if is_mapping(response) else None
    code = error.get("code") if is_mapping(error) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def rejected(response: Any, status: int | None) -> bool:
    """Returns whether the answer is a rejection: a 4xx status, an error body (a stream's error
    event), or a gateway's envelope carrying one with a 4xx code (whatever success status the
    record gives: a log that wrote none reads as 200, and the envelope says what the service
    answered), or with no code where the record gives no status."""
    if status is not None and 400 <= status < 500:
        return True
    if status is not None and status >= 500:
        return False
    if is_mapping(response) and response.get("type") == "error":
        return True
    if not is_mapping(response) or "error" not in response or carried(response) is None:
        return False
    code = _code(response)
    if code is None:
        return status is None
    return 400 <= code < 500


def rule(response: Any, status: int | None) -> Broken | None:
    """Returns the broken rule an error answer names, or None when it is not a rejection or names
    none of ``RULES`` and ``COMPACTION`` (the message's wording is the service's, and may change)."""
    if not is_mapping(response) or not rejected(response, status):
        return None
    error = _error(response)
    details = error.get("details")
    code = details.get("error_code") if is_mapping(details) else None
    message = error.get("message")
    text = message if isinstance(message, str) else ""
    where = POINTS_AT.match(text)
    path, at, block = ((where.group(1), int(where.group(2)), int(where.group(3)) if where.group(3) else None)
                       if where else (None, None, None))
    if isinstance(code, str) and code in COMPACTION:
        return Broken(code, COMPACTION[code], path, at, block, (), ())
    for known in RULES:
        found = known.pattern.search(text)
        if found is None:
            continue
        ids = found.groupdict().get("ids") or ""
        said = [template.format(*m.groups()) for pattern, template in CHANGED if (m := pattern.search(text))]
        header = HEADER.search(text)
        if header:
            said.append(f"the request was sent without the `{header.group(1)}` beta header")
        kind = found.groupdict().get("kind")
        name = known.name.replace("tool_result", kind) if kind and kind != "tool_result" else known.name
        return Broken(name, known.asks, path, at, block,
                      tuple(i.strip() for i in ids.split(",") if i.strip()), tuple(said))
    return None


def _status(response: Mapping[str, Any], status: int | None) -> str:
    error = _error(response)
    details = error.get("details")
    code = details.get("error_code") if is_mapping(details) else None
    kind = error.get("type") or "error"
    status = status if status is not None else _code(response)
    return f"status {status if status is not None else '?'}: {kind}" + (f"/{code}" if code else "")


def _lines(broken: Broken, response: Mapping[str, Any], status: int | None) -> list[str]:
    ids = ""
    if broken.ids:
        more = len(broken.ids) - IDS_SHOWN
        ids = f" ({', '.join(broken.ids[:IDS_SHOWN])}" + (f" and {more} more" if more > 0 else "") + ")"
    lines = [f"the service rejected the request ({_status(response, status)}): {broken.rule}{ids}; the history must "
             f"keep this rule: {broken.asks}"]
    inner = carried(response)
    if inner is not None:
        lines.append(f"the service's error body came in a gateway's error envelope, at {inner[1]}")
    lines += [f"the service says {s}" for s in broken.said]
    return lines


def judge(broken: Broken, request: Mapping[str, Any], response: Mapping[str, Any], status: int | None,
          live_start: int, earlier: Earlier | None) -> Finding:
    """Returns the ``broken-history`` finding of a rejection: the rule, the message it points at
    (what that block is, and whether it lies in the task in flight or in settled history) and, for a
    thinking block bound to another conversation, the client's first change since the previous
    request that carried it (when ``earlier`` holds that request)."""
    lines = _lines(broken, response, status)
    messages: Sequence[Any] = request.get("messages") or []
    if broken.path is None or broken.message is None:
        lines.append("the error message names no message of the request")
        return Finding(BROKEN_HISTORY, lines)
    place = (f"in the task in flight (from message {live_start})" if broken.message >= live_start
             else f"in settled history (the task in flight starts at message {live_start})")
    if broken.message >= len(messages) or not is_mapping(messages[broken.message]):
        lines.append(f"it points at {broken.path}, which the request does not have ({len(messages)} messages)")
        return Finding(BROKEN_HISTORY, lines)
    message = messages[broken.message]
    content = message_blocks(message)
    what = f"{message.get('role')} message"
    block = None
    if broken.block is not None:
        block = content[broken.block] if broken.block < len(content) and is_mapping(content[broken.block]) else None
        what = describe_block(block) if block is not None and block.get("type") != "text" else \
            ("text block" if block is not None else f"no such block: the message has {len(content)}")
    lines.append(f"it points at {broken.path} ({what}) {place}")
    if block is not None and judge_thinking.identity(block) is not None and earlier is not None \
            and broken.rule.startswith("thinking block bound"):
        lines.append(judge_thinking.cause(request, block, earlier))
    return Finding(BROKEN_HISTORY, lines)


def response_only(broken: Broken, response: Mapping[str, Any], status: int | None) -> Finding:
    """Returns the ``broken-history`` finding of a rejection recorded without its request: the rule
    and the path the message points at (what the message holds cannot be told)."""
    lines = _lines(broken, response, status)
    lines.append(f"it points at {broken.path}; without the request, what that message holds and whether it lies in "
                 "the task in flight cannot be told" if broken.path else
                 "the error message names no message of the request")
    return Finding(BROKEN_HISTORY, lines)
