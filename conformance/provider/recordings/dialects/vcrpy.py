"""vcrpy cassettes (YAML or JSON serializer; pydantic-ai's ``parsed_body`` variant too):
``{"version": 1, "interactions": [{"request": {"uri", "body", "headers"}, "response": {"status": {"code"}, "body"}}]}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import entries

NAME = "vcrpy"


def recognises(document: Any) -> bool:
    """Returns whether the document has an ``interactions`` list."""
    return isinstance(document, Mapping) and isinstance(document.get("interactions"), list)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per entry of ``interactions``."""
    yield from entries(file, document["interactions"], "interactions", NAME)
