"""HAR 1.2 logs, as browsers and proxies (mitmproxy, Charles, Fiddler) export them:
``{"log": {"entries": [{"request": {"url", "postData": {"text"}}, "response": {"status", "content": {"text", "encoding"}}}]}}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import entries

NAME = "har"


def recognises(document: Any) -> bool:
    """Returns whether the document has a ``log`` with an ``entries`` list."""
    return isinstance(document, Mapping) and isinstance(document.get("log"), Mapping) \
        and isinstance(document["log"].get("entries"), list)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per entry of ``log.entries``."""
    yield from entries(file, document["log"]["entries"], "log.entries", NAME)
