"""Read a recording file by its content, one interaction at a time: the one dispatcher over ``dialects``.

Whatever the name says, the bytes decide. A gzip or zstd file is read through its decompressor.
A file that starts with ``event:``/``data:`` is an SSE capture (one response); one whose first
line is a whole JSON object with more lines after it is JSON lines, read line by line and never
whole; any other file is one JSON or YAML document, given to the first dialect that recognises it.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import IO, Any

import yaml

from . import dialects, sse
from .dialects import jsonl, sse_capture
from .model import Interaction, RecordingError

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
HEAD = 1 << 16  # bytes read to decide the dialect
# What ``analyze`` and ``audit`` read in a folder (a file given by name is read whatever it is called).
RECORDING_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".ndjson", ".har", ".sse", ".gz", ".zst")
CHUNK = 1 << 20


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]  # libyaml's loader when built, else the pure one
    """The safe YAML loader, plus Ruby's ``!binary`` tag (base64 bytes) that older Ruby VCR writes."""


_Loader.add_constructor("!binary", yaml.SafeLoader.construct_yaml_binary)
_Loader.add_constructor("tag:yaml.org,2002:binary", yaml.SafeLoader.construct_yaml_binary)
YAML_LOADER = _Loader

Opener = Callable[[], IO[bytes]]


def _decompressed(file: str, raw: IO[bytes]) -> IO[bytes]:
    """Returns ``raw`` read through gzip or zstd when its magic bytes say so (it must be seekable)."""
    magic = raw.read(4)
    raw.seek(0)
    if magic[:2] == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]  # a binary file object, read as IO[bytes]
    if magic == ZSTD_MAGIC:
        import zstandard

        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True))
    return raw


def _read(file: str, stream: IO[bytes], size: int = -1) -> bytes:
    try:
        return stream.read(size)
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError; zstd raises ZstdError (a ValueError)
        raise RecordingError(file, f"does not decompress: {exc}") from None
    except ValueError as exc:
        raise RecordingError(file, f"does not decompress: {exc}") from None


def _numbered(file: str, stream: IO[bytes], first: int = 1) -> Iterator[tuple[int, bytes]]:
    number = first
    while True:
        try:
            line = stream.readline()
        except (OSError, EOFError, ValueError) as exc:
            raise RecordingError(file, f"does not decompress after line {number - 1}: {exc}", number) from None
        if not line:
            return
        yield number, line
        number += 1


def _first_line(file: str, stream: IO[bytes]) -> bytes:
    """Returns the first non-blank line of ``stream`` (with the blank lines before it)."""
    found = b""
    while True:
        try:
            line = stream.readline()
        except (OSError, EOFError, ValueError) as exc:
            raise RecordingError(file, f"does not decompress: {exc}") from None
        found += line
        if not line or line.strip():
            return found


def _is_json_lines(head: bytes) -> bool:
    """Returns whether the first line is a whole JSON object and something follows it."""
    first, _, rest = head.lstrip().partition(b"\n")
    if not first.startswith(b"{") or not rest.strip():
        return False
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def _text(file: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RecordingError(file, f"not UTF-8 (byte 0x{raw[exc.start]:02x})",
                             raw.count(b"\n", 0, exc.start) + 1) from None


def _load(file: str, text: str) -> Any:
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text)
        except ValueError:
            pass  # YAML is a superset of JSON's flow style; let it say where the problem is
    try:
        return yaml.load(text, Loader=YAML_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise RecordingError(file, f"neither JSON nor YAML: {str(exc).splitlines()[0]}",
                             mark.line + 1 if mark else 0) from None


def _document(file: str, data: Any) -> Iterator[Interaction]:
    dialect = dialects.dialect_of(data)
    if dialect is None and isinstance(data, dict):
        for key, what in (("interactions", "a list"), ("http_interactions", "a list"), ("log", "a HAR log")):
            if key in data:
                raise RecordingError(file, f"{key!r} is not {what}")
    if dialect is None:
        raise RecordingError(file, "not a recording in any known dialect (" + ", ".join(dialects.names()) + ")")
    yield from dialect.interactions(file, data)


def iter_opened(file: str, opener: Opener) -> Iterator[Interaction]:
    """Yields the interactions of the recording ``opener`` opens (a fresh binary stream each call).

    Raises ``RecordingError`` (before the first interaction) when the file is no recording at all.
    """
    with opener() as raw:
        stream = _decompressed(file, raw)
        head = _first_line(file, stream)  # the whole first line, however long, then a little more
        head += _read(file, stream, HEAD)
        stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if not stripped:
            raise RecordingError(file, "empty file")
        lines = _is_json_lines(stripped)
        text = "" if lines else _text(file, head + _read(file, stream))
    if lines:
        with opener() as again:
            yield from jsonl.iter_lines(file, _numbered(file, _decompressed(file, again)))
        return
    if sse_capture.recognises_text(text):
        yield from sse_capture.interactions_of_text(file, text)
        return
    try:
        data = _load(file, text)
    except RecordingError:
        first_lines = [line for line in text.splitlines() if line.strip()][:20]
        if len(first_lines) > 1 and any(_is_json_lines(line.encode() + b"\n{}") for line in first_lines):
            yield from jsonl.iter_lines(file, ((n, line.encode()) for n, line in enumerate(text.splitlines(), 1)))
            return
        raise
    yield from _document(file, data)


def iter_recording(path: Path) -> Iterator[Interaction]:
    """Yields the interactions of the recording at ``path`` one at a time (JSON lines stream line by line).

    Raises ``RecordingError`` when the file cannot be read or is no recording.
    """
    def opener() -> IO[bytes]:
        try:
            return open(path, "rb")
        except OSError as exc:
            raise RecordingError(str(path), f"cannot read: {exc.strerror or exc}") from None

    yield from iter_opened(str(path), opener)


def read_recording(path: Path) -> list[Interaction]:
    """Returns the interactions of the recording at ``path``; raises ``RecordingError`` when unreadable."""
    return list(iter_recording(path))


def read_text(file: str, raw: bytes) -> list[Interaction]:
    """Returns the interactions of a recording given as bytes; raises ``RecordingError`` if it is none."""
    return list(iter_opened(file, lambda: io.BytesIO(raw)))


def _line_at(file: str, handle: IO[bytes], start: int, lines_before: int | None = None) -> tuple[int, int]:
    """Returns (offset, line number) of the first line that starts at or after ``start``; with
    ``lines_before`` (the newlines before ``start``, known to a caller that cut there) no counting."""
    if start <= 0:
        return 0, 1
    if lines_before is not None:
        handle.seek(start - 1)
        if handle.read(1) == b"\n":
            return start, lines_before + 1
    newlines, done = 0, 0
    handle.seek(0)
    while done < start:
        chunk = handle.read(min(CHUNK, start - done))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        done += len(chunk)
    handle.seek(start - 1)
    if handle.read(1) == b"\n":
        return start, newlines + 1
    rest = handle.readline()  # the line that started before ``start`` belongs to the worker before
    return start + len(rest), newlines + 1 + (1 if rest.endswith(b"\n") else 0)


def iter_jsonl_range(path: Path, start: int, end: int, lines_before: int | None = None,
                     only: Collection[int] | None = None) -> Iterator[Interaction]:
    """Yields the interactions of the JSON-lines file at ``path`` whose lines start in bytes ``[start, end)``
    (of those, with ``only``, the ones whose index it holds: the other lines are not parsed).

    Splits a large uncompressed file across workers: every line belongs to exactly one range, and
    index and line number are those ``iter_recording`` gives (``lines_before``, the newlines before
    ``start`` when the caller counted them, saves reading the file up to it). Raises
    ``RecordingError`` for a compressed file, a file of stream events (one response, not to be
    split) or one that cannot be opened.
    """
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise RecordingError(str(path), f"cannot read: {exc.strerror or exc}") from None
    with handle:
        if handle.read(4)[:2] in (GZIP_MAGIC, ZSTD_MAGIC[:2]):
            raise RecordingError(str(path), "byte ranges need an uncompressed JSON-lines file")
        handle.seek(0)
        first = _first_line(str(path), handle)
        try:
            event = sse.is_stream_event(json.loads(first))
        except ValueError:
            event = False
        if event:
            raise RecordingError(str(path), "a file of stream events is one response: read it whole with "
                                            "iter_recording, not by byte range")
        offset, number = _line_at(str(path), handle, start, lines_before)
        handle.seek(offset)

        last = max(only, default=-1) + 1 if only is not None else None  # (the line number past which none is wanted)

        def lines() -> Iterator[tuple[int, bytes]]:
            position, current = offset, number
            while position < end and (last is None or current <= last):
                line = handle.readline()
                if not line:
                    return
                if only is None or current - 1 in only:  # (index: line number - 1)
                    yield current, line
                position += len(line)
                current += 1

        yield from jsonl.iter_lines(str(path), lines(), events=False)
