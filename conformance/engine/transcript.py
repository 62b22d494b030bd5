"""Pure helpers over Anthropic Messages API-shaped histories.

A history is a list of ``{"role": ..., "content": str | list[block]}`` dicts. Nothing here mutates
its input. ``find_live_start`` is the harness's own boundary analysis, written independently of
any compactor, used to cross-check declared truth and to label generated cases.
"""

from __future__ import annotations

import copy
import hashlib
import json
import marshal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

Message = Mapping[str, Any]
Block = Mapping[str, Any]

REASONING_TYPES: frozenset[str] = frozenset({"thinking", "redacted_thinking"})
CLIENT_TOOL_USE = "tool_use"
CLIENT_TOOL_RESULT = "tool_result"
SERVER_TOOL_USE_TYPES: frozenset[str] = frozenset({"server_tool_use", "mcp_tool_use"})
OPAQUE_TYPES: frozenset[str] = frozenset({"compaction", "redacted_thinking"})
OPAQUE_FIELDS: tuple[str, ...] = ("encrypted_content", "signature")  # at any depth of a block

_PLAIN_CONTAINERS = (dict, list)  # the types of parsed JSON: no ABC check needed


_MISSING = object()


def same_json(a: Any, b: Any) -> bool:
    """Returns whether ``a`` and ``b`` are the same JSON value: types kept (``0``, ``0.0``,
    ``false`` and ``"0"`` all differ), key order aside; for JSON data it agrees with
    ``canonical(a) == canonical(b)``.

    Stops at the first difference; shared objects (strings a deep copy keeps) compare at once.
    """
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return _same_json_kinds(a, b)
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            other = b.get(key, _MISSING)
            if value is not other and (other is _MISSING or not same_json(value, other)):
                return False
        return True
    if kind is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x is not y and not same_json(x, y):
                return False
        return True
    if kind is str or kind is int or kind is bool:
        return bool(a == b)
    return _same_json_kinds(a, b)


def same_data(a: Any, b: Any) -> bool:
    """Returns whether ``a`` and ``b`` are the same data, key order aside: ``same_json``, except that
    a list and a tuple differ wherever they are (one that became the other holding the same items
    writes the same JSON, but a list its owner appends to is no longer one)."""
    kind = type(a)
    if kind is not type(b):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and isinstance(a, tuple) != isinstance(b, tuple):
            return False
        return _same_json_kinds(a, b)
    if a is b:
        return True
    if kind is dict:
        if len(a) != len(b):
            return False
        for key, value in a.items():
            other = b.get(key, _MISSING)
            if other is _MISSING or not same_data(value, other):
                return False
        return True
    if kind is list or kind is tuple:
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b))
    return same_json(a, b)


def deep_copy(value: Any) -> Any:
    """Returns a deep copy of ``value``: plain built-in data is copied in C (by ``marshal``), anything
    else by ``copy.deepcopy``. Unlike ``deepcopy``, an object shared within plain data is copied apart."""
    packed = _packed(value)
    return marshal.loads(packed) if packed is not None else copy.deepcopy(value)


class Snapshot:
    """A private deep copy of a value and what tells, afterwards, whether the copy was changed."""

    __slots__ = ("copy", "_original", "_packed", "_handed", "exact")

    def __init__(self, value: Any) -> None:
        self._original = value
        self._packed = _packed(value)  # plain data (the usual case) is copied in C, not by ``deepcopy``
        self.copy: Any = marshal.loads(self._packed) if self._packed is not None else copy.deepcopy(value)
        # the copy as it was made, when it is plain data (a list class whose deep copy is a plain list)
        self._handed = self._packed if self._packed is not None else _packed(self.copy)
        self.exact = False  # set by ``changed``: the copy is still the very same bytes

    def changed(self) -> bool:
        """Returns whether ``copy`` is no longer the same data as it was made (``same_data``: the
        same JSON, types kept, a list still a list, key order aside); sets ``exact`` to whether it is
        still the very same data as the value it was taken from (types, values and key order)."""
        self.exact = self.still_exact()
        if self.exact or (self._handed is not None and _packed(self.copy) == self._handed):
            return False
        return not same_data(self.copy, self.taken())

    def taken(self) -> Any:
        """Returns the copy as it was made: a fresh copy of it when it is plain data, else the value
        it was taken from (as that value is now)."""
        return marshal.loads(self._handed) if self._handed is not None else self._original

    def still_exact(self) -> bool:
        """Returns whether ``copy`` is still the very same data as the value it was taken from."""
        return self._packed is not None and _packed(self.copy) == self._packed

    def source_unchanged(self) -> bool:
        """Returns whether the value the copy was taken from is still the very same data (types,
        values and key order; False for a value that is not plain data)."""
        return self._packed is not None and _packed(self._original) == self._packed


def _packed(value: Any) -> bytes | None:
    """Returns ``value`` marshalled without shared references (the same data gives the same bytes),
    or None when it holds anything but plain built-in data (or nests too deeply)."""
    try:
        return marshal.dumps(value, 2)
    except (ValueError, RecursionError):
        return None


def _same_json_kinds(a: Any, b: Any) -> bool:
    """Returns ``same_json`` for values of different Python types or types other than the plain
    ones: whether JSON writes them the same (``canonical``). A subclass is compared by what is
    written of it, never by its own ``==``, ``get`` or ``[]`` (a dict whose reads resolve what it
    holds, a str equal to anything): what is sent is what JSON writes."""
    return canonical(a) == canonical(b)


def _non_json(value: Any) -> str:
    return f"<non-JSON {type(value).__qualname__}: {value!r}>"


_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_non_json).encode
_LOCAL = threading.local()  # each thread's prebuilt C encoder (its circular-reference markers are its own)


def _c_encoder() -> Any:
    """Returns the C encoder ``_ENCODE`` builds on each call, built once per thread."""
    return json.encoder.c_make_encoder(  # type: ignore[attr-defined]  # the C encoder is not in typeshed
        {}, _non_json, json.encoder.encode_basestring, None, ":", ",", True, False, True)


def canonical(value: Any) -> str:
    """Returns the canonical JSON text of plain data: sorted keys, types kept (``0``, ``0.0``,
    ``false`` and ``"0"`` write differently); a non-JSON value writes as a tagged ``repr``."""
    if json.encoder.c_make_encoder is not None:  # type: ignore[attr-defined]  # the C encoder is not in typeshed
        encode = getattr(_LOCAL, "encode", None)
        if encode is None:
            encode = _LOCAL.encode = _c_encoder()
        try:
            return "".join(encode(value, 0))
        except Exception:  # noqa: BLE001 - redone below, which raises or falls back as it always did
            _LOCAL.encode = None  # its markers may keep what the failed call left in them
        except BaseException:
            _LOCAL.encode = None
            raise
    return _canonical_slow(value)


def canonical_each(values: Iterable[Any]) -> list[str]:
    """Returns ``canonical`` of each value, in order."""
    values = list(values)
    if json.encoder.c_make_encoder is not None:  # type: ignore[attr-defined]  # the C encoder is not in typeshed
        encode = getattr(_LOCAL, "encode", None)
        if encode is None:
            encode = _LOCAL.encode = _c_encoder()
        join = "".join
        try:
            return [join(encode(value, 0)) for value in values]
        except Exception:  # noqa: BLE001 - each value again, one by one, as ``canonical`` does
            _LOCAL.encode = None
        except BaseException:
            _LOCAL.encode = None
            raise
    return [canonical(value) for value in values]


def _canonical_slow(value: Any) -> str:
    try:
        return _ENCODE(value)
    except TypeError:  # keys of mixed types cannot be sorted: write every key as its repr
        return canonical(_repr_keys(value))


def _repr_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {repr(k): _repr_keys(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_repr_keys(v) for v in value]
    return value


def blocks(message: Message) -> list[Block]:
    """Returns the message's content blocks; string content reads as one text block."""
    content = message.get("content")
    if isinstance(content, list):
        return content
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return []


def block_types(message: Message) -> list[str]:
    """Returns the ``type`` of each block, in order."""
    return [b.get("type", "") for b in blocks(message) if isinstance(b, Mapping)]


def is_reasoning(block: Block) -> bool:
    """Returns whether the block is a reasoning block (``thinking`` or ``redacted_thinking``)."""
    return block.get("type") in REASONING_TYPES


def tool_use_ids(message: Message) -> list[str]:
    """Returns the ids of client ``tool_use`` blocks in the message."""
    return [b["id"] for b in blocks(message) if b.get("type") == CLIENT_TOOL_USE and "id" in b]


def tool_result_ids(message: Message) -> list[str]:
    """Returns the ``tool_use_id`` of each client ``tool_result`` block in the message."""
    return [b["tool_use_id"] for b in blocks(message)
            if b.get("type") == CLIENT_TOOL_RESULT and "tool_use_id" in b]


def is_server_tool_use(block: Any) -> bool:
    """Returns whether a block is a server-run tool use: a block with an id whose type ends in
    ``tool_use`` and is not the client's ``tool_use`` (``server_tool_use``, ``mcp_tool_use``, and
    whatever ``*_tool_use`` kind comes next)."""
    if not isinstance(block, Mapping):
        return False
    kind = block.get("type")
    return (isinstance(kind, str) and kind != CLIENT_TOOL_USE and kind.endswith("tool_use")
            and isinstance(block.get("id"), str))


def is_server_result(block: Any) -> bool:
    """Returns whether a block is the result of a server-run tool use: any block with a
    ``tool_use_id`` but the client's ``tool_result``, whatever its type is called."""
    return (isinstance(block, Mapping) and block.get("type") != CLIENT_TOOL_RESULT
            and isinstance(block.get("tool_use_id"), str))


def server_tool_use_ids(message: Message) -> list[str]:
    """Returns the ids of server-run tool uses (``is_server_tool_use``) in the message."""
    return [b["id"] for b in blocks(message) if is_server_tool_use(b)]


def server_result_ids(message: Message) -> list[str]:
    """Returns the ``tool_use_id`` of every non-client result block (``*_tool_result``)."""
    return [b["tool_use_id"] for b in blocks(message) if is_server_result(b)]


def open_server_tool_uses(message: Message) -> list[str]:
    """Returns server tool use ids in the message that have no result block in the same message."""
    answered = set(server_result_ids(message))
    return [i for i in server_tool_use_ids(message) if i not in answered]


def _holds_opaque_field(value: Any) -> bool:
    if isinstance(value, Mapping):  # a tool's ``input`` is the caller's data, whatever its keys
        for key in OPAQUE_FIELDS:
            if isinstance(value.get(key), str):
                return True
        for k, v in value.items():
            kind = v.__class__
            if kind in _SCALARS or k == "input":
                continue
            if (kind in _PLAIN_CONTAINERS or isinstance(v, (Mapping, list))) and _holds_opaque_field(v):
                return True
        return False
    if isinstance(value, list):
        for v in value:
            if v.__class__ not in _SCALARS and _holds_opaque_field(v):
                return True
    return False


_SCALARS = frozenset({str, int, float, bool, type(None)})  # never a container: nothing opaque inside


def is_opaque(block: Any) -> bool:
    """Returns whether a block is one the provider owns and checks verbatim: a ``compaction`` or
    ``redacted_thinking`` block, one with a top-level ``data`` string, or one that holds an
    ``encrypted_content`` or ``signature`` string at any depth (thinking, search results...) outside
    a tool ``input``; never a client ``tool_use`` or ``tool_result``."""
    if not isinstance(block, Mapping) or block.get("type") in (CLIENT_TOOL_USE, CLIENT_TOOL_RESULT):
        return False  # the client's own calls and results: its data, not the provider's
    return (block.get("type") in OPAQUE_TYPES or isinstance(block.get("data"), str)
            or _holds_opaque_field(block))


def opaque_blocks(history: Iterable[Message]) -> Iterator[tuple[int, int, Block]]:
    """Yields ``(message_index, block_index, block)`` for every opaque block (``is_opaque``)."""
    for i, message in enumerate(history):
        if isinstance(message, Mapping):
            for j, block in enumerate(blocks(message)):
                if is_opaque(block):
                    yield i, j, block


def server_pair_problems(messages: Sequence[Any]) -> dict[tuple[str, str], str]:
    """Returns ``(kind, id) -> problem`` for each server tool use of an assistant message with no
    result after it in the same message or in the assistant message just after it (a paused turn
    continued), and each server result with no such use before it; pairs are matched by id alone."""
    problems: dict[tuple[str, str], str] = {}
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            continue
        content = blocks(message)
        previous = messages[i - 1] if i > 0 else None
        continued = (isinstance(previous, Mapping) and previous.get("role") == "assistant"
                     and message.get("role") == "assistant")
        following = messages[i + 1] if i + 1 < len(messages) else None
        continues = (isinstance(following, Mapping) and following.get("role") == "assistant"
                     and message.get("role") == "assistant")
        later = set(server_result_ids(following)) if continues and following is not None else set()
        seen = set(server_tool_use_ids(previous)) if continued and previous is not None else set()
        for j, block in enumerate(content):
            if not isinstance(block, Mapping):
                continue
            if is_server_tool_use(block):
                use_id = block["id"]
                seen.add(use_id)
                answered = any(is_server_result(b) and b["tool_use_id"] == use_id for b in content[j + 1:])
                if message.get("role") == "assistant" and not answered and use_id not in later:
                    problems[("use", use_id)] = (f"[{i}].content[{j}] ({block.get('type')} {use_id}) has no result "
                                                 "after it in its message or in the continuation just after it")
            elif is_server_result(block) and block["tool_use_id"] not in seen:
                problems[("result", block["tool_use_id"])] = (
                    f"[{i}].content[{j}] ({block.get('type')} for {block['tool_use_id']}) has no server tool use "
                    "before it in its message or in the paused turn just before it")
    return problems


def is_final_answer(message: Message) -> bool:
    """Returns whether an assistant message reads as a final answer on its own.

    It carries text, no client ``tool_use`` and no server tool use left without its result.
    """
    if message.get("role") != "assistant":
        return False
    types = block_types(message)
    return "text" in types and CLIENT_TOOL_USE not in types and not open_server_tool_uses(message)


def opens_new_request(message: Message) -> bool:
    """Returns whether a user message is a new request rather than a tool-result turn."""
    return message.get("role") == "user" and not tool_result_ids(message)


def find_live_start(history: Sequence[Message]) -> int:
    """Returns the index where the task in flight begins by the boundary rule read from the history
    alone; ``len(history)`` when it ends settled.

    A settled turn is a final answer that is the last message or is followed (system messages
    aside) by a new user request; one followed by more assistant work or tool results is not.
    It is not the scenarios' truth: a scenario declares its own (``truth.live_start``), and where
    an order hides the boundary (interleaved tasks, a reordered store, a client prefill) the two
    differ and ``truth.note`` says why. There a compactor may refuse instead (the scenario allows it).
    """
    for i in range(len(history) - 1, -1, -1):
        if settles_at(history, i):
            return i + 1
    return 0


def settles_at(history: Sequence[Message], i: int) -> bool:
    """Returns whether message ``i`` is a settled turn by ``find_live_start``'s rule: a final answer
    that is the last message or is followed (system messages aside) by a new user request."""
    if not is_final_answer(history[i]):
        return False
    following = next((history[j] for j in range(i + 1, len(history)) if history[j].get("role") != "system"), None)
    return following is None or opens_new_request(following)


def tool_pairs(history: Sequence[Message]) -> Iterator[tuple[int, str, int | None]]:
    """Yields ``(use_index, tool_use_id, result_index or None)`` for each client tool use.

    The result index is that of the next message when it answers the use, else ``None``.
    """
    for i, message in enumerate(history):
        if message.get("role") != "assistant":
            continue
        following = set(tool_result_ids(history[i + 1])) if i + 1 < len(history) else set()
        for use_id in tool_use_ids(message):
            yield i, use_id, (i + 1 if use_id in following else None)


def unanswered_tool_uses(history: Sequence[Message]) -> list[str]:
    """Returns ids of client tool uses with no result in the next message, in order."""
    return [use_id for _, use_id, result in tool_pairs(history) if result is None]


def reasoning_blocks(history: Iterable[Message]) -> Iterator[tuple[int, int, Block]]:
    """Yields ``(message_index, block_index, block)`` for every reasoning block."""
    for i, message in enumerate(history):
        for j, block in enumerate(blocks(message)):
            if isinstance(block, Mapping) and block.get("type") in REASONING_TYPES:
                yield i, j, block


REASONING_FIELD = {"thinking": "thinking", "redacted_thinking": "data"}  # reasoning block type -> its text field


def fingerprint(text: str) -> str:
    """Returns the first 12 hex digits of the SHA-256 of ``text``."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def reasoning_text(block: Any) -> str | None:
    """Returns the reasoning text (``thinking`` or ``data``) of a reasoning block, else None."""
    if not isinstance(block, Mapping) or block.get("type") not in REASONING_TYPES:
        return None
    value = block.get(REASONING_FIELD[str(block.get("type"))])
    return value if isinstance(value, str) else None


def redact_reasoning(value: Any) -> Any:
    """Returns a copy of plain data in which every reasoning block's text reads as hash and length."""
    if isinstance(value, Mapping):
        text = reasoning_text(value)
        out = {k: redact_reasoning(v) for k, v in value.items()}
        if text is not None:
            out[REASONING_FIELD[str(value.get("type"))]] = f"[#{fingerprint(text)}, {len(text)} chars]"
        return out
    if isinstance(value, (list, tuple)):
        return [redact_reasoning(v) for v in value]
    return value


def describe_block(block: Any) -> str:
    """Returns a short label for a block: its type and id, ``tool_use_id`` or a text prefix."""
    if not isinstance(block, Mapping):
        return type(block).__name__
    kind = str(block.get("type", "?"))
    for key in ("id", "tool_use_id"):
        if key in block:
            return f"{kind} {block[key]}"
    if kind == "text" and isinstance(block.get("text"), str):
        text = block["text"]
        return f"text {text[:24]!r}" + ("..." if len(text) > 24 else "")
    return kind
