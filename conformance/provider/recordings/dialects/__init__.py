"""One module per recording dialect, behind one interface, so the next dialect is one more file.

A dialect module has ``NAME``, ``recognises(document) -> bool`` (told by content: the parsed JSON
or YAML document's keys and shapes, never the file name) and ``interactions(file, document)``
(yields ``Interaction``s one at a time). They are registered in the registry's ``dialects`` kind
(pyproject's entry points, ``registry.shipped``): ``registered()`` asks the shipped ones in their
order, the most specific first, then those of installed packages, so a package adds a dialect with
an entry point and no edit here. Two dialects are also read as streams, not documents: JSON lines
(``jsonl.iter_lines``) and SSE captures (``sse_capture.interactions_of_text``); ``..reader``
decides which from the first bytes of the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, Protocol

from .... import registry
from ..model import Interaction


class Dialect(Protocol):
    """What the reader needs of a dialect module."""

    NAME: str

    def recognises(self, document: Any) -> bool:
        """Returns whether the parsed document is a recording in this dialect."""

    def interactions(self, file: str, document: Any) -> Iterator[Interaction]:
        """Yields the interactions of the document, in order."""


@cache
def registered() -> tuple[Dialect, ...]:
    """Returns the dialects in the order they are asked: the shipped ones, then those of installed
    packages; raises ``registry.RegistryError`` for an entry that cannot be loaded."""
    return tuple(registry.load_all("dialects"))


def names() -> tuple[str, ...]:
    """Returns the names of the registered dialects, in the order they are asked."""
    return tuple(d.NAME for d in registered())


def dialect_of(document: Any) -> Dialect | None:
    """Returns the first dialect that recognises ``document``, or None."""
    return next((d for d in registered() if d.recognises(document)), None)
