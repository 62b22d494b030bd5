"""Each conversation's resent prefix scanned once: a request that names none of the words that make
it worth judging (``Scanned.WORDS``) passes unparsed, and a client resends its whole history with
every call, so the scan of a request that resends one kept here starts where the resent bytes end.

A conversation is told apart by its first ``KEY`` bytes (its first message is there: the SDKs
write ``messages`` first or second); what a request shares with the kept one is found from the
end (the few bytes after the history differ, the history does not), checked byte for byte, so two
conversations that share their first bytes cost a whole scan and never a wrong answer. The least
recently used conversation is dropped past ``conversations`` of them or ``budget`` bytes kept.

JSON may write any character of a key as a ``\\u`` escape (``"\\u0063ontext_management"`` is
``"context_management"``), which no scan of the words finds: a request that writes a letter that
way (``ESCAPED``; the SDKs never do) is never clean.
"""

from __future__ import annotations

import re
from collections import OrderedDict

KEY = 512  # the bytes that tell one conversation from another
STEPS = (0, 64, 512, 4096, 32768)  # how far from the kept request's end a shared prefix is looked for
# An escape of a character from "@" to DEL (the letters and "_" of every word): not of "<", ">" or
# "&", which some encoders escape in any text, nor of a non-ASCII character (``ensure_ascii``).
ESCAPED = re.compile(rb"\\u00[4-7]")


def clean_of(raw: bytes, words: tuple[bytes, ...], start: int = 0) -> bool:
    """Returns whether ``raw`` from ``start`` names none of ``words`` and writes no letter as an
    escape (``ESCAPED``)."""
    for word in words:
        if raw.find(word, start) >= 0:
            return False
    return ESCAPED.search(raw, start) is None


def shared(raw: bytes, kept: bytes) -> int:
    """Returns the length of a prefix of ``kept`` that ``raw`` starts with: ``kept`` less one of
    ``STEPS`` bytes at its end, else 0 (each try one comparison of bytes, no copy)."""
    view = memoryview(kept)
    for step in STEPS:
        length = len(kept) - step
        if length <= KEY:
            break
        if raw.startswith(view[:length]):
            return length
    return 0


class Scanned:
    """The requests a guard scanned and found none of ``words`` in, by conversation."""

    def __init__(self, words: tuple[bytes, ...], conversations: int, budget: int) -> None:
        self.words, self.conversations, self.budget = words, conversations, budget
        self.overlap = max(len(word) for word in words) - 1  # a word may start before the resent bytes end
        self._kept: OrderedDict[bytes, bytes] = OrderedDict()
        self._bytes = 0

    @property
    def kept_bytes(self) -> int:
        """Returns the bytes of requests kept in all (at most ``budget``)."""
        return self._bytes

    def clean(self, raw: bytes) -> bool:
        """Returns whether ``raw`` names none of the words, nor writes a letter as an escape
        (``clean_of``), scanning only what follows the bytes it resends of its conversation's last
        clean request; a clean request is kept for the next."""
        key = raw[:KEY]
        kept = self._kept.pop(key, None)
        if kept is not None:
            self._bytes -= len(kept)
        start = max(shared(raw, kept) - self.overlap, 0) if kept is not None else 0
        if not clean_of(raw, self.words, start):
            return False
        if len(raw) > KEY:  # (a short request costs its scan alone)
            self._kept[key] = raw
            self._bytes += len(raw)
            while self._kept and (len(self._kept) > self.conversations or self._bytes > self.budget):
                _, old = self._kept.popitem(last=False)
                self._bytes -= len(old)
        return True
