"""One module per recording dialect, behind one interface, so the next dialect is one more file.

A dialect module has ``NAME``, ``recognises(document) -> bool`` (told by content: the parsed JSON
or YAML document's keys and shapes, never the file name) and ``interactions(file, document)``
(yields ``Interaction``s one at a time). ``DIALECTS`` is the order they are asked in, the most
specific first. Two dialects are also read as streams, not documents: JSON lines
(``jsonl.iter_lines``) and SSE captures (``sse_capture.interactions_of_text``); ``..reader``
decides which from the first bytes of the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from ..model import Interaction
from . import go_vcr, har, jsonl, nock, polly, response, ruby_vcr, sse_capture, vcrpy, vcrpy_lists


class Dialect(Protocol):
    """What the reader needs of a dialect module."""

    NAME: str

    def recognises(self, document: Any) -> bool:
        """Returns whether the parsed document is a recording in this dialect."""

    def interactions(self, file: str, document: Any) -> Iterator[Interaction]:
        """Yields the interactions of the document, in order."""


DIALECTS: tuple[Dialect, ...] = (ruby_vcr, go_vcr, vcrpy, vcrpy_lists, polly, har, nock, sse_capture, jsonl,  # type: ignore[assignment]
                                 response)
NAMES = tuple(d.NAME for d in DIALECTS)


def dialect_of(document: Any) -> Dialect | None:
    """Returns the first dialect that recognises ``document``, or None."""
    return next((d for d in DIALECTS if d.recognises(document)), None)
