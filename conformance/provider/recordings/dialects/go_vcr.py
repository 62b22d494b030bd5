"""go-vcr cassettes, v1 to v4 (``gopkg.in/dnaeon/go-vcr.v1``-``v4``): YAML with ``version`` and
``interactions``, each request with ``url`` (not vcrpy's ``uri``), ``method``, ``headers`` (lists),
``body`` as text, and each response with ``code`` (an int) beside ``status`` (``"200 OK"``);
v2 on add ``proto``, ``content_length`` and ``duration``, v4 an ``id`` per interaction.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import entries

NAME = "go-vcr"
GO_RESPONSE_KEYS = frozenset({"code", "duration", "proto", "content_length", "uncompressed"})


def recognises(document: Any) -> bool:
    """Returns whether the document is an ``interactions`` cassette whose entries are go-vcr's."""
    if not (isinstance(document, Mapping) and isinstance(document.get("interactions"), list)):
        return False
    first = next((e for e in document["interactions"] if isinstance(e, Mapping)), None)
    if first is None:
        return False
    request = first["request"] if isinstance(first.get("request"), Mapping) else {}
    response = first["response"] if isinstance(first.get("response"), Mapping) else {}
    return ("url" in request and "uri" not in request) or bool(GO_RESPONSE_KEYS & set(response))


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per entry of ``interactions`` (status from ``code`` or ``"200 OK"``)."""
    yield from entries(file, document["interactions"], "interactions", NAME)
