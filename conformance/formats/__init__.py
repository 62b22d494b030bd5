"""Message formats a compactor under test may speak, by name.

Each entry converts an Anthropic-shaped history to its format and back, losslessly on what the
format carries, and names the reason a history cannot be expressed in it (``Format.why_not``).
``wrap`` turns a target that speaks a format into one the runner can call.
"""

from __future__ import annotations

import importlib.util

from ..errors import UsageError
from . import anthropic, bedrock, google_genai, langchain, openai_chat, openai_responses
from .base import Format, FormatError

FORMATS: dict[str, Format] = {f.name: f for f in (
    anthropic.FORMAT, openai_chat.FORMAT, openai_responses.FORMAT, bedrock.FORMAT, google_genai.FORMAT,
    langchain.FORMAT)}


def get(name: str) -> Format:
    """Returns the format called ``name``; raises ``UsageError`` naming the known ones, or the
    package a format's objects need when it is missing."""
    try:
        fmt = FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; known: {', '.join(FORMATS)}") from None
    if fmt.requires and importlib.util.find_spec(fmt.requires) is None:
        raise UsageError(f"the {name} format needs {fmt.requires}: pip install \"context-conformance[peers]\"")
    return fmt


__all__ = ["FORMATS", "Format", "FormatError", "get"]
