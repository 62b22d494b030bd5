"""Terminal text at most 100 columns wide."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterable

WIDTH = 100


def fit(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """Returns ``lines`` with each line longer than ``width`` wrapped at spaces (cut where it has
    none), its continuation lines indented two spaces past the line's own indent."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
            continue
        out += _wrapped(line, width)
    return out


@functools.lru_cache(maxsize=4096)
def _wrapped(line: str, width: int) -> tuple[str, ...]:
    """Returns the lines ``fit`` wraps one long line into (a report repeats its evidence lines: each
    distinct one is wrapped once)."""
    indent = line[: len(line) - len(line.lstrip(" "))]
    return tuple(textwrap.wrap(line, width, subsequent_indent=indent + "  ", break_on_hyphens=False,
                               replace_whitespace=False, drop_whitespace=True) or [line[:width]])


def plural(n: int, word: str, many: str | None = None) -> str:
    """Returns ``n`` and ``word``, in the plural unless ``n`` is 1 ("1 message", "2 findings")."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def _said_with_a_vowel(number: str) -> bool:
    """Returns whether the number written ``number`` (its digits) is said starting with a vowel
    sound: eight..., eleven, eighteen (and eleven or eighteen thousand, million...)."""
    return number.startswith("8") or (len(number) % 3 == 2 and number.startswith(("11", "18")))


def article(word: str) -> str:
    """Returns ``word`` after "a" or "an", as it is said ("an int", "a str", "an assistant", "a user",
    "an 8-step task", "a 12-step task", "an 11-message history")."""
    w = word.lower()
    digits = w[: len(w) - len(w.lstrip("0123456789"))]
    if digits:
        return f"{'an' if _said_with_a_vowel(digits) else 'a'} {word}"
    vowel = w[:1] in ("a", "e", "i", "o") or (
        w[:1] == "u" and not w.startswith(("use", "usa", "uni", "uu", "uri", "url")))
    return f"{'an' if vowel or w.startswith(('hour', 'honest')) else 'a'} {word}"


def a_type(value: object) -> str:
    """Returns the name of ``value``'s type after its article ("an int", "a NoneType")."""
    return article(type(value).__name__)
