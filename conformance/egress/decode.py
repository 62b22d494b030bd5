"""Every readable text of a payload, however it is nested or encoded, each with where it was found.

A payload is whatever a serializer returned: text, bytes, JSON-like data, objects (read through
``model_dump``, ``to_dict``, dataclass fields, else ``repr``) or a list of stream events. ``texts``
yields ``(where, text)`` for every string in it, for what each string decodes to (JSON inside a
string, base64 and base64url, base85 and Ascii85, gzip, zlib, xz and bzip2, UTF-16, base32, hex (spaced or not), code points, URL and HTML escaping, JSON string escapes), and for
the strings that sit at the same place of consecutive items joined in order (a text split across
stream events). A payload that is a stream (``streams``) is also read event by event, by its
protocol's schema, each text named by event index, type and field. Plain data in, plain data out; nothing here knows about canaries.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import dataclasses
import html
import json
import lzma
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote_plus

from .streams import events, places

MAX_DEPTH = 5  # decodings inside decodings
MAX_TEXT = 4_000_000  # characters of one decoded text read at most
MAX_NODES = 200_000  # values of one payload walked at most
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){20,}")
_SPACED_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}[ :-]){19,}[0-9a-fA-F]{2}")  # bytes.hex(" "), a MAC-style dump
_BASE32_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9])")
# base85 (``base64.b85encode``) and Ascii85 (``a85encode``, ``<~...~>`` framed or not): 25 characters
# are 20 bytes, a fragment; a run may start inside a word glued to it (``thought=``), so it is tried
# from each of its first five characters
_BASE85_RUN = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{25,}")
_ASCII85_RUN = re.compile(r"[!-uz]{25,}")
# a character of each alphabet that base64 and identifiers lack: 50 characters of either encoding
# hold one but once in millions, and a run without one (a base64 run, a long word) is not decoded
_BASE85_MARK = re.compile(r"[!#$%&()*;<>?@^`{|}~]")
_ASCII85_MARK = re.compile(r"[!-*,.:;<>?@\[\\\]^`]")
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")  # (tab, newline and return are text)
_NUMBER = re.compile(r"\d+")
_JSON_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\[\"\\/bfnrt]")
_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\/": "/", "\\b": "\b", "\\f": "\f", "\\n": "\n", "\\r": "\r", "\\t": "\t"}


def plain(value: Any, depth: int = 0) -> Any:
    """Returns ``value`` as JSON-like data: objects through their own dump methods, else ``repr``."""
    if value is None or isinstance(value, (str, bytes, bool, int, float)):
        return value
    if depth > 60:
        return repr(value)
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    for method in ("model_dump", "to_dict", "dict"):
        dump = getattr(value, method, None)
        if callable(dump):
            try:
                return plain(dump(mode="json") if method == "model_dump" else dump(), depth + 1)
            except Exception:  # noqa: BLE001 - any object a target returns
                try:
                    return plain(dump(), depth + 1)
                except Exception:  # noqa: BLE001 - any object a target returns
                    continue
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {"__repr__": repr(value), **{str(k): plain(v, depth + 1) for k, v in vars(value).items()}}
    declared = [getattr(cls, "__slots__", ()) for cls in type(value).__mro__]
    slots = [name for names in declared for name in ((names,) if isinstance(names, str) else names)
             if isinstance(name, str) and not name.startswith("__")]
    if slots:  # an object whose fields are slots: its repr may say nothing of them
        return {"__repr__": repr(value), **{name: plain(getattr(value, name, None), depth + 1) for name in slots}}
    if isinstance(value, Iterator):  # a generator inside the payload: read as the list it gives
        return [plain(item, depth + 1) for item, _ in zip(value, range(MAX_NODES))]
    return repr(value)


def texts(payload: Any) -> Iterator[tuple[str, str]]:
    """Yields ``(where, text)`` for every text readable in ``payload`` (see the module docstring)."""
    yield from read(payload)[0]


def read(payload: Any) -> tuple[list[tuple[str, str]], bool]:
    """Returns every ``(where, text)`` of ``payload`` and whether it was read whole (False when it
    is larger than the search reads: a payload not read whole is never judged clean)."""
    budget = [MAX_NODES]
    data = plain(payload)
    found: list[tuple[str, str]] = []
    stream = events(data)
    if stream is not None:  # a stream: its events by their protocol's schema first, so a find names the event
        for where, text in places(*stream):
            found.extend(_text(text, where, 0, budget))
    found.extend(_walk(data, "$", 0, budget))
    whole = budget[0] >= 0 and all(len(text) < MAX_TEXT for _, text in found)
    return found, whole


def _walk(value: Any, where: str, depth: int, budget: list[int]) -> Iterator[tuple[str, str]]:
    budget[0] -= 1
    if budget[0] < 0:
        return
    if isinstance(value, str):
        yield from _text(value, where, depth, budget)
    elif isinstance(value, bytes):
        yield from _bytes(value, where, depth, budget)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _text(key, f"{where}.<key>", depth, budget)
            yield from _walk(item, f"{where}.{key}", depth, budget)
        for place, text in _numbered(value, where):
            yield from _text(text, place, depth + 1, budget)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, f"{where}[{i}]", depth, budget)
        if len(value) >= 20 and all(type(v) is int and 0 <= v < 0x110000 for v in value):
            yield from _text("".join(map(chr, value)), f"{where}>code-points", depth + 1, budget)
        for place, text in _joined(value, where):  # (a text split in pieces is decoded once whole)
            yield from (_text(text, place, depth + 1, budget) if place.endswith("(joined)") else [(place, text)])
    elif value is not None and not isinstance(value, bool | int | float):
        yield where, str(value)


def _numbered(mapping: dict[str, Any], where: str) -> Iterator[tuple[str, str]]:
    """Yields, per family of keys that differ only by a number (``content.0``, ``content.1``: a
    text spread over flattened attributes), their string values joined in the numbers' order."""
    families: dict[str, list[tuple[int, str]]] = {}
    for key, item in mapping.items():
        if isinstance(item, str):
            number = _NUMBER.search(key)
            if number is not None:
                families.setdefault(_NUMBER.sub("#", key, count=1), []).append((int(number.group()), item))
    for family, parts in families.items():
        if len(parts) > 1:
            yield f"{where}.{family} (joined)", "".join(text for _, text in sorted(parts))


def _joined(items: list[Any], where: str) -> Iterator[tuple[str, str]]:
    """Yields, per place inside the items (a path with the item index left out), the strings at
    that place in consecutive items joined in order: a text streamed as deltas reads whole here."""
    if len(items) < 2:
        return
    groups: dict[str, list[str]] = {}
    for item in items:
        for place, text in _leaves(item, ""):
            groups.setdefault(place, []).append(text)
    for place, parts in groups.items():
        if len(parts) > 1:
            yield f"{where}[*]{place} (joined)", "".join(parts)
            yield f"{where}[*]{place} (joined by spaces)", " ".join(parts)


def _leaves(value: Any, place: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """Yields ``(place, text)`` for every string inside ``value``, and inside the JSON a string
    holds: lines of JSON, one JSON document (an event logged as a JSON line, a frame's text), or
    one in base64 (an event's bytes on Bedrock's wire), so that the same field of consecutive
    events joins (``_joined``)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        yield place, value
        if depth < 3:
            for k, record in enumerate(_records(value)):
                yield from _leaves(record, f"{place}>line", depth + 1)
            document = _document(value)
            if document is not None:
                yield from _leaves(document, f"{place}>json", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{place}.{key}", depth)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, f"{place}[]", depth)


def _text(text: str, where: str, depth: int, budget: list[int]) -> Iterator[tuple[str, str]]:
    text = text[:MAX_TEXT]
    yield where, text
    if depth >= MAX_DEPTH or len(text) < 4:
        return
    stripped = text.strip()
    if stripped[:1] in "{[\"":
        try:
            inner = json.loads(stripped)
        except ValueError:
            inner = None
        if inner is not None and not isinstance(inner, str) or isinstance(inner, str) and inner != text:
            yield from _walk(inner, f"{where}>json", depth + 1, budget)
    records = _records(text)
    if records:
        yield from _walk(records, f"{where}>lines", depth + 1, budget)
    if "\\" in text and _JSON_ESCAPE.search(text):
        unescaped = _JSON_ESCAPE.sub(_unescape_one, text)
        if unescaped != text:
            yield from _text(unescaped, f"{where}>unescaped", depth + 1, budget)
    if "%" in text or "+" in text:
        unquoted = unquote_plus(text)
        if unquoted != text:
            yield from _text(unquoted, f"{where}>url-decoded", depth + 1, budget)
    if "&" in text:
        unescaped = html.unescape(text)
        if unescaped != text:
            yield from _text(unescaped, f"{where}>html-unescaped", depth + 1, budget)
    for match in _HEX_RUN.finditer(text):
        yield from _bytes(bytes.fromhex(match.group()), f"{where}>hex", depth + 1, budget)
    for match in _SPACED_HEX_RUN.finditer(text):
        yield from _bytes(bytes.fromhex(re.sub(r"[ :-]", "", match.group())), f"{where}>hex", depth + 1, budget)
    for match in _BASE32_RUN.finditer(text):
        run = match.group()
        try:
            raw32 = base64.b32decode(run + "=" * (-len(run) % 8) if "=" not in run else run)
        except (binascii.Error, ValueError):
            raw32 = None
        if raw32 is not None:
            yield from _bytes(raw32, f"{where}>base32", depth + 1, budget)
    for name, pattern, mark, decode in _BASE85:
        for match in pattern.finditer(text):
            raw85 = _base85(match.group(), decode) if mark.search(match.group(), 0, 55) else None
            if raw85 is not None:
                yield from _bytes(raw85, f"{where}>{name}", depth + 1, budget)
    for match in _BASE64_RUN.finditer(text):
        for run in _runs(match.group()):
            raw = _base64(run)
            if raw is not None:
                yield from _bytes(raw, f"{where}>base64", depth + 1, budget)


_BASE85: tuple[tuple[str, re.Pattern[str], re.Pattern[str], Callable[[str], bytes]], ...] = (
    ("base85", _BASE85_RUN, _BASE85_MARK, base64.b85decode), ("ascii85", _ASCII85_RUN, _ASCII85_MARK, base64.a85decode))


def _base85(run: str, decode: Callable[[str], bytes]) -> bytes | None:
    """Returns what a base85 or Ascii85 run decodes to, from the first of its first five
    characters (one per alignment of its groups of five) where the bytes are text (nine in ten
    characters printable UTF-8) or compressed; None when none is (a run of ordinary text, or of
    another encoding, decodes to noise). Only 50 characters are decoded until one start looks
    right: the run's first ones, and its last ones of the same alignment (a word glued before the
    encoded bytes, ``reasoning_blob=``, is of the alphabet too and decodes to noise at the head)."""
    for start in range(min(5, len(run) - 24)):
        tail = start + (len(run) - start - 50) // 5 * 5
        for at in dict.fromkeys((start, max(tail, start))):
            try:
                window = decode(run[at:at + 50])
            except ValueError:
                continue
            if _inflated(window) is not None and at == start or _looks_like_text(window[:len(window) - 3]):
                return _decoded_from(run, start, at, decode)  # (the end of a cut character above)
    return None


def _decoded_from(run: str, start: int, at: int, decode: Callable[[str], bytes]) -> bytes | None:
    """Returns ``run`` decoded from the earliest of ``start``, ``start + 5``, ... ``at`` from which
    it decodes (a word glued before the encoded bytes may not: an Ascii85 group past 2**32), found
    by halving (what decodes from one start decodes from every later one); None when none does."""
    low, high, found = 0, (at - start) // 5, None
    while low <= high:
        middle = (low + high) // 2
        try:
            decoded = decode(run[start + middle * 5:])
        except ValueError:
            low = middle + 1
        else:
            found, high = decoded, middle - 1  # (the last found is from the earliest start that decodes)
    return found


def _looks_like_text(raw: bytes) -> bool:
    """Returns whether ``raw`` is UTF-8 whose characters are at least nine in ten printable (no
    control character, no byte that is not UTF-8)."""
    text = raw.decode("utf-8", "replace")
    return bool(text) and len(_UNPRINTABLE.findall(text)) * 10 <= len(text)


def _runs(run: str) -> list[str]:
    """Returns a base64 run and, where it begins with a path (``share/<state>``: ``/`` is a base64
    character), what follows each ``/`` of its first 64 characters."""
    cuts = [i + 1 for i, c in enumerate(run[:64]) if c == "/"][:4]
    return [run, *(run[i:] for i in cuts if len(run) - i >= 16)]


_BASE64_WHOLE = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")


def _document(text: str) -> Any:
    """Returns the JSON object or array that the one-line ``text`` is, or that it holds in base64;
    None when it is neither."""
    stripped = text.strip()
    if "\n" in stripped or len(stripped) < 2:
        return None
    if stripped[0] not in "{[" and len(stripped) % 4 == 0 and _BASE64_WHOLE.fullmatch(stripped):
        try:
            stripped = base64.b64decode(stripped).decode("utf-8").strip()
        except (ValueError, UnicodeDecodeError):
            return None
    if stripped[:1] not in ("{", "[") or stripped[-1:] not in ("}", "]"):
        return None
    try:
        found = json.loads(stripped)
    except ValueError:
        return None
    return found if isinstance(found, dict | list) else None


def _records(text: str) -> list[Any]:
    """Returns the JSON values of a text's lines (server-sent ``data:`` lines or JSON lines), or []
    when fewer than one line is JSON or the text is one line."""
    if "\n" not in text.strip() and not text.lstrip().startswith("data:"):
        return []
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("data:"):
            line = line[5:].strip()
        if line[:1] in "{[":
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def _unescape_one(match: re.Match[str]) -> str:
    token = match.group()
    if token.startswith("\\u"):
        return chr(int(token[2:], 16))
    return _ESCAPES[token]


def _base64(run: str) -> bytes | None:
    """Returns the bytes a base64 or base64url run decodes to, or None when it is not one."""
    body = run.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _inflated(raw: bytes) -> tuple[str, bytes] | None:
    """Returns the name of the compression ``raw`` starts with (by its magic bytes: gzip, zlib, xz,
    bzip2) and as much of it as decompresses (a stream cut short, as a live log file holds, gives
    what came), or None."""
    if raw[:2] == b"\x1f\x8b":  # every member, as in a log appended to in gzip members
        out = b""
        try:
            while raw[:2] == b"\x1f\x8b" and len(out) < MAX_TEXT:
                member = zlib.decompressobj(31)
                out += member.decompress(raw, MAX_TEXT - len(out))
                raw = member.unused_data
        except zlib.error:
            pass
        return ("gzip", out) if out else None
    if raw[:1] == b"\x78":
        try:
            return "zlib", zlib.decompressobj().decompress(raw, MAX_TEXT)
        except zlib.error:
            return None
    if raw[:6] == b"\xfd7zXZ\x00" or raw[:3] == b"BZh":
        name, unpacked = ("xz", lzma.LZMADecompressor()) if raw[:1] == b"\xfd" else ("bzip2", bz2.BZ2Decompressor())
        try:
            return name, unpacked.decompress(raw, MAX_TEXT)
        except (OSError, EOFError, ValueError):
            return None
    return None


def _bytes(raw: bytes, where: str, depth: int, budget: list[int]) -> Iterator[tuple[str, str]]:
    raw = raw[:MAX_TEXT]
    inflated = _inflated(raw)
    if inflated is not None:
        yield from _bytes(inflated[1][:MAX_TEXT], f"{where}>{inflated[0]}", depth + 1, budget)
    if len(raw) >= 8 and raw.count(0) * 4 >= len(raw):  # (ASCII in UTF-16: every other byte 0, from either byte)
        for start in (0, 1):
            yield from _text(raw[start:].decode("utf-16-le", "replace").lstrip("\ufeff"), f"{where}>utf-16",
                             depth + 1, budget)
    text = raw.decode("utf-8", "replace")
    if depth >= MAX_DEPTH:
        yield where, text
        return
    yield from _text(text, where, depth, budget)
