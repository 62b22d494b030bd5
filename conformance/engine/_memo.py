"""Facts computed from a history once for all the checks of one observation, not once per check.

A fact is a pure function of the history (or of a pair of values). Outside a ``shared_facts()``
block every call computes it afresh, so a check called on its own is a pure function of its
arguments; inside one (the runner opens one around the checks of each observation) a fact of the
very same list object, of the same length, is computed once and the block's facts are dropped at
its end, so nothing read in one observation's checks reaches another's (a target may hand back one
list object, refilled, call after call). Callers must treat returned facts as read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

# The facts of the block being run: key -> (the objects the fact was computed of, kept so that
# their ids are not reused within the block; the fact), or None outside a block
_FACTS: ContextVar[dict[tuple[Any, ...], tuple[Any, Any]] | None] = ContextVar("conformance_facts", default=None)
# The facts of single objects (a message), kept by the outermost block across the blocks inside it
# (the agent loop's calls, each a block of its own, share the messages of the history)
_OBJECTS: ContextVar[dict[tuple[Any, ...], tuple[Any, Any]] | None] = ContextVar("conformance_objects", default=None)


@contextmanager
def shared_facts() -> Iterator[None]:
    """Within the block, ``of_history`` and ``of_pair`` compute each fact of the same objects once;
    ``of_object`` too, within the outermost block, across the blocks inside it."""
    token = _FACTS.set({})
    objects = _OBJECTS.set({}) if _OBJECTS.get() is None else None
    try:
        yield
    finally:
        _FACTS.reset(token)
        if objects is not None:
            _OBJECTS.reset(objects)


def of_object(fact: Callable[[Any], T], value: Any) -> T:
    """Returns ``fact(value)``: within ``shared_facts()`` (the outermost block), computed once per
    very same object, such as a message whatever list holds it. The checks run after the target's
    calls, so no object changes while its fact is kept."""
    facts = _OBJECTS.get()
    if facts is None:
        return fact(value)
    key = (fact, id(value))
    hit = facts.get(key)
    if hit is not None and hit[0] is value:
        return hit[1]
    found = fact(value)
    facts[key] = (value, found)
    return found


def of_history(fact: Callable[[Any], T], history: Any) -> T:
    """Returns ``fact(history)``: within ``shared_facts()``, computed once per history list object
    (and length)."""
    facts = _FACTS.get()
    if facts is None:
        return fact(history)
    key = (fact, id(history), len(history) if isinstance(history, list) else -1)
    hit = facts.get(key)
    if hit is not None and hit[0] is history:
        return hit[1]  # (stored by this function for this fact)
    value = fact(history)
    facts[key] = (history, value)
    return value


def of_pair(fact: Callable[[Any, Any], T], first: Any, second: Any) -> T:
    """Returns ``fact(first, second)``: within ``shared_facts()``, computed once per pair of the very
    same objects."""
    facts = _FACTS.get()
    if facts is None:
        return fact(first, second)
    key = (fact, id(first), id(second))
    hit = facts.get(key)
    if hit is not None and hit[0][0] is first and hit[0][1] is second:
        return hit[1]  # (stored by this function for this fact)
    value = fact(first, second)
    facts[key] = ((first, second), value)
    return value
