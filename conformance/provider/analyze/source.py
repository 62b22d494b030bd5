"""Where ``analyze`` gets interactions from, one at a time: whole recordings, or line ranges of a large one.

``interactions(path)`` streams a recording (``recordings.iter_recording`` when the readers offer it:
JSON lines from plain, gzip or zstd streams line by line; other formats as the readers read them).
``splits(path, size)`` cuts an uncompressed JSON-lines file into byte ranges at line starts, and
``range_interactions(path, start, end)`` reads the interactions whose lines start in one of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..recordings import Interaction, RecordingError

GZIP, ZSTD = b"\x1f\x8b", b"\x28\xb5\x2f\xfd"
SPLIT_SIZE = 8 * 1024 * 1024  # a JSON-lines file larger than this is judged in ranges of about this size


def _iter_recording(path: Path) -> Iterator[Interaction]:
    try:
        from ..recordings import iter_recording  # type: ignore[attr-defined]
    except ImportError:  # readers without a streaming interface: JSON lines here, the rest read whole
        if is_json_lines(path):
            yield from _lines(path, 0, path.stat().st_size)
            return
        from ..recordings import read_recording

        yield from read_recording(path)
        return
    yield from iter_recording(path)


def interactions(path: Path) -> Iterator[Interaction]:
    """Yields the interactions of one recording in order; raises ``RecordingError`` when it is unreadable."""
    try:
        path.stat()
    except OSError as exc:
        raise RecordingError(str(path), f"cannot read: {exc.strerror or exc}") from None
    yield from _iter_recording(path)


def is_json_lines(path: Path, limit: int = 1 << 24) -> bool:
    """Returns whether ``path`` is uncompressed JSON lines: its first line (read up to ``limit``
    bytes) is a JSON object with a ``request``, as a record of request and response is."""
    from ... import _json

    try:
        with path.open("rb") as stream:
            line = stream.readline(limit)
            while line and not line.strip():
                line = stream.readline(limit)
    except OSError:
        return False
    if line.startswith((GZIP, ZSTD)) or not line.lstrip().startswith(b"{") or not line.endswith(b"\n"):
        return False
    try:
        record = _json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and "request" in record


def splits(path: Path, size: int = SPLIT_SIZE) -> list[tuple[int, int]]:
    """Returns byte ranges ``[start, end)`` covering the file, each ending after a newline (one range
    for a small file or one that is not JSON lines)."""
    total = path.stat().st_size
    if total <= size or not is_json_lines(path):
        return [(0, total)]
    cuts = [0]
    with path.open("rb") as stream:
        while cuts[-1] + size < total:
            stream.seek(cuts[-1] + size)
            stream.readline()  # to the end of the line the cut falls in
            at = stream.tell()
            if at >= total:
                break
            cuts.append(at)
    return list(zip(cuts, [*cuts[1:], total]))


def lines_before(path: Path, starts: list[int]) -> list[int]:
    """Returns, for each byte offset in ``starts`` (ascending), how many lines the file has before it."""
    found, counted, at = [], 0, 0
    with path.open("rb") as stream:
        for start in starts:
            while at < start:
                chunk = stream.read(min(start - at, 1 << 24))
                if not chunk:
                    break
                counted += chunk.count(b"\n")
                at += len(chunk)
            found.append(counted)
    return found


def range_interactions(path: Path, start: int, end: int) -> Iterator[Interaction]:
    """Yields the interactions whose lines start in ``[start, end)`` of an uncompressed JSON-lines file,
    indexed from 0 within the range (the caller shifts indices and line numbers)."""
    try:
        from ..recordings import iter_jsonl_range  # type: ignore[attr-defined]
    except ImportError:
        yield from _lines(path, start, end)
        return
    yield from iter_jsonl_range(path, start, end)


def _lines(path: Path, start: int, end: int) -> Iterator[Interaction]:
    # Used only until the readers stream: the JSON-lines reader's own rules, line by line.
    from ... import _json
    from ..recordings.containers import _json_line  # type: ignore[attr-defined]

    file, index = str(path), 0
    with path.open("rb") as stream:
        stream.seek(start)
        at = start
        number = 0
        while at < end:
            line = stream.readline()
            if not line:
                break
            at += len(line)
            number += 1
            if not line.strip():
                continue
            try:
                record = _json.loads(line)
            except ValueError as exc:
                yield Interaction(file, index, error=f"line {number} is not JSON: {getattr(exc, 'msg', exc)}")
            else:
                yield _json_line(file, index, record)
            index += 1


def file_size(path: Path) -> int:
    """Returns the size of ``path`` in bytes (0 when it cannot be read)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
