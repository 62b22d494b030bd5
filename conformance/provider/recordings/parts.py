"""Build one ``Interaction`` from a recorder's request and response mappings, whatever recorder wrote them.

Every dialect hands its request and response here: a wrapper with ``headers`` and a body under
``body``/``content``/``postData`` (text, bytes, base64, compressed, or already parsed under
``parsed_body``/``json``), or a bare API body with no wrapper. Each body is decoded on its own, so
one unreadable body is an error of that interaction and the rest of the file is still read.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from .bodies import decode, header
from .model import BodyError, Interaction

# Keys under which recorders keep a body they have already parsed (pydantic-ai: ``parsed_body``).
PARSED_KEYS = ("parsed_body", "json", "body_json", "json_body")
BODY_KEYS = ("body", "content", "postData")
WRAPPER_KEYS = frozenset({"headers", "method", "uri", "url", "status", "status_code", "body", "postData",
                          *PARSED_KEYS})
STATUS = re.compile(r"\s*(\d{3})\b")


def har_encoding(data: bytes, encoding: str) -> str:
    """Returns the content-encoding to apply to the bytes of HAR text marked base64: none when they
    are UTF-8 text, as HAR 1.2 writes a body (decoded, "decompressed & unchunked", base64 being
    only how the text is written), else ``encoding`` (bytes as they crossed the wire, which Polly.JS's
    node-http adapter keeps). Compressed bytes are all but never valid UTF-8, and gzip and zstd are
    told by their magic bytes either way."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return encoding
    return ""


def part_body(part: Mapping[str, Any]) -> tuple[Any, str]:
    """Returns (raw body, content-encoding) of a request or response mapping of any recorder (for
    HAR text marked base64, the encoding ``har_encoding`` gives).

    Raises ``BodyError`` for HAR text marked base64 that does not decode.
    """
    encoding = header(part.get("headers"), "content-encoding")
    for key in PARSED_KEYS:
        if isinstance(part.get(key), (dict, list)):
            return part[key], ""
    for key in BODY_KEYS:
        if key in part and part[key] is not None:
            value = part[key]
            if key in ("content", "postData") and isinstance(value, Mapping) and "text" in value:
                text = value.get("text")  # HAR: {"mimeType", "text", "encoding": "base64"?}
                if value.get("encoding") == "base64" and isinstance(text, str):
                    try:
                        data = base64.b64decode(text, validate=True)
                    except ValueError as exc:
                        raise BodyError(f"HAR text marked base64 does not decode: {exc}") from None
                    return data, har_encoding(data, encoding)
                return text, "" if value.get("encoding") != "base64" else encoding
            return value, encoding
    return None, encoding


def status_of(value: Any) -> int | None:
    """Returns an HTTP status from ``200``, ``"200"``, ``"200 OK"`` or ``{"code": 200}``; None otherwise."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, Mapping):
        value = value.get("code")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    match = STATUS.match(str(value)) if value is not None else None
    return int(match.group(1)) if match else None


def _status(response: Mapping[str, Any]) -> int | None:
    """Returns the HTTP status a response mapping names (``status``, ``status_code`` or ``code``), or None."""
    found = response.get("status")
    if isinstance(found, int):  # (the common case, told at once)
        return found
    for key in ("status", "status_code", "code"):
        found = status_of(response.get(key))
        if found is not None:
            return found
    return None


CARRIER_KEYS = frozenset({"headers", "body", "postData", *PARSED_KEYS})


def looks_like_body(part: Mapping[str, Any]) -> bool:
    """Returns whether a mapping is itself an API body, with no recorder's wrapping around it.

    An API object (a string ``type`` or ``object``) is a body even with a ``status`` of its own
    (a Responses API ``"status": "completed"``), unless it carries headers or a body.
    """
    if not CARRIER_KEYS.isdisjoint(part):
        return False
    if isinstance(part.get("type"), str) or isinstance(part.get("object"), str):
        return True
    if not WRAPPER_KEYS.isdisjoint(part):
        return False
    content = part.get("content")
    return not (content is not None and isinstance(content, Mapping) and ("mimeType" in content or "text" in content))


def _body(part: Mapping[str, Any]) -> Any:
    """Returns the decoded body of a request or response mapping; raises ``BodyError``."""
    if isinstance(part, dict) and "headers" not in part and "parsed_body" not in part:
        body = part.get("json")  # (a gateway's parsed body: what part_body would pick, found at once)
        if isinstance(body, dict):  # (the record's own, read once: kept, not copied)
            return body if "base64_string" not in body and "string" not in body else decode(body)
    if looks_like_body(part):
        return dict(part) or None
    raw, encoding = part_body(part)
    return decode(raw, encoding)


def interaction(file: str, index: int, request: Any, response: Any, *, url: str = "",
                method: str = "", status: Any = None, dialect: str = "", line: int = 0) -> Interaction:
    """Returns one decoded interaction; a body that cannot be decoded becomes its ``error``.

    ``request`` or ``response`` may be None (a partial record): that side stays None.
    """
    has_request = request is not None
    if not isinstance(request, dict):
        request = {"body": request} if isinstance(request, (str, bytes)) else request
        request = request if isinstance(request, Mapping) else {}
    if not isinstance(response, dict):
        response = {"body": response} if isinstance(response, (str, bytes)) else response
        response = response if isinstance(response, Mapping) else {}
    item = Interaction(file, index, method=str(request.get("method") or method or "POST").upper(),
                       url=str(request.get("uri") or request.get("url") or url or ""), dialect=dialect, line=line,
                       status=_status(response) if status is None else status_of(status))
    if has_request:
        try:
            item.request = _body(request)
        except BodyError as exc:
            _not_read(item, "request", request, exc)
    if response:
        try:
            item.response = _body(response)
        except BodyError as exc:
            _not_read(item, "response", response, exc)
        else:
            if "headers" in response and "text/event-stream" in header(response["headers"], "content-type"):
                item.streamed = True
    if item.status is None and item.response is not None:
        item.status = 200
    return item


def _not_read(item: Interaction, side: str, part: Mapping[str, Any], exc: BodyError) -> None:
    """Notes on ``item`` why one side's body was not read: its ``error``, or a note for a body that
    is not JSON (an image, a page: not API traffic)."""
    kind = header(part.get("headers"), "content-type").lower()
    if kind and "json" not in kind and "event-stream" not in kind:
        item.notes.append(f"{side} body ({kind}) is not JSON; not read")
    else:
        item.error = f"{side} body: {exc}"


def unreadable(file: str, index: int, message: str, *, dialect: str = "", line: int = 0) -> Interaction:
    """Returns the interaction of a record that cannot be read at all (``unreadable``, with the reason)."""
    return Interaction(file, index, error=message, dialect=dialect, line=line, unreadable=True)


def entries(file: str, items: Any, where: str, dialect: str, request_key: str = "request",
            response_key: str = "response") -> list[Interaction]:
    """Returns one interaction per mapping of ``items`` (a list at ``where``); a non-mapping is unreadable."""
    found = []
    for index, entry in enumerate(items):
        if not isinstance(entry, Mapping):
            found.append(unreadable(file, index, f"{where}[{index}] is not a mapping", dialect=dialect))
            continue
        found.append(interaction(file, index, entry.get(request_key), entry.get(response_key), dialect=dialect))
    return found
