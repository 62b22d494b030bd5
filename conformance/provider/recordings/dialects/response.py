"""Bare response bodies: a file that is one API response as the live API returned it (often
pretty-printed JSON), kept by a project as a fixture. One response-only interaction per file; the
judges decide what the response alone shows.

Recognised: a Messages API message or error (``type: "message"``/``"error"``), a ``count_tokens``
answer (``input_tokens`` beside ``context_management``), a Responses API object (``object``
starting ``response``), a Chat Completions object (``object`` starting ``chat.completion``) and
a bare ``{"error": {...}}`` (OpenAI's; a gateway's, which may carry the service's own error body).
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
    if _error_body(document):
        return True
    return obj.startswith(("response", "chat.completion"))


def _error_body(document: Mapping[str, Any]) -> bool:
    """Returns whether the document is a bare ``{"error": {...}}`` (OpenAI's, or a gateway's, which
    may add who asked: ``user_id``, ``request_id``)."""
    return isinstance(document.get("error"), Mapping) and set(document) - {"error"} <= ERROR_BESIDE


ERROR_BESIDE = {"user_id", "request_id"}  # what a gateway's error body may hold beside ``error``


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields the one response-only interaction of the file: status 200, or for an error body the
    code it gives (``error.code``, a gateway's) or 400."""
    status = 200
    if document.get("type") == "error" or _error_body(document):
        code = document["error"].get("code") if isinstance(document.get("error"), Mapping) else None
        status = code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600 else 400
    yield Interaction(file, 0, response=dict(document), status=status, dialect=NAME)
