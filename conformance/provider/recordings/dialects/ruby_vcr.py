"""Ruby VCR cassettes (YAML or JSON): ``{"http_interactions": [{"request": {"method", "uri",
"body": {"encoding", "string"}, "headers": {"Name": ["value"]}}, "response": {"status": {"code",
"message"}, "headers", "body": {"encoding", "string" | "base64_string"}}, "recorded_at"}],
"recorded_with": "VCR 6.x"}``. Older Ruby YAML marks bytes ``!binary``; the reader's loader reads it.
Python's Betamax writes the same shape as JSON (``"recorded_with": "betamax/0.8.1"``, a header value
a list or a single string), so it is read here too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import entries

NAME = "ruby-vcr"


def recognises(document: Any) -> bool:
    """Returns whether the document has an ``http_interactions`` list."""
    return isinstance(document, Mapping) and isinstance(document.get("http_interactions"), list)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per entry of ``http_interactions``."""
    yield from entries(file, document["http_interactions"], "http_interactions", NAME)
