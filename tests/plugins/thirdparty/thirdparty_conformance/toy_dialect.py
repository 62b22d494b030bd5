"""A recording dialect this project does not ship: the toy client's own exchange log, a JSON object
``{"toylog": 1, "exchanges": [{"url", "sent", "received", "code"}]}`` with the request and response
bodies as parsed JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from conformance.provider.recordings.model import Interaction
from conformance.provider.recordings.parts import interaction, unreadable

NAME = "toylog"


def recognises(document: Any) -> bool:
    """Returns whether the document is a toy exchange log."""
    return isinstance(document, Mapping) and document.get("toylog") == 1 and isinstance(document.get("exchanges"), list)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per exchange, in order."""
    for index, exchange in enumerate(document["exchanges"]):
        if not isinstance(exchange, Mapping):
            yield unreadable(file, index, f"exchanges[{index}] is not an object", dialect=NAME)
            continue
        yield interaction(file, index, json.dumps(exchange.get("sent")), json.dumps(exchange.get("received")),
                          url=str(exchange.get("url", "")), status=exchange.get("code"), dialect=NAME)
