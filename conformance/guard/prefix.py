"""Each conversation's resent prefix decoded once: a client resends its whole history with every call,
so the guard keeps, per conversation, the previous request's bytes, where its messages end in them,
and their decoded values, and decodes only what follows them.

A request continues a conversation when its bytes start with the kept ones up to the end of their
messages and go on with another message or the end of the list: JSON is read left to right, so
equal bytes up to there mean equal values up to there, and the rest is decoded alone
(``{"messages":[`` and the bytes after the kept ones form a document of their own). Where the kept
messages end is known exactly: the decoded messages, written again as the SDKs write them
(compact, UTF-8), are compared with the bytes they came from, once a second request of the
conversation comes (so a request no other follows costs its decoding alone), and then a continued
request's new messages only; where no writing matches (another writer), every request of the
conversation is decoded whole. The result is the value a whole decode gives, keys in the same order.

Conversations are told apart by their bytes up to the end of their first message; the least
recently used one is dropped past ``conversations`` of them or ``budget`` bytes of requests kept in
all, so memory stays bounded. Each conversation also has ``notes``, where the judges keep what they
found in its messages (``Resent``); they are emptied whenever a request does not continue it.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from collections.abc import Iterator
from typing import Any

from .. import _json

HEAD = b'"messages":['
SEEK = 4096  # the SDKs send ``messages`` first or second: a request whose list starts later is decoded whole
CONVERSATIONS = 32
BUDGET = 32 * 1024 * 1024  # bytes of requests kept in all (their decoded values take a few times more)
UNCHECKED, UNREADABLE = -1, -2  # a kept request whose messages' end is not found yet, or cannot be


class Resent:
    """What the judges are told of one request: its first ``count`` messages are the previous request's
    of the same conversation, unchanged, and ``notes`` is that conversation's dict for what a judge
    found in them (kept while the conversation goes on, emptied when it does not). ``messages`` is the
    request's list the two describe (a judge checks it holds that very list)."""

    __slots__ = ("count", "messages", "notes")

    def __init__(self, count: int, messages: list[Any], notes: dict[str, Any]) -> None:
        self.count, self.messages, self.notes = count, messages, notes


class _Kept:
    """One conversation's last request: its bytes, where its messages end in them (the offset of
    the list's "]"; or ``UNCHECKED``, ``UNREADABLE``), the length of its first message, the fields
    before ``messages`` (once checked), the decoded messages and the judges' notes."""

    __slots__ = ("end", "first", "head", "messages", "notes", "raw")

    def __init__(self, raw: bytes, end: int, first: int, head: dict[str, Any], messages: list[Any],
                 notes: dict[str, Any]) -> None:
        self.raw, self.end, self.first, self.head, self.messages, self.notes = raw, end, first, head, messages, notes


def _writings(values: list[Any]) -> Iterator[bytes]:
    """Yields ``values`` as the SDKs write a JSON array (compact separators, UTF-8 unescaped): by
    orjson, then, where that differs from the bytes, by the standard library's writer, the SDKs'
    own (none it cannot write: a NaN, a lone surrogate)."""
    if _json.PARSER == "orjson":
        try:
            yield _json.dumps(values)
        except (TypeError, ValueError, RecursionError):
            pass
    try:
        yield json.dumps(values, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        return


def _may_name_messages(raw: bytes, start: int) -> bool:
    """Returns whether the bytes from ``start`` may hold a key ``messages`` (written plainly or with
    escapes): a top-level one there would be a second, whose value a whole decode keeps."""
    return raw.find(b"\"messages\"", start) >= 0 or raw.find(b"\\u", start) >= 0


class Conversations:
    """The guard's decoder of request bodies, keeping each conversation's decoded prefix."""

    def __init__(self, conversations: int = CONVERSATIONS, budget: int = BUDGET) -> None:
        self.conversations, self.budget = conversations, budget
        self._kept: OrderedDict[bytes, _Kept] = OrderedDict()
        self._bytes = 0
        self._firsts: Counter[int] = Counter()  # the kept conversations' first messages' lengths in bytes
        self.hits = 0  # requests whose prefix was not decoded again

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def kept_bytes(self) -> int:
        """Returns the bytes of requests kept in all (at most ``budget``)."""
        return self._bytes

    def decode(self, raw: bytes) -> tuple[Any, Resent | None]:
        """Returns the decoded request and what the judges may know of its resent prefix: None when
        nothing of it is kept, a count of 0 when it starts a conversation (what the judges note is
        kept for the next request); raises what ``_json.loads`` raises."""
        at = raw.find(HEAD, 0, SEEK)
        if at < 0 or raw[:1] != b"{":
            return _json.loads(raw), None
        start = at + len(HEAD)
        key, kept = b"", None
        for first in self._firsts:
            key = raw[:start + first]
            kept = self._kept.get(key)
            if kept is not None:
                break
        if kept is not None and kept.end == UNCHECKED:
            self._check(kept, at, start)
        if kept is not None and kept.end >= 0:
            continued = self._continued(raw, kept)
            if continued is not None:
                value, end = continued
                self.hits += 1
                self._store(key, _Kept(raw, end, kept.first, kept.head, value["messages"], kept.notes))
                return value, Resent(len(kept.messages), value["messages"], kept.notes)
        value = _json.loads(raw)
        messages = value.get("messages") if isinstance(value, dict) else None
        if isinstance(messages, list) and messages:
            first = self._first(raw, start, messages[0])
            if first:
                key = raw[:start + first]
                unreadable = kept is not None and kept.end == UNREADABLE and kept.first == first
                notes: dict[str, Any] = {}
                self._store(key, _Kept(raw, UNREADABLE if unreadable else UNCHECKED, first, {}, messages, notes))
                if not unreadable:  # (what the judges note now serves the next request)
                    return value, Resent(0, messages, notes)
        return value, None

    def _check(self, kept: _Kept, at: int, start: int) -> None:
        """Finds where a conversation's first kept request's messages end in its bytes (once, when a
        request comes that may continue it: a request no other follows costs no more than its
        decoding), or marks it ``UNREADABLE``."""
        kept.end = UNREADABLE
        head = self._head(kept.raw, at)
        if head is None:
            return
        for written in _writings(kept.messages):
            end = start - 1 + len(written) - 1
            if kept.raw.startswith(written, start - 1) and not _may_name_messages(kept.raw, end):
                kept.head, kept.end = head, end  # (the list's "[" is at start - 1, its "]" at end)
                return

    def _continued(self, raw: bytes, kept: _Kept) -> tuple[dict[str, Any], int] | None:
        """Returns the request decoded from the kept prefix and its own rest, with where its messages
        end in its bytes; None when it does not continue it, when its new messages' bytes are not
        their writing, or when its fields after the messages may name ``messages`` again (a whole
        decode keeps the last of two)."""
        end = kept.end
        if len(raw) <= end or not raw.startswith(memoryview(kept.raw)[:end]):
            return None
        after = raw[end]
        if after == 0x2C:  # ",": more messages
            rest = HEAD + raw[end + 1:]
        elif after == 0x5D:  # "]": the list ends there
            rest = HEAD + raw[end:]
        else:
            return None
        try:
            tail = _json.loads(b"{" + rest)
        except ValueError:
            return None  # (a whole decode says what is wrong with it)
        if not isinstance(tail, dict) or not isinstance(tail.get("messages"), list):
            return None
        new = tail["messages"]
        last = -1
        for written in _writings(new):
            if not new:  # raw[end] is the list's "]"
                last = end
            elif raw.startswith(memoryview(written)[1:], end + 1):  # (after the comma)
                last = end + len(written) - 1
            if last >= 0:
                break
        if last < 0 or raw[last:last + 1] != b"]" or _may_name_messages(raw, last):
            return None
        value = dict(kept.head)
        value["messages"] = kept.messages + new
        for name, field in tail.items():
            if name != "messages":
                value[name] = field
        return value, last

    @staticmethod
    def _head(raw: bytes, at: int) -> dict[str, Any] | None:
        """Returns the fields before ``messages`` when ``at`` is where the top-level object's
        ``messages`` starts (its bytes before then and an empty list make a document), else None."""
        if _may_name_messages(raw[:at], 0):
            return None
        try:
            head = _json.loads(raw[:at] + b'"messages":[]}')
        except ValueError:
            return None
        if not isinstance(head, dict):
            return None
        del head["messages"]
        return head

    @staticmethod
    def _first(raw: bytes, start: int, message: Any) -> int:
        """Returns the length in bytes of the first message as ``raw`` holds it from ``start``, or 0
        when no writing of it matches them."""
        for written in _writings([message]):
            if raw.startswith(memoryview(written)[1:-1], start):
                return len(written) - 2
        return 0

    def _store(self, key: bytes, kept: _Kept) -> None:
        """Keeps ``kept`` under ``key`` (in place of what was kept there), the most recently used,
        dropping the least recently used past the bounds."""
        old = self._kept.get(key)
        if old is not None and old.first == kept.first:  # (a conversation going on: its first message kept)
            self._kept[key] = kept
            self._kept.move_to_end(key)
            self._bytes += len(kept.raw) - len(old.raw)
        else:
            self._drop(key)
            self._kept[key] = kept
            self._bytes += len(kept.raw)
            self._firsts[kept.first] += 1
        while self._kept and (len(self._kept) > self.conversations or self._bytes > self.budget):
            _, old = self._kept.popitem(last=False)
            self._forget(old)

    def _drop(self, key: bytes) -> None:
        kept = self._kept.pop(key, None)
        if kept is not None:
            self._forget(kept)

    def _forget(self, kept: _Kept) -> None:
        self._bytes -= len(kept.raw)
        self._firsts[kept.first] -= 1
        if not self._firsts[kept.first]:
            del self._firsts[kept.first]
