"""nock recordings (``nock.recorder.rec({output_objects: true})``, nock ``back`` fixtures): a JSON
array of ``{"scope", "method", "path", "body", "status", "response", "rawHeaders"}``. ``body`` and
``response`` are parsed JSON or text; a compressed or binary response is an array of hex chunks
(or one hex string with ``responseIsBinary``); ``rawHeaders`` is a flat name/value list or a mapping.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..model import Interaction
from ..parts import interaction, unreadable

NAME = "nock"


def recognises(document: Any) -> bool:
    """Returns whether the document is a non-empty array of nock definitions (``scope`` and ``path``)."""
    return isinstance(document, list) and bool(document) and all(
        isinstance(d, Mapping) and "scope" in d and "path" in d for d in document)


def headers(raw: Any) -> dict[str, list[str]]:
    """Returns nock's ``rawHeaders`` (flat ``[name, value, ...]`` or a mapping) as name -> values."""
    found: dict[str, list[str]] = {}
    if isinstance(raw, Mapping):
        return {str(k): [str(v) for v in (v if isinstance(v, list) else [v])] for k, v in raw.items()}
    if isinstance(raw, list):
        for name, value in zip(raw[::2], raw[1::2]):
            found.setdefault(str(name), []).append(str(value))
    return found


def _hex(value: Any, binary: bool) -> Any:
    """Returns bytes for an array of hex chunks or a hex string marked binary; the value otherwise."""
    try:
        if isinstance(value, list) and value and all(isinstance(c, str) for c in value):
            return b"".join(bytes.fromhex(c) for c in value)
        if binary and isinstance(value, str):
            return bytes.fromhex(value)
    except ValueError:
        pass  # not hex after all: the body decoder says what it is
    return value


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields one interaction per nock definition (``scope`` + ``path`` is the URL)."""
    for index, entry in enumerate(document):
        scope = str(entry.get("scope") or "").rstrip("/")
        path = str(entry.get("path") or "")
        if not scope:
            yield unreadable(file, index, f"[{index}] has no scope", dialect=NAME)
            continue
        response_headers = headers(entry.get("rawHeaders") or entry.get("headers"))
        body = entry.get("body")
        request = {"body": body if body != "" else None, "headers": headers(entry.get("reqheaders"))}
        response = {"body": _hex(entry.get("response"), bool(entry.get("responseIsBinary"))),
                    "headers": response_headers}
        yield interaction(file, index, request, response, url=scope + path, method=str(entry.get("method") or ""),
                          status=entry.get("status", 200), dialect=NAME)
