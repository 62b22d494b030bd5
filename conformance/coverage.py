"""What the scenarios cover: block kind x field x position, counted in scenarios, and the cells
that must hold at least a given number of scenarios under a window that cuts settled history.

``render`` prints ``docs/coverage.md`` and ``shortfalls`` names the required cells that are short;
``python tools/generated_docs.py --check`` fails when that page is stale or a cell is short, and
``--write coverage`` writes it. Positions come from each scenario's declared
``truth.live_start``: ``settled`` before it; ``opening`` the user requests (and system messages)
that open the task in flight; ``live`` the rest of the task in flight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._text import plural
from .engine import transcript as tx
from .engine.spec import Scenario

Cell = tuple[str, str, str]  # (kind, field, position)
POSITIONS = ("settled", "opening", "live")
IN_FLIGHT = ("opening", "live")
FUTURE = "(future type)"
BIG_TEXT = 2 * 1024

# Fields each known block type may carry; any other field is an unknown (future) field.
KNOWN_FIELDS: dict[str, frozenset[str]] = {kind: frozenset(fields.split()) | {"type", "cache_control"} for kind, fields in {
    "text": "text citations", "image": "source", "document": "source title context citations",
    "search_result": "source title content citations", "thinking": "thinking signature", "redacted_thinking": "data",
    "tool_use": "id name input caller toolset_name", "tool_result": "tool_use_id content is_error toolset_name",
    "server_tool_use": "id name input caller", "mcp_tool_use": "id name input server_name",
    "mcp_tool_result": "tool_use_id content is_error", "container_upload": "file_id",
    "compaction": "content encrypted_content signature", "fallback": "from to trigger",
    "web_search_tool_result": "tool_use_id content caller", "web_fetch_tool_result": "tool_use_id content caller",
    "code_execution_tool_result": "tool_use_id content", "bash_code_execution_tool_result": "tool_use_id content",
    "text_editor_code_execution_tool_result": "tool_use_id content", "tool_search_tool_result": "tool_use_id content",
    "advisor_tool_result": "tool_use_id content", "mcp_tool_listing": "mcp_server_name tools",
}.items()}
# Fields named in the table as they are; the others of a known type are its plain payload.
NOTABLE = frozenset({"cache_control", "citations", "is_error", "title", "context", "caller"})


@dataclass(frozen=True)
class Requirement:
    """A cell that must hold ``minimum`` scenarios in one of ``positions`` under a cutting window."""

    kind: str
    field: str
    positions: tuple[str, ...]
    minimum: int = 3


UNKNOWN_FIELD_KINDS = ("text", "image", "document", "search_result", "thinking", "redacted_thinking", "tool_use",
                       "tool_result", "server_tool_use", "web_search_tool_result", "web_fetch_tool_result",
                       "bash_code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "container_upload")


def _fields(kind: str, positions: tuple[str, ...], *fields: str) -> tuple[Requirement, ...]:
    """Returns one requirement of the default minimum per field of ``kind`` at ``positions``."""
    return tuple(Requirement(kind, field, positions) for field in fields)


# in the order docs/coverage.md lists them
REQUIRED: tuple[Requirement, ...] = (
    *_fields("tool_result", ("live",), "content: text of 2 KB or more", "content: list of one text",
             "content: list of several texts", "content: list with an image", "is_error", "cache_control",
             "citations in content"),
    *_fields("image", ("opening",), "source: base64", "source: url"),
    *_fields("document", ("opening",), "source: base64", "source: url", "citations"),
    Requirement("text", "cache_control", IN_FLIGHT),
    Requirement("text", "citations", ("live",)),
    Requirement("text", "text with non-ASCII", IN_FLIGHT),
    Requirement("tool_result", "content: text ending in whitespace", ("live",)),
    *(Requirement(kind, "unknown field", IN_FLIGHT) for kind in UNKNOWN_FIELD_KINDS),
    Requirement(FUTURE, "present", IN_FLIGHT),
    *_fields("thinking", ("live",), "text with newlines", "text with runs of spaces", "text with non-ASCII"),
    Requirement("message", "paused turn, then a user message", ("live",)),
    *_fields("message", IN_FLIGHT, "identical to the message before", "repeats a settled message",
             "repeats a settled block"),
    Requirement("message", "system message", ("opening",)),
    Requirement("message", "user text between a call and its result", ("settled",), 2),
    Requirement("message", "user text between a call and its result", ("live",), 1),
    Requirement("message", "paused server-tool turn continued", ("settled",)),
    Requirement("compaction", "present", ("settled",)),
    Requirement("compaction", "present", ("live",), 2),
    Requirement("compaction", "no id", ("settled",)),
    Requirement("tool_search_tool_result", "present", ("settled",), 2),
    Requirement("tool_search_tool_result", "present", ("live",), 2),
    Requirement("text_editor_code_execution_tool_result", "present", ("settled",), 2),
    Requirement(FUTURE, "server tool result", ("settled",), 2),
    Requirement(FUTURE, "server tool result", ("live",), 2),
    Requirement("tool_use", "context_compact awaiting its result", ("live",), 2),
    Requirement("tool_use", "caller naming a server tool use", ("settled",)),
    Requirement("tool_use", "caller naming a server tool use", ("live",), 2),
    Requirement("text", "system-reminder notice", ("settled",)),
    Requirement("text", "system-reminder notice", IN_FLIGHT, 2),
    Requirement("text", "text of 2 KB or more beside thinking", ("live",), 2),
)


def _content_facets(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        if len(content) >= BIG_TEXT:
            yield "content: text of 2 KB or more"
        if content[-1:].isspace():
            yield "content: text ending in whitespace"
        return
    if not isinstance(content, list):
        return
    kinds = [b.get("type") for b in content if isinstance(b, Mapping)]
    texts = kinds.count("text")
    if texts == 1 and len(kinds) == 1:
        yield "content: list of one text"
    if texts >= 2:
        yield "content: list of several texts"
    if any(isinstance(b, Mapping) and b.get("type") == "text" and len(str(b.get("text"))) >= BIG_TEXT
           for b in content):
        yield "content: text of 2 KB or more"
    for kind in ("image", "document", "search_result"):
        if kind in kinds:
            yield f"content: list with {'an' if kind == 'image' else 'a'} {kind}"
    for block in content:
        for kind, field in block_facets(block):
            if kind == FUTURE:
                yield "future type in content"
            elif field in ("citations", "cache_control", "unknown field"):
                yield f"{field} in content"


def block_facets(block: Any) -> Iterator[tuple[str, str]]:
    """Yields ``(kind, field)`` for what one block carries: notable and unknown fields, sources,
    the shape of tool result content, the characters of thinking text."""
    if not isinstance(block, Mapping):
        return
    kind = str(block.get("type"))
    known = KNOWN_FIELDS.get(kind)
    if known is None:
        yield FUTURE, "present"
        if tx.is_server_result(block):
            yield FUTURE, "server tool result"
        return
    if kind == "compaction" and "id" not in block:
        yield kind, "no id"
    if kind == "tool_use" and block.get("name") == "context_compact":
        yield kind, "context_compact awaiting its result"
    caller = block.get("caller")
    if kind == "tool_use" and isinstance(caller, Mapping) and isinstance(caller.get("tool_id"), str):
        yield kind, "caller naming a server tool use"
    if kind == "text" and str(block.get("text", "")).startswith("<system-reminder>"):
        yield kind, "system-reminder notice"
    yield kind, "present"
    for field in block:
        if field in NOTABLE:
            yield kind, field
        elif field not in known:
            yield kind, "unknown field"
    source = block.get("source")
    if kind in ("image", "document") and isinstance(source, Mapping):
        yield kind, f"source: {source.get('type')}"
    if kind in ("tool_result", "mcp_tool_result"):
        yield from ((kind, facet) for facet in _content_facets(block.get("content")))
    if kind == "text" and isinstance(block.get("text"), str) and any(ord(c) > 127 for c in block["text"]):
        yield kind, "text with non-ASCII"
    if kind == "thinking" and isinstance(block.get("thinking"), str):
        value = block["thinking"]
        if "\n" in value:
            yield kind, "text with newlines"
        if "  " in value:
            yield kind, "text with runs of spaces"
        if any(ord(c) > 127 for c in value):
            yield kind, "text with non-ASCII"


def _paused_then_user(history: Sequence[Mapping[str, Any]], i: int) -> bool:
    message = history[i]
    if message.get("role") != "assistant" or i + 1 >= len(history) or history[i + 1].get("role") != "user":
        return False
    open_uses = set(tx.server_tool_use_ids(message)) - set(tx.server_result_ids(message))
    return bool(open_uses) and "text" in tx.block_types(message)


def _between_call_and_result(history: Sequence[Mapping[str, Any]], i: int) -> bool:
    """Returns whether history[i] is a user message with no tool result that stands right after a
    call turn whose results come later (a background-task notice stored mid-step)."""
    if i == 0 or not tx.opens_new_request(history[i]):
        return False
    calls = set(tx.tool_use_ids(history[i - 1]))
    return bool(calls) and any(calls & set(tx.tool_result_ids(m)) for m in history[i + 1:])


def _continues_paused_turn(history: Sequence[Mapping[str, Any]], i: int) -> bool:
    """Returns whether history[i] is an assistant message holding the result of a server tool use
    left open by the assistant message just before it."""
    if i == 0 or history[i].get("role") != "assistant" or history[i - 1].get("role") != "assistant":
        return False
    return bool(set(tx.open_server_tool_uses(history[i - 1])) & set(tx.server_result_ids(history[i])))


def positions(scenario: Scenario) -> list[str]:
    """Returns the position of each message of the history: settled, opening or live."""
    start = scenario.truth.live_start
    out = ["settled"] * start
    opening = True
    for message in scenario.history[start:]:
        opening = opening and (message.get("role") == "system" or (
            message.get("role") == "user" and tx.CLIENT_TOOL_RESULT not in tx.block_types(message)))
        out.append("opening" if opening else "live")
    return out


def scenario_cells(scenario: Scenario) -> set[Cell]:
    """Returns every (kind, field, position) the scenario's history holds."""
    cells: set[Cell] = set()
    history = scenario.history
    settled = scenario.history[:scenario.truth.live_start]
    settled_messages = {tx.canonical(m) for m in settled}
    settled_blocks = {tx.canonical(b) for m in settled if isinstance(m.get("content"), list) for b in m["content"]}
    for i, (message, where) in enumerate(zip(history, positions(scenario))):
        if isinstance(message.get("content"), str):
            cells.add(("message", "string content", where))
        if message.get("role") == "system":
            cells.add(("message", "system message", where))
        for block in tx.blocks(message):  # string content counts as one text block
            cells.update((kind, field, where) for kind, field in block_facets(block))
        if _paused_then_user(history, i):
            cells.add(("message", "paused turn, then a user message", where))
        if _between_call_and_result(history, i):
            cells.add(("message", "user text between a call and its result", where))
        if _continues_paused_turn(history, i):
            cells.add(("message", "paused server-tool turn continued", where))
        if message.get("role") == "assistant" and any(tx.is_reasoning(b) for b in tx.blocks(message)) and any(
                b.get("type") == "text" and len(str(b.get("text"))) >= BIG_TEXT for b in tx.blocks(message)):
            cells.add(("text", "text of 2 KB or more beside thinking", where))
        if i > 0 and message == history[i - 1]:
            cells.add(("message", "identical to the message before", where))
        if where != "settled" and tx.canonical(message) in settled_messages:
            cells.add(("message", "repeats a settled message", where))
        if where != "settled" and isinstance(message.get("content"), list) and \
                any(tx.canonical(b) in settled_blocks for b in message["content"]):
            cells.add(("message", "repeats a settled block", where))
    if window_cuts(scenario):
        cells.add(("history", "window cuts settled history", "settled"))
    return cells


def window_cuts(scenario: Scenario) -> bool:
    """Returns whether ``keep_turns`` reaches back less far than the settled history goes."""
    keep = scenario.params.get("keep_turns")
    return isinstance(keep, int) and 0 <= keep < scenario.truth.live_start


Tally = list[tuple[set[Cell], bool]]


def tally(scenarios: Iterable[Scenario]) -> Tally:
    """Returns each scenario's cells and whether its window cuts settled history."""
    return [(scenario_cells(s), window_cuts(s)) for s in scenarios]


def _held(requirement: Requirement, tallied: Tally) -> tuple[int, int]:
    """Returns how many scenarios hold the cell, and how many of those under a cutting window."""
    holding = [cut for cells, cut in tallied
               if any((requirement.kind, requirement.field, where) in cells for where in requirement.positions)]
    return len(holding), sum(holding)


def shortfalls(scenarios: Iterable[Scenario]) -> list[str]:
    """Returns one line per required cell with fewer scenarios under a cutting window than its minimum."""
    tallied = tally(scenarios)
    problems = []
    for req in REQUIRED:
        _, cut = _held(req, tallied)
        if cut < req.minimum:
            problems.append(f"{req.kind} / {req.field} / {' or '.join(req.positions)}: {plural(cut, 'scenario')} with a "
                            f"cutting window, minimum {req.minimum}")
    return problems


def render(scenarios: Sequence[Scenario]) -> str:
    """Returns docs/coverage.md: the required cells, then every cell by position."""
    lines = ["# Coverage of the scenarios", "",
             "Generated by `python tools/generated_docs.py --write coverage` from the shipped specs; do not edit",
             "by hand (`python tools/generated_docs.py --check` fails when this page is stale or a required cell is",
             "short).",
             "", f"{len(scenarios)} scenarios. Each cell counts the scenarios whose history holds that field on "
             "that kind of block", "at that position: **settled** (before `truth.live_start`), **opening** (the "
             "requests that open the", "task in flight) or **live** (the rest of the task in flight). A field is "
             "*unknown* when the Messages API", "does not define it on that block type; *(future type)* is a block "
             "type it does not define.", "",
             "## Required cells", "",
             "The minimum applies to the column *with a cutting window*: scenarios whose `keep_turns` is shorter",
             "than their settled history, so a compactor is really trimming while the content sits in the task",
             "in flight.", "",
             "| kind | field | position | scenarios | with a cutting window | minimum |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    tallied = tally(scenarios)
    for req in REQUIRED:
        total, cut = _held(req, tallied)
        mark = "" if cut >= req.minimum else " **short**"
        lines.append(f"| `{req.kind}` | {req.field} | {' or '.join(req.positions)} | {total} | {cut}{mark} | "
                     f"{req.minimum} |")
    every: Counter[Cell] = Counter(cell for cells, _ in tallied for cell in cells)
    lines += ["", "## Every cell", "", "| kind | field | settled | opening | live |", "| --- | --- | ---: | ---: | ---: |"]
    for kind, field in sorted({(k, f) for k, f, _ in every}):
        counts = " | ".join(str(every[(kind, field, where)] or "") for where in POSITIONS)
        lines.append(f"| `{kind}` | {field} | {counts} |")
    return "\n".join(lines) + "\n"
