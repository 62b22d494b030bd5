"""What a judge remembers of the interactions before the one it judges: a small windowed index.

A judge follows chains (``previous_response_id``, a compaction block carried from an earlier
answer) through ``Earlier`` instead of a list of every interaction: after judging one it ``put``s
the little a later one may need under a key (a response id, a block's hash), and ``get``s it back.
Values are stored as compact JSON bytes, decoded only when asked for, and are forgotten once
``window`` interactions have passed since the one that put them, so memory stays flat however long
the recording is. A chain that reaches further back is a miss (the judge says it cannot tell).

``complete`` is False when the store does not start at the recording's first interaction (a worker
judging a line range of a large file): a miss may then be an entry of an earlier range, so it is
noted in ``misses`` for the caller to judge that interaction again with the earlier ranges' entries.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from ... import _json
from ..recordings import Interaction

DEFAULT_WINDOW = 1000  # interactions an entry stays visible for
VERSIONS = 4  # puts of one key kept, so a chain through a repeated id follows the one before its link


def stand_in(text: str) -> str:
    """Returns a text of the same length as ``text`` that is not it: its hash, repeated. The index
    keeps this in place of reasoning text, so sizes and identity survive and the text does not."""
    if not text:
        return text
    seed = digest(text)
    return (seed * (len(text) // len(seed) + 1))[: len(text)]


def digest(text: str) -> str:
    """Returns a short stable key for a long text (a compaction summary): 16 bytes of BLAKE2b, hex."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class Earlier:
    """The entries judges put, by space and key, visible for ``window`` interactions after their own.

    ``count`` is the index of the interaction being judged (entries put now carry it; the window is
    counted in indices); ``advance()`` moves to the next one. ``len(earlier)`` is ``count``.
    """

    def __init__(self, window: int = DEFAULT_WINDOW, *, complete: bool = True, start: int = 0) -> None:
        self.window = window
        self.complete = complete
        self.count = start
        self.misses: list[tuple[str, str | None]] = []
        # What the guard knows of the request being judged (``conformance.guard.prefix.Resent``: its
        # first messages are its conversation's previous request's, with what judges noted of them),
        # or None (``analyze`` reads each request whole)
        self.resent: Any = None
        # What ``put`` stored while ``count`` is below ``journal_until``, as ``export`` gives it
        # (None: not kept): a range task's own first entries, for the parent to judge some of its
        # interactions again without reading the ones before them
        self.journal: list[tuple[int, str, str, bytes]] | None = None
        self.journal_until = 0
        self._spaces: dict[str, dict[str, list[tuple[int, bytes]]]] = {}
        self._order: deque[tuple[int, str, str]] = deque()

    def __len__(self) -> int:
        return self.count

    def put(self, space: str, key: str, value: Any) -> None:
        """Stores ``value`` (plain JSON data) under ``key``, beside the last ``VERSIONS`` puts of it."""
        raw = _json.dumps(value)
        if self.journal is not None and self.count < self.journal_until:
            self.journal.append((self.count, space, key, raw))
        self._add(space, key, self.count, raw)

    def _add(self, space: str, key: str, index: int, raw: bytes) -> None:
        entries = self._spaces.get(space)
        if entries is None:
            entries = self._spaces[space] = {}
        versions = entries.get(key)
        if versions is None:
            entries[key] = [(index, raw)]
        else:
            versions.append((index, raw))
            if len(versions) > VERSIONS:
                del versions[:-VERSIONS]
        self._order.append((index, space, key))

    def _visible(self, index: int) -> bool:
        return self.count - index <= self.window

    def _entry(self, space: str, key: str, before: int | None) -> tuple[int, bytes] | None:
        entries = self._spaces.get(space)
        versions = entries.get(key) if entries is not None else None
        if not versions:
            return None
        oldest = self.count - self.window  # visible: index >= oldest
        for index, raw in reversed(versions):
            if (before is None or index < before) and index >= oldest:
                return index, raw
        return None

    def get(self, space: str, key: str, before: int | None = None) -> Any | None:
        """Returns the latest value under ``key`` (put before interaction ``before``, when given); None
        when there is none within the window, noted as a miss."""
        entry = self._entry(space, key, before)
        if entry is None:
            self.misses.append((space, key))
            return None
        return _json.loads(entry[1])

    def lookup(self, space: str, key: str, before: int | None = None) -> tuple[int, Any] | None:
        """Returns ``(index_of, get)`` of one entry, found in one look (None, noted as a miss, when there
        is none within the window)."""
        entry = self._entry(space, key, before)
        if entry is None:
            self.misses.append((space, key))
            return None
        return entry[0], _json.loads(entry[1])

    def index_of(self, space: str, key: str, before: int | None = None) -> int | None:
        """Returns the index of the interaction that put the value ``get`` returns (None: not a miss)."""
        entry = self._entry(space, key, before)
        return entry[0] if entry is not None else None

    def advance(self) -> None:
        """Moves to the next interaction: clears ``misses`` and forgets entries past the window."""
        self.settle(self.count + 1)

    def settle(self, count: int) -> None:
        """Moves to interaction ``count``: clears ``misses`` and forgets entries past the window."""
        self.count = count
        self.misses = []
        order, oldest = self._order, count - self.window
        while order and order[0][0] < oldest:  # (not visible any more)
            index, space, key = order.popleft()
            entries = self._spaces.get(space, {})
            versions = entries.get(key)
            if not versions or versions[0][0] > index:
                continue  # (its puts of that interaction are gone already: dropped past VERSIONS, or forgotten)
            if versions[0][0] == index:  # versions are in index order: that interaction's puts lead
                n = 1
                while n < len(versions) and versions[n][0] == index:
                    n += 1
                if n == len(versions):
                    del entries[key]
                else:
                    del versions[:n]
                continue
            kept = [v for v in versions if v[0] != index]  # (put out of index order: found by a scan)
            if kept:
                entries[key] = kept
            else:
                entries.pop(key, None)

    def answers(self, space: str, key: str | None, at: int) -> bool:
        """Returns whether this store holds what a miss at interaction ``at`` looked for (``key`` None: any entry)."""
        entries = self._spaces.get(space, {})
        versions = [v for vs in entries.values() for v in vs] if key is None else entries.get(key, [])
        return any(at - index <= self.window for index, _ in versions)

    def export(self) -> list[tuple[int, str, str, bytes]]:
        """Returns the visible entries as plain tuples (index, space, key, JSON bytes), oldest first."""
        found = [(index, space, key, raw) for space, entries in self._spaces.items()
                 for key, versions in entries.items() for index, raw in versions if self._visible(index)]
        return sorted(found, key=lambda e: e[0])

    def absorb(self, entries: list[tuple[int, str, str, bytes]], offset: int = 0) -> None:
        """Adds exported entries (their indices shifted by ``offset``), in the order given."""
        for index, space, key, raw in entries:
            self._add(space, key, index + offset, raw)


def indexed(earlier: Earlier | Sequence[Interaction], remember: Callable[[Interaction, Earlier], None]) -> Earlier:
    """Returns ``earlier`` itself when it is an index, else an index of those interactions made by ``remember``
    (for callers that hold the interactions before one in a list)."""
    if isinstance(earlier, Earlier):
        return earlier
    store = Earlier(window=max((i.index for i in earlier), default=0) + len(earlier) + 1)
    for item in earlier:
        if item.index > store.count:
            store.settle(item.index)
        remember(item, store)
        store.advance()
    return store
