"""A small identity memo for facts computed from a scenario's history, so the checks of one
scenario read the input once instead of once per check.

A fact is a pure function of the history; the memo keeps a reference to each history it holds a
fact of (so its ``id`` is not reused) and recomputes when the list is not the very same object of
the same length. Callers must treat returned facts as read-only. The runner clears it before the
checks of each observation, so a list a target refills in place is never read from an old fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_LIMIT = 32
_FACTS: dict[tuple[Callable[..., Any], int, int], tuple[Any, Any]] = {}


def of_history(fact: Callable[[Any], T], history: Any) -> T:
    """Returns ``fact(history)``, computed once per history list object (and length)."""
    key = (fact, id(history), len(history) if isinstance(history, list) else -1)
    hit = _FACTS.get(key)
    if hit is not None and hit[0] is history:
        return hit[1]
    value = fact(history)
    if len(_FACTS) >= _LIMIT:
        _FACTS.clear()
    _FACTS[key] = (history, value)
    return value


_PAIR: list[Any] = [None, None, None, None]  # fact, first, second, value


def of_pair(fact: Callable[[Any, Any], T], first: Any, second: Any) -> T:
    """Returns ``fact(first, second)``, computed once for the last pair of very same objects."""
    if _PAIR[0] is fact and _PAIR[1] is first and _PAIR[2] is second:
        return _PAIR[3]
    value = fact(first, second)
    _PAIR[:] = [fact, first, second, value]
    return value


def clear() -> None:
    """Forgets every fact held (a benchmark times the checks from cold with it)."""
    _FACTS.clear()
    _PAIR[:] = [None, None, None, None]
