"""Where ``analyze`` gets interactions from, one at a time: whole recordings, or line ranges of a large one.

``interactions(path)`` streams a recording (``recordings.iter_recording``: JSON lines from plain,
gzip or zstd streams line by line, other dialects entry by entry). ``splits(path, size)`` cuts an
uncompressed JSON-lines file into byte ranges at line starts, and ``range_interactions`` reads the
interactions whose lines start in one of them, with the indices and line numbers of the whole file.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Collection, Iterator
from pathlib import Path

from ..recordings import Interaction, iter_jsonl_range, iter_recording

GZIP, ZSTD = b"\x1f\x8b", b"\x28\xb5\x2f\xfd"
CHUNK = 1 << 24  # the bytes of the file mapped at a time while cutting it
SPLIT_SIZE = 32 * 1024 * 1024  # a JSON-lines file larger than this is judged in ranges of about this size


def interactions(path: Path) -> Iterator[Interaction]:
    """Yields the interactions of one recording in order; raises ``RecordingError`` when it is unreadable."""
    return iter_recording(path)


def is_json_lines(path: Path, limit: int = 1 << 24) -> bool:
    """Returns whether ``path`` is uncompressed JSON lines of records, which byte ranges may split: its
    first line (read up to ``limit`` bytes) is a JSON object with a request or response, not a stream
    event (a file of events is one streamed response, read whole)."""
    from ... import _json
    from ..recordings import sse
    from ..recordings.dialects.jsonl import parts_of

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
    return isinstance(record, dict) and parts_of(record) is not None and not sse.is_stream_event(record)


def splits(path: Path, size: int = SPLIT_SIZE) -> list[tuple[int, int, int]]:
    """Returns byte ranges ``(start, end, newlines before start)`` covering the file, each cut just
    after a newline, found in one pass over memory maps of ``CHUNK`` bytes of it, one at a time
    (one range for a small file or one that is not JSON lines)."""
    total = path.stat().st_size
    if total <= size or not is_json_lines(path):
        return [(0, total, 0)]
    cuts, newlines, want = [(0, 0)], 0, size
    step = -(-CHUNK // mmap.ALLOCATIONGRANULARITY) * mmap.ALLOCATIONGRANULARITY  # (a map starts on a page)
    with path.open("rb") as stream:
        for offset in range(0, total, step):
            with mmap.mmap(stream.fileno(), min(step, total - offset), access=mmap.ACCESS_READ, offset=offset) as view:
                find = view.find  # (memchr from one newline to the next: no copy, no count of each byte)
                at = find(b"\n")
                while at >= 0:
                    newlines += 1  # the newlines up to this one
                    cut = offset + at + 1
                    if cut > want and cut < total:  # just after the first newline at or past the size wanted
                        cuts.append((cut, newlines))
                        want = cut + size
                    at = find(b"\n", at + 1)
    ends = [c for c, _ in cuts[1:]] + [total]
    return [(start, end, before) for (start, before), end in zip(cuts, ends)]


def range_interactions(path: Path, start: int, end: int, lines_before: int | None = None,
                       only: Collection[int] | None = None) -> Iterator[Interaction]:
    """Yields the interactions whose lines start in ``[start, end)`` of an uncompressed JSON-lines
    file (``lines_before``: the newlines before ``start``, when known; ``only``: of those, the ones
    whose index it holds, no other line parsed)."""
    return iter_jsonl_range(path, start, end, lines_before, only)


def file_size(path: Path) -> int:
    """Returns the size of ``path`` in bytes (0 when it cannot be read)."""
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
