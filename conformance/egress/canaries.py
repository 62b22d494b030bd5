"""Canaries: the declared strings of a conversation, and where in a payload each one turns up.

A canary is found whole, or as a fragment: any ``FRAGMENT`` consecutive characters of it (so the
first 40 characters of a thought, or any long-enough piece, count as found). A finding names the
canary by its id, kind, length and hash and the place it was found, never by its text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .decode import texts

FRAGMENT = 20  # characters: a piece of a canary this long is the canary found
REASONING_TEXT = frozenset({"reasoning-text", "reasoning-summary"})
CIPHERTEXT = frozenset({"signature", "redacted-data", "encrypted-content", "thought-signature"})
CONTENT = frozenset({"answer", "tool-input", "tool-result"})
KINDS = tuple(sorted(REASONING_TEXT | CIPHERTEXT | CONTENT))


@dataclass(frozen=True)
class Canary:
    """One declared string of a conversation: ``id`` (unique in it), ``kind`` (see ``KINDS``), ``value``."""

    id: str
    kind: str
    value: str

    @property
    def digest(self) -> str:
        """Returns the first 12 hex digits of the value's SHA-256: how reports name it."""
        return hashlib.sha256(self.value.encode("utf-8")).hexdigest()[:12]

    def forms(self) -> tuple[str, ...]:
        """Returns the value, for reasoning text also upper- and lower-cased (a log writer that
        changes the case of what it writes), and, for ciphertext written as base64, the text its
        bytes decode to (so a signature re-encoded as hex or raw bytes is still found)."""
        return _forms(self.kind, self.value)

    def fragments(self) -> frozenset[str]:
        """Returns every ``FRAGMENT``-long piece of each form of the value (a form itself when shorter)."""
        pieces: set[str] = set()
        for value in self.forms():
            if len(value) <= FRAGMENT:
                pieces.add(value)
            else:
                pieces.update(value[i:i + FRAGMENT] for i in range(len(value) - FRAGMENT + 1))
        return frozenset(pieces)


# The credential of every request a component sees: the API key of the serializer's ``headers=``
# and of the clients the egress matrix drives; no surface a serializer writes to may carry it.
CREDENTIAL = Canary("api-key", "credential", "sk-egress-canary-Qv7Lm2Xw9Rt4Vb8Nc1Kd6Hf3")


def credential_headers() -> dict[str, str]:
    """Returns the request headers that carry ``CREDENTIAL`` (``x-api-key`` and ``authorization``)."""
    return {"x-api-key": CREDENTIAL.value, "authorization": f"Bearer {CREDENTIAL.value}"}


@lru_cache(maxsize=4096)
def _forms(kind: str, value: str) -> tuple[str, ...]:
    if kind in REASONING_TEXT:
        return tuple(dict.fromkeys((value, value.upper(), value.lower())))
    if kind not in CIPHERTEXT:
        return (value,)
    body = value.rstrip("=")
    try:
        raw = (base64.urlsafe_b64decode if "-" in body or "_" in body else base64.b64decode)(
            body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        return (value,)
    decoded = raw.decode("utf-8", "replace")
    return (value, decoded) if len(decoded) >= FRAGMENT else (value,)


@dataclass(frozen=True)
class Finding:
    """Where a canary turned up: its id, kind, length and hash, the place, and whether it was whole."""

    canary: str
    kind: str
    length: int
    digest: str
    where: str
    whole: bool

    def describe(self) -> str:
        """Returns one line naming the canary and the place, without its text."""
        how = "whole" if self.whole else f"a {FRAGMENT}+ character fragment"
        return (f"{self.kind} canary {self.canary} (sha256 {self.digest}, {self.length} chars) "
                f"found {how} at {self.where}" + (" (the payload itself)" if self.where == "$" else ""))

    def to_dict(self) -> dict[str, Any]:
        """Returns the finding as plain data."""
        return {"canary": self.canary, "kind": self.kind, "length": self.length, "sha256": self.digest,
                "where": self.where, "whole": self.whole}


def find(payload: Any, canaries: Sequence[Canary], *, fragments: bool = True) -> list[Finding]:
    """Returns one finding per canary found in ``payload`` (the first place, whole preferred)."""
    return find_in(texts(payload), canaries, fragments=fragments)


def find_in(found_texts: Iterable[tuple[str, str]], canaries: Sequence[Canary], *,
            fragments: bool = True) -> list[Finding]:
    """Returns one finding per canary found in the ``(where, text)`` pairs, at the innermost place
    it was found whole (a canary in a JSON string is named at its field, not at the string)."""
    pieces = {c.id: c.fragments() for c in canaries} if fragments else {}
    whole: dict[str, Finding] = {}
    partial: dict[str, Finding] = {}
    for where, text in found_texts:
        for canary in canaries:
            if canary.id in whole:  # a place inside the one found (decoded from it) names it better
                if _inside(where, whole[canary.id].where) and any(form in text for form in canary.forms()):
                    whole[canary.id] = _finding(canary, where, True)
                continue
            if any(form in text for form in canary.forms()):
                whole[canary.id] = _finding(canary, where, True)
            elif fragments and canary.id not in partial and _has_piece(text, pieces[canary.id]):
                partial[canary.id] = _finding(canary, where, False)
    return [whole.get(c.id) or partial[c.id] for c in canaries if c.id in whole or c.id in partial]


def _inside(where: str, outer: str) -> bool:
    """Returns whether the place ``where`` lies inside ``outer`` (a key, an index or a decoding of it)."""
    return len(where) > len(outer) and where.startswith(outer) and where[len(outer)] in ".[>"


def _has_piece(text: str, pieces: frozenset[str]) -> bool:
    if len(text) < FRAGMENT:
        return False
    if len(text) > 4 * len(pieces):  # a long text: search it for each piece (in C)
        return any(piece in text for piece in pieces)
    return any(text[i:i + FRAGMENT] in pieces for i in range(len(text) - FRAGMENT + 1))


def _finding(canary: Canary, where: str, whole: bool) -> Finding:
    return Finding(canary.id, canary.kind, len(canary.value), canary.digest, where, whole)
