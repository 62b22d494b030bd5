"""Keep reasoning text out of every report: thinking blocks show as type, short hash and length only.

Reasoning is unreviewed generated content; a report may name a thinking block but never quote it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .results import CheckResult
from .transcript import REASONING_FIELD, REASONING_TYPES, describe_block, fingerprint, reasoning_text

__all__ = ["Redactor", "block_label", "fingerprint", "forms_of", "native_secrets", "safe_block", "secret_of",
           "secrets_in"]
_MIN_SECRET = 4
# a piece of reasoning copied into other text is caught from 30 characters on: every piece that
# long holds one of the 20-character chunks taken every 10 characters
_CHUNK, _CHUNK_STEP = 20, 10
# A quoted "thinking"/"data" value in repr or JSON text (deepdiff lines, messages): replaced whole.
_QUOTED_FIELD = re.compile(r"""(['"](?:thinking|data)['"]\s*:\s*)(['"])(?:\\.|(?!\2).)*\2""", re.DOTALL)


def secret_of(block: Any) -> str | None:
    """Returns the reasoning text (``thinking`` or ``data``) of a reasoning block, else None."""
    return reasoning_text(block)


def block_label(block: Any) -> str:
    """Returns a short label for a block; a reasoning block reads as its type, hash and length."""
    secret = secret_of(block)
    if isinstance(block, Mapping) and block.get("type") in REASONING_TYPES:
        if secret is None:
            return str(block.get("type"))
        return f"{block.get('type')} #{fingerprint(secret)} ({len(secret)} chars)"
    return describe_block(block)


def safe_block(block: Any) -> Any:
    """Returns a copy of ``block`` whose reasoning text is replaced by its hash and length."""
    secret = secret_of(block)
    if secret is None or not isinstance(block, Mapping):
        return block
    field = REASONING_FIELD[str(block.get("type"))]
    return {**block, field: f"[{fingerprint(secret)}, {len(secret)} chars]"}


def secrets_in(messages: Any) -> Iterable[str]:
    """Yields the reasoning text of every reasoning block found anywhere inside ``messages``."""
    pending, seen = [messages], set()  # ``seen``: garbage output may hold itself
    while pending:
        value = pending.pop()
        kind = type(value)
        if kind is str or value is None:
            continue
        if id(value) in seen:
            continue
        seen.add(id(value))
        if kind is dict or (kind is not list and isinstance(value, Mapping)):
            secret = secret_of(value)
            if secret is not None:
                yield secret
            pending.extend(value.values())
        elif kind is list or isinstance(value, (list, tuple)):
            pending.extend(value)


def native_secrets(output: Any) -> list[str]:
    """Returns the reasoning text and ciphertext of the items a target returned in its own message
    format (an output carrying its format as ``fmt`` and the items as ``native``, read by the
    format's ``reasoning_in``): a summary the Anthropic view drops included. None for any other output."""
    reasoning_in = getattr(getattr(output, "fmt", None), "reasoning_in", None)
    return reasoning_in(getattr(output, "native", None)) if callable(reasoning_in) else []


def forms_of(secret: str) -> tuple[str, ...]:
    """Returns the ways a text can appear inside other text: raw, repr-escaped, JSON-escaped."""
    return (secret, repr(secret)[1:-1], json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1])


class Redactor:
    """Replaces known reasoning texts (raw, repr- or JSON-escaped) and quoted thinking fields in strings."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # (in the order given, not a set's: a form two texts share, a chunk, is then redacted the
        # same way in every process, whatever its hash seed)
        kept = [s for s in dict.fromkeys(secrets) if len(s) >= _MIN_SECRET]
        self._hashes: dict[str, str] = {}
        for secret in kept:  # a form two texts share is named by the first of them
            for form in forms_of(secret):
                self._hashes.setdefault(form, fingerprint(secret))
        self._forms = sorted(self._hashes, key=len, reverse=True)
        self._chunks = list(dict.fromkeys(form[i:i + _CHUNK] for form in self._forms
                                          for i in range(0, len(form) - _CHUNK + 1, _CHUNK_STEP)))

    def text(self, value: str) -> str:
        """Returns ``value`` with every reasoning text, and every piece of one of 30 characters or
        more, replaced by a hash placeholder."""
        value = _QUOTED_FIELD.sub(lambda m: f"{m.group(1)}{m.group(2)}[redacted]{m.group(2)}", value)
        for form in self._forms:
            if form in value:
                value = value.replace(form, self._placeholder(form))
        for chunk in self._chunks:
            while (at := value.find(chunk)) != -1:
                # texts can share a chunk ("Step 1: ...", "Step 10: ..."): the piece is cut out
                # whole by whichever text holding it (anywhere) it extends furthest in
                value = self._cut_piece(value, at, chunk, [f for f in self._forms if chunk in f])
        return value

    def _placeholder(self, form: str) -> str:
        return f"[redacted thinking #{self._hashes.get(form, '')}]"

    def _cut_piece(self, value: str, at: int, chunk: str, forms: list[str]) -> str:
        """Returns ``value`` with the longest piece of any of ``forms`` around ``value[at:]`` replaced."""
        best: tuple[int, int, str] | None = None
        for form in forms:
            k = form.find(chunk)
            left = 0
            while at - left > 0 and k - left > 0 and value[at - left - 1] == form[k - left - 1]:
                left += 1
            end, form_end = at + len(chunk), k + len(chunk)
            right = 0
            while end + right < len(value) and form_end + right < len(form) and value[end + right] == form[form_end + right]:
                right += 1
            if best is None or left + right > best[0] + best[1]:
                best = (left, right, form)
        assert best is not None
        left, right, form = best
        return value[: at - left] + self._placeholder(form) + value[at + len(chunk) + right:]

    def data(self, value: Any) -> Any:
        """Returns a copy of plain data with every string passed through ``text``."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {k: self.data(safe_block(value)[k]) for k in value}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value

    def result(self, result: CheckResult) -> CheckResult:
        """Returns ``result`` with its message and details redacted."""
        return dataclasses.replace(result, message=self.text(result.message), details=self.data(result.details))
