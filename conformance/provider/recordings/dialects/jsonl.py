"""JSON lines of request/response pairs, as LLM gateways, proxies and SDK middleware write them,
read line by line (``iter_lines``); the same records as one JSON array or one object are a document.

A record may name its parts by any of the common field names: ``request``/``response`` (each a
bare body or a wrapper with ``body``/``headers``/``status``), ``request_body``/``response_body``,
a request body at the top level (``messages`` or ``input``) with its ``response`` beside it, or
OpenAI's batch style (``{"url", "body"}`` for a request, ``{"response": {"status_code", "body"}}``
for a result). A line of stream events (``{"type": "message_start"}``) starts a capture of one
streamed response: every line of the file is an event of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .... import _json
from .. import sse
from ..model import BodyError, Interaction
from ..parts import interaction, unreadable

NAME = "jsonl"
REQUEST_KEYS = ("request", "request_body", "req")
RESPONSE_KEYS = ("response", "response_body", "resp")
# Fields of a record beside a top-level request body that are the logger's, not the request's.
META_KEYS = frozenset({*RESPONSE_KEYS, "status", "status_code", "url", "endpoint", "path", "method", "timestamp",
                       "created_at", "latency", "latency_ms", "duration", "duration_ms", "headers",
                       "response_headers", "request_headers", "error"})


def _first(record: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in record:
            return record[key]
    return None


def parts_of(record: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """Returns (request, response) of one record under the common field names, None when it has neither."""
    request, response = _first(record, REQUEST_KEYS), _first(record, RESPONSE_KEYS)
    if request is None and ("messages" in record or "input" in record):
        request = {k: v for k, v in record.items() if k not in META_KEYS}
    elif request is None and "body" in record and ("url" in record or "custom_id" in record):
        request = record["body"]  # an OpenAI batch input line
    if "request_headers" in record or "response_headers" in record:
        request, response = _with_headers(record, request, response)
    if request is None and response is None:
        return None
    return request, response


def _with_headers(record: Mapping[str, Any], request: Any, response: Any) -> tuple[Any, Any]:
    """Returns (request, response) wrapped with the record's ``request_headers``/``response_headers``."""
    for key, side in (("request_headers", request), ("response_headers", response)):
        if isinstance(record.get(key), Mapping) and side is not None:
            body = side if not (isinstance(side, Mapping) and "body" in side) else side.get("body")
            if key == "request_headers":
                request = {"body": body, "headers": record[key]}
            else:
                response = {"body": body, "headers": record[key]}
    return request, response


def record(file: str, index: int, data: Any, line: int = 0) -> Interaction:
    """Returns the interaction of one record; a record with neither request nor response is unreadable."""
    if not isinstance(data, Mapping):
        where = f"line {line}" if line else f"[{index}]"
        return unreadable(file, index, f"{where} is a JSON {type(data).__name__}, not an object", dialect=NAME,
                          line=line)
    found = parts_of(data)
    if found is None:
        where = f"line {line}" if line else f"[{index}]"
        names = ", ".join(sorted(map(str, data))[:8])
        return unreadable(file, index, f"{where} has no request or response (fields: {names or 'none'})",
                          dialect=NAME, line=line)
    request, response = found
    url = str(data.get("url") or data.get("endpoint") or data.get("path") or "")
    return interaction(file, index, request, response, url=url, method=str(data.get("method") or ""),
                       status=data["status"] if "status" in data else data.get("status_code"), dialect=NAME, line=line)


def recognises(document: Any) -> bool:
    """Returns whether the document is one record or a non-empty array of records."""
    if isinstance(document, Mapping):
        return parts_of(document) is not None and not sse.is_stream_event(document)
    return isinstance(document, list) and bool(document) and all(
        isinstance(x, Mapping) and parts_of(x) is not None for x in document)


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields the interaction of each record of the document."""
    for index, data in enumerate(document if isinstance(document, list) else [document]):
        yield record(file, index, data)


def _parse(number: int, raw: bytes) -> tuple[Any, str | None]:
    try:
        return _json.loads(raw), None  # orjson when installed: the parse is most of reading a line
    except UnicodeDecodeError as exc:
        return None, f"line {number} is not UTF-8 (byte 0x{raw[exc.start]:02x})"
    except ValueError as exc:
        return None, f"line {number} is not JSON: {getattr(exc, 'msg', exc)}"


def iter_lines(file: str, lines: Iterable[tuple[int, bytes]], *, events: bool = True) -> Iterator[Interaction]:
    """Yields one interaction per non-blank line of ``(line number, bytes)``, index ``number - 1``.

    A line that is not JSON or not a record is an unreadable interaction of that line. With
    ``events`` and a first readable record that is a stream event, the whole file is one streamed
    response (unreadable, once, when any of its lines is).
    """
    decided = not events
    pending: list[Interaction] = []  # unreadable lines before the first readable record
    lines = iter(lines)
    for number, raw in lines:
        if not raw or raw.isspace():  # (a blank line, told without copying the line)
            continue
        data, error = _parse(number, raw)
        if error is not None:
            failure = unreadable(file, number - 1, error, dialect=NAME, line=number)
            if decided:
                yield failure
            else:
                pending.append(failure)
            continue
        if not decided:
            decided = True
            if sse.is_stream_event(data):
                yield _event_lines(file, number, data, lines, pending)
                return
            yield from pending
        yield record(file, number - 1, data, number)
    yield from pending if not decided else ()


def _event_lines(file: str, number: int, data: Any, rest: Iterable[tuple[int, bytes]],
                 earlier: list[Interaction]) -> Interaction:
    """Returns the one response-only interaction of a file of stream events, one JSON event per line."""
    stream: list[tuple[str, Any]] = [("", data)]
    errors = [e.error for e in earlier]
    for later, raw in rest:
        if not raw or raw.isspace():  # (a blank line, told without copying the line)
            continue
        parsed, error = _parse(later, raw)
        if error is not None:
            errors.append(error)
            continue
        stream.append(("", parsed))
    if errors:
        return unreadable(file, 0, f"stream event capture: {errors[0]}"
                          + (f" (and {len(errors) - 1} more line(s))" if len(errors) > 1 else ""),
                          dialect="sse-events", line=earlier[0].line if earlier else number)
    return response_only(file, stream, "sse-events")


def response_only(file: str, stream: list[tuple[str, Any]], dialect: str) -> Interaction:
    """Returns the one response-only interaction of a captured event stream (unreadable if it does not assemble)."""
    try:
        body = sse.from_events(stream)
    except BodyError as exc:
        return unreadable(file, 0, f"event stream: {exc}", dialect=dialect)
    item = Interaction(file, 0, response=body, status=200, streamed=True, dialect=dialect)
    return item
