"""One egress component: a library's own serializer or store, fixed settings, one surface."""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Component:
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

    @property
    def installed(self) -> bool:
        """Returns whether the library can be imported."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except ModuleNotFoundError:
            return False

    @property
    def version(self) -> str | None:
        """Returns the installed version of the library, or None."""
        try:
            return importlib.metadata.version(self.library)
        except importlib.metadata.PackageNotFoundError:
            return None


def blocks(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Yields the content blocks of an Anthropic message (a string content as one text block)."""
    content = message.get("content")
    if isinstance(content, str):
        yield {"type": "text", "text": content}
        return
    for block in content or []:
        if isinstance(block, dict):
            yield block


def tool_result_text(block: dict[str, Any]) -> str:
    """Returns the text of an Anthropic tool_result block."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))
