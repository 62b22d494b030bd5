"""Bare response bodies: a file that is one API response as the live API returned it (often
pretty-printed JSON), kept by a project as a fixture. One response-only interaction per file; the
judges decide what the response alone shows.

Recognised: a Messages API message or error (``type: "message"``/``"error"``), a ``count_tokens``
answer (``input_tokens`` beside ``context_management``), a Responses API object (``object``
starting ``response``), a Chat Completions object (``object`` starting ``chat.completion``) and
OpenAI's bare ``{"error": {...}}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction

NAME = "response"


def recognises(document: Any) -> bool:
    """Returns whether the document is one API response body."""
    if not isinstance(document, Mapping):
        return False
    kind, obj = document.get("type"), str(document.get("object") or "")
    if kind == "message" and isinstance(document.get("content"), list):
        return True
    if kind == "error" and isinstance(document.get("error"), Mapping):
        return True
    if isinstance(document.get("input_tokens"), int) and set(document) <= {"input_tokens", "context_management"}:
        return True
    if set(document) == {"error"} and isinstance(document["error"], Mapping):  # OpenAI's error body
        return True
    return obj.startswith(("response", "chat.completion"))


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields the one response-only interaction of the file."""
    status = 400 if document.get("type") == "error" or set(document) == {"error"} else 200
    yield Interaction(file, 0, response=dict(document), status=status, dialect=NAME)
