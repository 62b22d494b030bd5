"""Read a recording file by its content: a vcrpy cassette (YAML or JSON), a HAR 1.2 log, or JSON lines.

Whatever the name says, the bytes decide: a gzip-compressed file is inflated first, a JSON document
with ``log.entries`` is HAR, one with ``interactions`` a cassette, a file of one JSON object per line
JSON lines, and anything else is tried as YAML. Each interaction is decoded on its own, so one
unreadable body is an error of that interaction and the rest are still read.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .bodies import decode, header
from .model import BodyError, Interaction, RecordingError

# Keys under which recorders keep a body they have already parsed (pydantic-ai: ``parsed_body``).
PARSED_KEYS = ("parsed_body", "json", "body_json", "json_body")
BODY_KEYS = ("body", "content", "postData")
WRAPPER_KEYS = frozenset({"headers", "method", "uri", "url", "status", "status_code", "body", "postData",
                          *PARSED_KEYS})
_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _part_body(part: Mapping[str, Any]) -> tuple[Any, str]:
    """Returns (raw body, content-encoding) of a request or response mapping of any recorder."""
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
                        return base64.b64decode(text, validate=True), encoding
                    except ValueError as exc:
                        raise BodyError(f"HAR text marked base64 does not decode: {exc}") from None
                return text, "" if value.get("encoding") != "base64" else encoding
            return value, encoding
    return None, encoding


def _status(response: Mapping[str, Any]) -> int | None:
    status = response.get("status", response.get("status_code", response.get("code")))
    if isinstance(status, Mapping):
        status = status.get("code")
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


def _looks_like_body(part: Mapping[str, Any]) -> bool:
    """Returns whether a mapping is itself an API body, with no recorder's wrapping around it."""
    if set(part) & WRAPPER_KEYS:
        return False
    content = part.get("content")
    return not (isinstance(content, Mapping) and ("mimeType" in content or "text" in content))


def interaction(file: str, index: int, request: Any, response: Any, *, url: str = "",
                method: str = "", status: Any = None) -> Interaction:
    """Returns one decoded interaction; a body that cannot be decoded becomes its ``error``."""
    item = Interaction(file, index, method=method or "POST", url=url)
    request = request if isinstance(request, Mapping) else {}
    response = response if isinstance(response, Mapping) else {}
    item.url = str(request.get("uri") or request.get("url") or url or "")
    item.method = str(request.get("method") or method or "POST").upper()
    item.status = _status(response) if status is None else _status({"status": status})
    for side, part in (("request", request), ("response", response)):
        try:
            if _looks_like_body(part):
                value: Any = dict(part) or None
            else:
                raw, encoding = _part_body(part)
                value = decode(raw, encoding)
        except BodyError as exc:
            kind = header(part.get("headers"), "content-type").lower()
            if kind and "json" not in kind and "event-stream" not in kind:
                item.notes.append(f"{side} body ({kind}) is not JSON; not read")  # an image, a page: not API traffic
            else:
                item.error = f"{side} body: {exc}"
            continue
        setattr(item, side, value)
        if side == "response" and "text/event-stream" in header(part.get("headers"), "content-type"):
            item.streamed = True
    if item.status is None and item.response is not None:
        item.status = 200
    return item


def _cassette(file: str, data: Mapping[str, Any]) -> list[Interaction]:
    items = data.get("interactions")
    if not isinstance(items, list):
        raise RecordingError(file, "'interactions' is not a list")
    found = []
    for index, entry in enumerate(items):
        if not isinstance(entry, Mapping):
            found.append(Interaction(file, index, error=f"interactions[{index}] is not a mapping"))
            continue
        found.append(interaction(file, index, entry.get("request"), entry.get("response")))
    return found


def _har(file: str, data: Mapping[str, Any]) -> list[Interaction]:
    entries = (data.get("log") or {}).get("entries")
    if not isinstance(entries, list):
        raise RecordingError(file, "HAR 'log.entries' is not a list")
    found = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            found.append(Interaction(file, index, error=f"log.entries[{index}] is not an object"))
            continue
        found.append(interaction(file, index, entry.get("request"), entry.get("response")))
    return found


def _json_line(file: str, index: int, record: Any) -> Interaction:
    if not isinstance(record, Mapping) or "request" not in record:
        return Interaction(file, index, error=f"line {index + 1} has no 'request'")
    url = str(record.get("url") or record.get("endpoint") or record.get("path") or "")
    return interaction(file, index, record.get("request"), record.get("response"), url=url,
                       method=str(record.get("method") or ""), status=record.get("status"))


def _json_lines(file: str, text: str) -> list[Interaction]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            found.append(Interaction(file, len(found), error=f"line {number} is not JSON: {exc.msg}"))
            continue
        found.append(_json_line(file, len(found), record))
    return found


def _document(file: str, data: Any) -> list[Interaction]:
    if isinstance(data, Mapping) and isinstance(data.get("log"), Mapping):
        return _har(file, data)
    if isinstance(data, Mapping) and "interactions" in data:
        return _cassette(file, data)
    if isinstance(data, list) and all(isinstance(x, Mapping) and "request" in x for x in data):
        return [_json_line(file, i, x) for i, x in enumerate(data)]
    raise RecordingError(file, "not a recording: expected a vcrpy cassette ('interactions'), a HAR log "
                               "('log.entries') or JSON lines of request and response")


def read_text(file: str, raw: bytes) -> list[Interaction]:
    """Returns the interactions of a recording given as bytes; raises ``RecordingError`` if it is none."""
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise RecordingError(file, f"gzip file does not decompress: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(file, f"not UTF-8 (byte 0x{raw[exc.start]:02x})",
                             raw.count(b"\n", 0, exc.start) + 1) from None
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return _document(file, json.loads(text))
        except ValueError:
            lines = [line for line in text.splitlines() if line.strip()]
            if len(lines) > 1 and lines[0].lstrip().startswith("{"):
                return _json_lines(file, text)
    try:
        data = yaml.load(text, Loader=_YAML)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RecordingError(file, f"neither JSON nor YAML: {str(exc).splitlines()[0]}",
                             mark.line + 1 if mark else 0) from None
    return _document(file, data)


def read_recording(path: Path) -> list[Interaction]:
    """Returns the interactions of the recording at ``path``; raises ``RecordingError`` when unreadable."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RecordingError(str(path), f"cannot read: {exc.strerror or exc}") from None
    return read_text(str(path), raw)
