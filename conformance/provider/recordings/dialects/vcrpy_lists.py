"""vcrpy's cassette dict as a custom serializer receives it, dumped as is (LangChain's ``yaml.gz``
serializer writes this): ``{"requests": [{"method", "uri", "body", "headers"}], "responses":
[{"status": {"code"}, "headers", "body": {"string"}}]}``, the n-th response answering the n-th
request. Bodies are often ``!!binary`` and the whole file gzip-compressed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import interaction, unreadable

NAME = "vcrpy-lists"


def recognises(document: Any) -> bool:
    """Returns whether the document has parallel ``requests`` and ``responses`` lists."""
    return isinstance(document, Mapping) and isinstance(document.get("requests"), list) \
        and isinstance(document.get("responses"), list)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per request, answered by the response at the same index (an unpaired one is unreadable)."""
    requests, responses = document["requests"], document["responses"]
    for index in range(max(len(requests), len(responses))):
        request = requests[index] if index < len(requests) else None
        response = responses[index] if index < len(responses) else None
        if not isinstance(request, Mapping) or not isinstance(response, Mapping):
            side = "requests" if not isinstance(request, Mapping) else "responses"
            yield unreadable(file, index, f"{side}[{index}] is missing or not a mapping "
                             f"({len(requests)} requests, {len(responses)} responses)", dialect=NAME)
            continue
        yield interaction(file, index, request, response, dialect=NAME)
