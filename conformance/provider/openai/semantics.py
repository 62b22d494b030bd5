"""OpenAI's server-side context management as documented, over Responses API items (plain dicts).

Four mechanisms: threshold compaction on ``responses.create`` (``context_management``), the
standalone ``/v1/responses/compact`` endpoint, the on-demand ``compaction_trigger`` input item and
``truncation: "auto"``. Where the task in flight starts is the project's one rule
(``conformance.engine.transcript.find_live_start``) applied to the items after converting them with
``conformance.formats.openai_responses``; nothing here asks a compactor where it starts.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...formats.base import FormatError
from ...formats.openai_responses import from_format_indexed
from ...engine.transcript import find_live_start

Item = Mapping[str, Any]

VERDICTS = ("settled-only", "reached-live-task", "no-edit", "rejected", "inconsistent")
MECHANISMS = ("threshold", "compact", "trigger", "truncation")
COMPACTION = "compaction"
TRIGGER = "compaction_trigger"
NO_TOOL_OUTPUT = "No tool output found for function call"
TRIGGER_NOT_LAST = "The 'compaction_trigger' item must be the final input item."
CONTEXT_EXCEEDED = "context_length_exceeded"
# Calls the server runs itself inside one response (no client output follows them); a
# ``tool_search_call`` is one unless the client runs it (``search_runs_on_client``).
HOSTED_CALLS = frozenset({"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
                          "mcp_call", "tool_search_call"})
# Calls the client runs or answers: the response ends at them and the client sends back the item
# named here, with the call's id, in a later input (the SDK's ``*_call_output`` input items; an MCP
# approval request waits for the client's approval response). A client-run ``tool_search_call``
# (``execution: "client"``) is answered by a ``tool_search_output`` with its ``call_id``.
CLIENT_CALLS = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output",
                "computer_call": "computer_call_output", "local_shell_call": "local_shell_call_output",
                "shell_call": "shell_call_output", "apply_patch_call": "apply_patch_call_output",
                "mcp_approval_request": "mcp_approval_response", "tool_search_call": "tool_search_output"}
CALL_OUTPUTS = frozenset(CLIENT_CALLS.values())
_CLIENT_EXECUTED = frozenset({"tool_search_call", "tool_search_output"})  # client-run or hosted: search_runs_on_client
_SEARCH_PARTNER = {"tool_search_call": "tool_search_output", "tool_search_output": "tool_search_call"}
# Context windows and the largest output allowance the API subtracts from them ("auto" truncation).
CONTEXT_WINDOWS = {"gpt-4o-mini": (128_000, 16_384), "gpt-4o": (128_000, 16_384),
                   "gpt-4.1": (1_047_576, 32_768), "gpt-4.1-mini": (1_047_576, 32_768),
                   "gpt-5-mini": (400_000, 128_000), "gpt-5.4-mini": (400_000, 128_000)}
_FILLER_WORDS = ("cat", "dog", "sun", "sky", "red", "map", "box", "cup",
                 "pen", "oak", "ice", "fog", "bay", "elm", "fig", "jar")


def filler(tokens: int, seed: int = 0) -> str:
    """Returns about ``tokens`` tokens of plain filler words (deterministic for a seed)."""
    count, size = max(tokens, 0), len(_FILLER_WORDS)
    period = 16 * size  # word i+period is word i: 3 * period + period // 16 is a multiple of size
    cycle = [_FILLER_WORDS[(seed * 7 + i * 3 + i // 16) % size] for i in range(min(count, period))]
    whole, rest = divmod(count, period)
    if whole == 0:
        return " ".join(cycle)
    return " ".join([" ".join(cycle)] * whole + ([" ".join(cycle[:rest])] if rest else []))


def estimate_text(text: str) -> int:
    """Returns an estimate of the tokens of ``text``: one per word of at most four letters, else chars/4."""
    lengths = Counter(map(len, text.split()))  # ceil(n / 4) is 1 for every word of at most four letters
    return sum(count * -(-n // 4) for n, count in lengths.items())


def search_runs_on_client(item: Item) -> bool:
    """Returns whether a ``tool_search_call`` or ``tool_search_output`` is the client's: its
    ``execution`` says so; an item without one (a client or an SDK round-trip dropped it) is the
    client's when it has a ``call_id``, for a search the server runs carries none (``call_id: null``).
    ``with_execution`` gives such an item its partner's word first, where the partner says."""
    said = item.get("execution")
    if said is not None:
        return said == "client"
    call_id = item.get("call_id")
    return isinstance(call_id, str) and call_id != ""


def with_execution(items: Sequence[Any]) -> Sequence[Any]:
    """Returns ``items`` with each tool search call or output that does not say who ran it (no
    ``execution``) given the word of its partner, paired by ``call_id`` (the output of the call, the
    call of the output); ``items`` itself when no such item has a partner that says."""
    said: dict[tuple[str, str], Any] = {}
    missing = False
    for item in items:
        if isinstance(item, Mapping) and item.get("type") in _SEARCH_PARTNER:
            call_id = item.get("call_id")
            if item.get("execution") is None:
                missing = True
            elif isinstance(call_id, str):
                said.setdefault((item["type"], call_id), item["execution"])
    if not missing or not said:
        return items
    paired: list[Any] = []
    for item in items:
        if isinstance(item, Mapping) and item.get("type") in _SEARCH_PARTNER and item.get("execution") is None \
                and isinstance(item.get("call_id"), str):
            word = said.get((_SEARCH_PARTNER[item["type"]], item["call_id"]))
            if word is not None:
                item = {**item, "execution": word}
        paired.append(item)
    return paired


def client_side(item: Item) -> str | None:
    """Returns ``"call"`` for a call the client runs or answers (``CLIENT_CALLS``), ``"output"`` for
    the item that answers one, None for any other item (a hosted call included)."""
    kind = item.get("type")
    if not isinstance(kind, str) or kind in _CLIENT_EXECUTED and not search_runs_on_client(item):
        return None
    if kind in CLIENT_CALLS:
        return "call"
    return "output" if kind in CALL_OUTPUTS else None


def call_key(item: Item) -> Any:
    """Returns the id that pairs a client call with its output (None when it has none): ``call_id``;
    an MCP approval request's ``id`` and its response's ``approval_request_id``; a local shell
    output's ``id`` when it has no ``call_id`` (the SDK's input form names the call so)."""
    kind = item.get("type")
    if kind == "mcp_approval_request":
        return item.get("id")
    if kind == "mcp_approval_response":
        return item.get("approval_request_id")
    if kind == "local_shell_call_output" and "call_id" not in item:
        return item.get("id")
    return item.get("call_id")


def item_text(item: Item) -> str:
    """Returns the text an item carries (message parts, call arguments, call output, reasoning text)."""
    kind = item.get("type", "message")
    if kind == "message":
        content = item.get("content")
        if isinstance(content, str):
            return content
        return " ".join(str(p.get("text", "")) for p in content or [] if isinstance(p, Mapping))
    if kind == "function_call":
        return f"{item.get('name', '')} {item.get('arguments', '')}"
    if kind == "function_call_output":
        body = item.get("output")
        return body if isinstance(body, str) else " ".join(str(p.get("text", "")) for p in body or [])
    if kind == "reasoning":
        return " ".join(str(p.get("text", "")) for p in (item.get("summary") or []) + (item.get("content") or []))
    if kind == "custom_tool_call":  # (freeform input: a string, not JSON arguments)
        return f"{item.get('name', '')} {item.get('input', '')}"
    if client_side(item) == "output":  # (a screenshot or other object: no text)
        body = item.get("output")
        if isinstance(body, list):
            return " ".join(str(p.get("text", "")) for p in body if isinstance(p, Mapping))
        return body if isinstance(body, str) else ""
    return ""


def item_tokens(item: Item) -> int:
    """Returns the estimated tokens of one input item (its text plus a small framing overhead)."""
    if item.get("type") == COMPACTION:
        return 64
    if item.get("type") == "reasoning":
        return 16 + estimate_text(item_text(item))
    return 4 + estimate_text(item_text(item))


def input_tokens(items: Sequence[Item], instructions: str | None = None) -> int:
    """Returns the estimated input tokens of a request with these items and instructions."""
    return 3 + sum(item_tokens(i) for i in items) + (4 + estimate_text(instructions) if instructions else 0)


def _normalised(item: Item) -> dict[str, Any] | None:
    """Returns the item as the Responses format converter reads it, or None for an item with no
    counterpart in the rule (a compaction item, a trigger, a system or developer message)."""
    kind = item.get("type", "message")
    if kind == "message":
        if item.get("role") not in ("user", "assistant"):
            return None
        content = item.get("content")
        if isinstance(content, list):
            content = [{"type": p.get("type"), "text": str(p.get("text", ""))} for p in content if isinstance(p, Mapping)]
        return {"type": "message", "role": item["role"], "content": content if content is not None else []}
    if kind in ("function_call", "function_call_output"):
        return dict(item)
    side = client_side(item)  # another call the client runs, or its output: read as a function call's
    if side == "call":
        return {"type": "function_call", "call_id": str(call_key(item)), "name": str(kind), "arguments": "{}"}
    if side == "output":
        return {"type": "function_call_output", "call_id": str(call_key(item)), "output": ""}
    if kind == "reasoning":  # opaque to the rule: a reasoning block without text
        return {"type": "reasoning", "encrypted_content": "opaque"}
    if kind in HOSTED_CALLS:  # the server ran it within the response: reads like reasoning, not an open call
        return {"type": "reasoning", "encrypted_content": "hosted"}
    return None


def live_start(items: Sequence[Item]) -> int:
    """Returns the index of the first item of the task in flight; ``len(items)`` when it ends settled.

    Raises ``FormatError`` for items the converter cannot read (a malformed call, for instance).
    """
    found = _live_start_plain(items)
    return found if found is not None else live_start_converted(items)


# An assistant call with no output: appended to items, it says that work on their last task goes on.
_GOES_ON = {"type": "function_call", "call_id": "", "name": "", "arguments": "{}"}


def live_start_continued(items: Sequence[Item]) -> int:
    """Returns where the task in flight starts among ``items`` when the work on it goes on after them
    (an answer among them was not the final one): ``live_start`` of the items and an unanswered call
    after them; raises ``FormatError`` as ``live_start`` does."""
    return live_start([*items, _GOES_ON])


def continues_work(item: Item) -> bool:
    """Returns whether an output item is work on the response's task that the rule reads: a message,
    reasoning, a call or a call's output (False for a compaction item, an instruction, an unknown type)."""
    return isinstance(item.get("type", "message"), str) and _normalised(item) is not None


def ends_in_commentary(output: Sequence[Item]) -> bool:
    """Returns whether the last assistant message among output items is labelled intermediate
    commentary (``phase: "commentary"``, which the SDK sets apart from ``"final_answer"``)."""
    messages = [o for o in output if o.get("type", "message") == "message" and o.get("role", "assistant") == "assistant"]
    return bool(messages) and messages[-1].get("phase") == "commentary"


# A settled exchange in the rule's terms: read before items, it tells whether they open a task of their own.
_SETTLED_EXCHANGE = ({"type": "message", "role": "user", "content": ""},
                     {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": ""}]})


def continues_before(items: Sequence[Item]) -> bool:
    """Returns whether ``items`` carry on a task begun before them (they open with assistant work or
    a call's output, not with a new request): read after a settled exchange, their task in flight
    starts inside it. Raises ``FormatError`` as ``live_start`` does."""
    return live_start([*_SETTLED_EXCHANGE, *items]) < len(_SETTLED_EXCHANGE)


def skeleton(items: Sequence[Item]) -> list[dict[str, Any]] | None:
    """Returns what the rule reads of ``items``, without their text or ids (``live_start`` of the
    skeleton followed by more items is that of the items followed by them, counted in skeleton
    items); None when the items cannot be read."""
    try:
        live_start(items)
    except FormatError:
        return None
    return [_bare(n) for n in map(_normalised, with_execution(items)) if n is not None]


def _bare(item: Mapping[str, Any]) -> dict[str, Any]:
    """Returns a ``_normalised`` item as the rule reads it, its text and ids emptied."""
    kind = item["type"]
    if kind == "message":
        content = item["content"]
        return {"type": "message", "role": item["role"], "content": "" if isinstance(content, str) else
                [{"type": "output_text", "text": ""}] if content else []}
    if kind == "function_call":
        return dict(_GOES_ON)
    if kind == "function_call_output":
        return {"type": "function_call_output", "call_id": "", "output": ""}
    return {"type": "reasoning", "encrypted_content": ""}


def live_start_converted(items: Sequence[Item]) -> int:
    """Returns what ``live_start`` returns, by converting every item (``_normalised``, then
    ``from_format``) and asking ``find_live_start``; raises ``FormatError`` as ``live_start`` does."""
    kept = [(i, n) for i, n in ((i, _normalised(item)) for i, item in enumerate(with_execution(items)))
            if n is not None]
    history, opened = from_format_indexed([n for _, n in kept])
    start = find_live_start(history)
    if start >= len(history):
        return len(items)
    return kept[opened[start]][0]  # the first kept item of the message where the task in flight starts


# What ``find_live_start`` reads of a converted message is its role and which kinds of block it
# holds: text (a final answer has some), a client tool use (it has none), a tool result (a user
# turn that holds one continues the task, it opens no new request).
_TEXT, _TOOL_USE, _TOOL_RESULT, _OPAQUE = 1, 2, 4, 0


def _live_start_plain(items: Sequence[Item]) -> int | None:
    """Returns ``live_start(items)`` for input in the shapes the API documents (plain dicts, readable
    calls and outputs), found without converting the items: the messages ``from_format`` would
    group them into, each as its role and the kinds of block it holds, read by ``find_live_start``'s
    rule. None for anything else (the caller converts, and raises what the conversion raises)."""
    roles: list[str] = []
    kinds: list[int] = []  # per message: the kinds of block it holds (``_TEXT | _TOOL_USE | _TOOL_RESULT``)
    opened: list[int] = []
    open_list = False  # the last message's content is a non-empty list: the next item of its side joins it
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            return None
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            if role != "user" and role != "assistant":
                continue  # a system or developer message: no counterpart in the rule
            content = item.get("content")
            if isinstance(content, str) or content is None or content == []:
                roles.append(role)
                kinds.append(_TEXT if isinstance(content, str) else 0)  # (a string is one text block)
                opened.append(n)
                open_list = False
                continue
            if not isinstance(content, list):
                return None
            if not any(isinstance(p, Mapping) for p in content):
                roles.append(role)  # (no part it reads: an empty message)
                kinds.append(0)
                opened.append(n)
                open_list = False
                continue
            side, block = role, _TEXT
        elif kind == "function_call":
            arguments = item.get("arguments")
            if "call_id" not in item or "name" not in item or not isinstance(arguments, str):
                return None
            try:
                json.loads(arguments)  # (an unreadable call makes the input unreadable)
            except ValueError:
                return None
            side, block = "assistant", _TOOL_USE
        elif kind == "function_call_output":
            output = item.get("output")
            if "call_id" not in item or not (isinstance(output, str) or isinstance(output, list) and all(
                    isinstance(p, dict) and "text" in p for p in output)):
                return None
            side, block = "user", _TOOL_RESULT
        elif kind in _SEARCH_PARTNER and item.get("execution") is None:
            return None  # (a tool search that does not say who ran it: its partner may, ``with_execution``)
        elif (client := client_side(item)) is not None:  # another call the client runs, or its output
            side, block = ("assistant", _TOOL_USE) if client == "call" else ("user", _TOOL_RESULT)
        elif kind == "reasoning" or isinstance(kind, str) and kind in HOSTED_CALLS:
            side, block = "assistant", _OPAQUE
        elif kind is None or isinstance(kind, str):
            continue  # a compaction item, a trigger, an unknown item: no counterpart in the rule
        else:
            return None
        if open_list and roles[-1] == side:
            kinds[-1] |= block
        else:
            roles.append(side)
            kinds.append(block)
            opened.append(n)
            open_list = True
    # ``find_live_start``: after the last final answer (an assistant message with text and no tool
    # use) that ends the history or is followed by a new request (a user message without a result).
    last = len(roles) - 1
    for i in range(last, -1, -1):
        if roles[i] != "assistant" or kinds[i] & (_TEXT | _TOOL_USE) != _TEXT:
            continue
        if i == last:
            return len(items)
        if roles[i + 1] == "user" and not kinds[i + 1] & _TOOL_RESULT:
            return opened[i + 1]
    return opened[0] if roles else len(items)


def open_calls(items: Sequence[Item]) -> list[str]:
    """Returns the id (``call_key``) of every call the client runs with no output among the items, in order."""
    items = with_execution(items)
    answered = {call_key(i) for i in items if client_side(i) == "output"}
    return [str(call_key(i)) for i in items if client_side(i) == "call" and call_key(i) not in answered]


def fingerprint(item: Item) -> tuple[str, str, str]:
    """Returns what identifies an item across a compaction: type, role and canonical content (never the id)."""
    kind = str(item.get("type", "message"))
    if kind == "message":
        content = item.get("content")
        texts = [content] if isinstance(content, str) else [str(p.get("text", "")) for p in content or []
                                                              if isinstance(p, Mapping)]
        return kind, str(item.get("role")), _json_texts(texts)
    if kind in ("function_call", "function_call_output") or client_side(item) is not None:
        return kind, str(call_key(item)), item_text(item)
    return kind, "", str(item.get("encrypted_content") or item_text(item))


def _json_texts(texts: list[str]) -> str:
    """Returns ``json.dumps(texts)`` for a list of strings, written without the encoder's set-up."""
    return "[" + ", ".join(map(encode_basestring_ascii, texts)) + "]"


@dataclass
class Prediction:
    """What the documented rules give for one probe: the verdict, the cut, and the reasons."""

    verdict: str
    error: dict[str, str] | None = None
    reasons: list[str] = field(default_factory=list)


def window_limit(model: str) -> int | None:
    """Returns the input tokens ``model`` takes before ``auto`` truncation drops items, or None if unknown."""
    window = CONTEXT_WINDOWS.get(model)
    return None if window is None else window[0] - window[1]


def truncation_cut(items: Sequence[Item], limit: int, instructions: str | None = None) -> int | None:
    """Returns how many leading items ``auto`` truncation drops to fit ``limit``; None when nothing fits."""
    costs = [item_tokens(i) for i in items]  # input_tokens(items[cut:]) is the total less the cut ones'
    remaining = input_tokens((), instructions) + sum(costs)
    for cut in range(len(items)):
        if remaining <= limit:
            return cut
        remaining -= costs[cut]
    return None


def answer_kind(request: Mapping[str, Any]) -> str:
    """Returns what the model is asked to answer with: ``function_call`` when a call is forced, else ``message``."""
    choice = request.get("tool_choice")
    forced = choice == "required" or (isinstance(choice, Mapping) and choice.get("type") == "function")
    return "function_call" if forced and request.get("tools") else "message"


def predict(mechanism: str, request: Mapping[str, Any], items: Sequence[Item], live_from: int) -> Prediction:
    """Returns the documented verdict for the judged call of a probe whose full input is ``items``."""
    live = live_from < len(items)
    if mechanism == "compact":
        if open_calls(items):
            return Prediction("rejected", {"type": "invalid_request_error", "message": NO_TOOL_OUTPUT},
                              ["the window holds a function call without its output"])
        folded = [n for n, i in enumerate(items) if i.get("type", "message") != "message" or i.get("role") == "assistant"]
        if live and any(n >= live_from for n in folded):
            return Prediction("reached-live-task", reasons=["the endpoint folds every assistant and tool item, "
                                                            "those of the task in flight too"])
        return Prediction("settled-only" if folded else "no-edit")
    if mechanism == "trigger":
        position = next(n for n, i in enumerate(items) if i.get("type") == TRIGGER)
        if position != len(items) - 1:
            return Prediction("rejected", {"type": "invalid_request_error", "message": TRIGGER_NOT_LAST},
                              ["the trigger is not the last input item"])
        return Prediction("reached-live-task" if live_from < position else "settled-only",
                          reasons=["the compaction item stands for the whole input"])
    if mechanism == "truncation":
        limit = window_limit(str(request.get("model")))
        if limit is None:
            raise ValueError(f"no context window known for model {request.get('model')!r}")
        cut = truncation_cut(items, limit, request.get("instructions"))
        if request.get("truncation") != "auto":
            if cut == 0:
                return Prediction("no-edit")
            return Prediction("rejected", {"type": "invalid_request_error", "code": CONTEXT_EXCEEDED},
                              ["the input exceeds the context window and truncation is disabled"])
        if cut is None:
            return Prediction("rejected", {"type": "invalid_request_error", "code": CONTEXT_EXCEEDED},
                              ["no suffix of the input fits the context window"])
        if cut == 0:
            return Prediction("no-edit")
        return Prediction("reached-live-task" if cut > live_from else "settled-only",
                          reasons=[f"auto truncation drops the first {cut} item(s)"])
    # threshold compaction: the recorded service compacts only after the response's final answer
    threshold = next((e.get("compact_threshold") for e in request.get("context_management") or []
                      if e.get("type") == COMPACTION), None)
    if threshold is None or input_tokens(items, request.get("instructions")) < threshold:
        return Prediction("no-edit", reasons=["the input stays below compact_threshold"])
    if answer_kind(request) == "function_call":
        return Prediction("no-edit", reasons=["the response ends in a function call; the service waits for the "
                                              "final answer before it compacts"])
    return Prediction("settled-only", reasons=["compaction follows the response's own final answer"])


def check_live(items: Sequence[Item], declared: int) -> str | None:
    """Returns why ``declared`` is not where the task in flight starts among ``items``, or None."""
    try:
        found = live_start(items)
    except FormatError as exc:
        return f"the items cannot be read: {exc}"
    if found != declared:
        return f"the task in flight starts at item {found}, not {declared}"
    return None
