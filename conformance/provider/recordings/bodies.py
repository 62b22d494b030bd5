"""Decode a recorded body, whatever way the recorder stored it, into JSON data.

Bodies arrive as text, as bytes (YAML ``!!binary``), as base64 text, as vcrpy's ``{"string": ...}``
or Ruby VCR's ``{"base64_string": ...}``, compressed with gzip, brotli or zstd (told by magic
bytes or ``content-encoding``), or already parsed. Event streams (SSE) are handed to ``sse``.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from .model import BodyError
from .sse import is_event_stream, reassemble

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def header(headers: Any, name: str) -> str:
    """Returns the first value of header ``name`` (any case) from a dict of values or lists, or a HAR list."""
    if headers is None:
        return ""
    wanted = name.lower()
    if isinstance(headers, Mapping):
        for key, value in headers.items():
            if str(key).lower() == wanted:
                return str(value[0] if isinstance(value, list) and value else value)
    elif isinstance(headers, list):
        for item in headers:
            if isinstance(item, Mapping) and str(item.get("name", "")).lower() == wanted:
                return str(item.get("value", ""))
    return ""


def _brotli(data: bytes) -> bytes:
    import brotli

    plain: bytes = brotli.decompress(data)  # brotli ships no type hints
    return plain


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def inflate(data: bytes, encoding: str = "") -> bytes:
    """Returns ``data`` decompressed when it is gzip, zstd or (by ``content-encoding``) brotli or deflate.

    Raises ``BodyError`` when the stated or detected compression does not decompress.
    """
    encoding = encoding.lower().strip()
    try:
        if data[:2] == GZIP_MAGIC:
            return gzip.decompress(data)
        if data[:4] == ZSTD_MAGIC:
            return _zstd(data)
        if encoding == "br":
            return _brotli(data)
        if encoding == "deflate":
            return zlib.decompress(data)
        if encoding == "zstd":
            return _zstd(data)
    except Exception as exc:  # noqa: BLE001 - each library raises its own error type for corrupt data
        raise BodyError(f"{encoding or 'compressed'} body does not decompress ({type(exc).__name__})") from exc
    return data


def unpacker(encoding: str) -> Callable[[bytes], bytes] | None:
    """Returns a function that decompresses a body in ``content-encoding`` ``encoding`` (gzip,
    deflate, br, zstd) piece by piece, each call returning what its piece adds (a body cut short gives
    as much as came); None for identity or an encoding it does not know. The function raises
    ``BodyError`` on data that does not decompress."""
    encoding = encoding.lower().strip()
    step: Callable[[bytes], bytes]
    if encoding in ("gzip", "x-gzip", "deflate"):
        step = zlib.decompressobj(47 if encoding != "deflate" else 15).decompress
    elif encoding == "br":
        import brotli

        step = brotli.Decompressor().process
    elif encoding == "zstd":
        import zstandard

        step = zstandard.ZstdDecompressor().decompressobj().decompress
    else:
        return None

    def unpack(piece: bytes) -> bytes:
        try:
            return step(piece)
        except Exception as exc:  # noqa: BLE001 - each library raises its own error type for corrupt data
            raise BodyError(f"{encoding} body does not decompress ({type(exc).__name__})") from exc

    return unpack


def _from_bytes(data: bytes, encoding: str) -> Any:
    inflated = inflate(data, encoding)
    try:
        return _from_text(inflated.decode("utf-8"), encoding, allow_base64=False)
    except (UnicodeDecodeError, BodyError) as exc:
        if encoding or inflated is not data:
            raise BodyError(f"body is not JSON or an event stream after {encoding or 'decompressing'}"
                            if not isinstance(exc, UnicodeDecodeError) else "body is not UTF-8 after decompressing") \
                from None
        try:  # brotli has no magic bytes: try it before giving up
            text = _brotli(data).decode("utf-8")
        except Exception:  # noqa: BLE001 - brotli raises its own error type for data that is not brotli
            raise BodyError("body is binary and neither UTF-8 text nor gzip, zstd or brotli") from None
        return _from_text(text, "br", allow_base64=False)


def _from_text(text: str, encoding: str, *, allow_base64: bool = True) -> Any:
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] in "{[":
        try:
            return json.loads(stripped)
        except ValueError as exc:
            lines = [line for line in stripped.splitlines() if line.strip()]
            try:  # a JSON-lines body (a batch's results): its records, as a list
                if len(lines) > 1:
                    return [json.loads(line) for line in lines]
            except ValueError:
                pass
            raise BodyError(f"body looks like JSON but does not parse: {exc}") from None
    if is_event_stream(stripped):
        return reassemble(text)
    if allow_base64:
        try:
            raw = base64.b64decode(stripped, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if raw:
            return _from_bytes(raw, encoding)
    raise BodyError("body is neither JSON, an event stream nor base64 of either")


def decode(body: Any, encoding: str = "") -> Any:
    """Returns the body as JSON data (an event stream reassembled), ``None`` when empty.

    ``encoding`` is the ``content-encoding`` header. Raises ``BodyError`` when it cannot be decoded.
    """
    if body is None:
        return None
    if isinstance(body, Mapping):
        if "base64_string" in body:
            try:
                return _from_bytes(base64.b64decode(str(body["base64_string"]), validate=True), encoding)
            except (binascii.Error, ValueError) as exc:
                raise BodyError(f"base64_string does not decode: {exc}") from None
        if "string" in body:
            return decode(body["string"], encoding)
        return dict(body)
    if isinstance(body, list):
        return body
    if isinstance(body, (bytes, bytearray, memoryview)):
        return _from_bytes(bytes(body), encoding) if body else None
    if isinstance(body, str):
        return _from_text(body, encoding)
    raise BodyError(f"body of type {type(body).__name__}")
