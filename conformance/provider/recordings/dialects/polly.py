"""Polly.JS recordings (``recording.har`` of ``@pollyjs/persister-fs``): HAR 1.2 with Polly's own
fields (``log._recordingName``, ``creator.name: "Polly.JS"``, ``_id``/``_order`` per entry). The
node-http adapter stores a binary (e.g. gzip) response as ``content.encoding: "base64"`` with
``text`` a JSON array of base64 chunks, which is joined here before the body is decoded.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import interaction, unreadable

NAME = "polly"


def recognises(document: Any) -> bool:
    """Returns whether the document is a HAR log written by Polly.JS."""
    log = document.get("log") if isinstance(document, Mapping) else None
    if not isinstance(log, Mapping) or not isinstance(log.get("entries"), list):
        return False
    creator = log["creator"] if isinstance(log.get("creator"), Mapping) else {}
    first = next((e for e in log["entries"] if isinstance(e, Mapping)), {})
    return "polly" in str(creator.get("name", "")).lower() or "_recordingName" in log \
        or ("_id" in first and "_order" in first)


def _joined(content: Mapping[str, Any]) -> Mapping[str, Any]:
    """Returns ``content`` with a JSON array of base64 chunks joined into one base64 text."""
    text = content.get("text")
    if content.get("encoding") != "base64" or not isinstance(text, str) or not text.lstrip().startswith("["):
        return content
    try:
        chunks = json.loads(text)
        joined = b"".join(base64.b64decode(c, validate=True) for c in chunks)
    except (ValueError, TypeError, binascii.Error):
        return content  # left as it is: the body decoder names what is wrong with it
    return {**content, "text": base64.b64encode(joined).decode("ascii")}


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per entry of ``log.entries``, chunked binary bodies joined."""
    for index, entry in enumerate(document["log"]["entries"]):
        if not isinstance(entry, Mapping):
            yield unreadable(file, index, f"log.entries[{index}] is not an object", dialect=NAME)
            continue
        response = entry.get("response")
        if isinstance(response, Mapping) and isinstance(response.get("content"), Mapping):
            response = {**response, "content": _joined(response["content"])}
        yield interaction(file, index, entry.get("request"), response, dialect=NAME)
