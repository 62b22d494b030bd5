"""One egress component: a library's own serializer or store, fixed settings, one surface."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

from ...peers.base import InstalledLibrary
from ...engine.transcript import blocks  # noqa: F401 - the adapters read messages through it


@dataclass(frozen=True)
class Component(InstalledLibrary):
    """A real library's code that writes a conversation somewhere, as the matrix runs it."""

    name: str       # stable id, e.g. ``haystack-ai.ChatMessage.to_dict``
    library: str    # the distribution, as pip names it
    component: str  # the library's class, function or method
    setting: str    # the settings the adapter fixes, as the library spells them
    surface: str    # the row of the table of surfaces its output goes to
    format: str     # the egress format its callable takes
    callable: str   # ``module:attr``: a serializer, or for ``task-record`` a store factory
    module: str     # the importable module that shows the library is installed
    stops: str = ""  # the library's own setting that stops the leak, when it has one
    needs: tuple[str, ...] = ()  # the servers its store runs on (``servers.POSTGRES``, ``servers.REDIS``)


def tool_result_text(block: Mapping[str, Any]) -> str:
    """Returns the text of an Anthropic tool_result block."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


PIECE = 13  # characters of one synthesized stream delta: shorter than a canary fragment


def pieces(text: str) -> list[str]:
    """Returns ``text`` cut into the ``PIECE``-character deltas a synthesized stream sends it as."""
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)]


def sse(events: list[dict[str, Any]]) -> bytes:
    """Returns ``events`` as server-sent events, each named by its ``type`` (as the Messages and
    Responses APIs send them)."""
    import json

    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
