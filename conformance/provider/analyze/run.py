"""Run every judge over every recording, one interaction at a time: files in, ``Judgement``s out.

``judge_stream(items)`` judges a stream of interactions of one recording, keeping only the small
windowed index (``Earlier``) that chains need; ``analyze_stream(paths, jobs)`` yields every
judgement of every file in input order and a ``FileEnd`` after each file, spreading files and
ranges of large JSON-lines files over worker processes (``engines.local``) when ``jobs`` > 1.
``analyze_file``/``analyze_paths`` collect the same into ``FileResult`` lists for small inputs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..recordings import RecordingError
from ..recordings.reader import RECORDING_SUFFIXES
from .earlier import DEFAULT_WINDOW, Earlier
from .judging import FileEnd, judge_one, judge_stream, remember
from .model import FAILING, Judgement
from .registry import Judge, judges

# Input over one range is cut so that every worker gets work and the workers end together: at least
# this many ranges a worker (a worker left with the last range idles the others for a range's time),
# none smaller than this (a range must outweigh what sending it and its results costs).
RANGES_PER_JOB = 8
MIN_RANGE = 4 * 1024 * 1024

__all__ = ["RECORDING_SUFFIXES", "FileEnd", "FileResult", "analyze_file", "analyze_paths", "analyze_stream",
           "exit_code", "judge_one", "judge_stream", "remember"]


@dataclass
class FileResult:
    """The judgements of one recording file, or the error that kept it from being read."""

    path: str
    judgements: list[Judgement] = field(default_factory=list)
    error: RecordingError | None = None


def recording_files(paths: Iterable[Path]) -> list[Path]:
    """Returns the files to read: each file given, and under each folder every file with a recording suffix."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in RECORDING_SUFFIXES)
        else:
            files.append(path)
    return files


def analyze_file(path: Path, available: Sequence[Judge] | None = None) -> FileResult:
    """Returns the judgements of every interaction of one recording (or its read error)."""
    from .source import interactions

    available = judges() if available is None else available
    judged: list[Judgement] = []
    try:
        judged += [j for j, _ in judge_stream(interactions(path), available)]
    except RecordingError as exc:
        return FileResult(str(path), error=exc)
    return FileResult(str(path), judged)


def collected(events: Iterable[Judgement | FileEnd], results: list[FileResult]) -> Iterator[Judgement | FileEnd]:
    """Yields ``events`` as they come and appends one ``FileResult`` per file to ``results``."""
    current: list[Judgement] = []
    for event in events:
        if isinstance(event, FileEnd):
            results.append(FileResult(event.path, [] if event.error else current, event.error))
            current = []
        else:
            current.append(event)
        yield event


def analyze_paths(paths: Iterable[Path], jobs: int = 1) -> list[FileResult]:
    """Returns one FileResult per recording file under ``paths`` (all in memory: for small inputs)."""
    results: list[FileResult] = []
    for _ in collected(analyze_stream(paths, jobs=jobs), results):
        pass
    return results


def serial_file(path: Path, available: Sequence[Judge], window: int = DEFAULT_WINDOW) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of one file as they come, then its ``FileEnd``."""
    from .source import interactions

    count = 0
    try:
        for found, _ in judge_stream(interactions(path), available, Earlier(window)):
            count += 1
            yield found
    except RecordingError as exc:
        yield FileEnd(str(path), count, exc)
        return
    yield FileEnd(str(path), count)


def default_jobs() -> int:
    """Returns the number of worker processes a run uses by default: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def analyze_stream(paths: Iterable[Path], jobs: int = 1, window: int = DEFAULT_WINDOW,
                   progress: object | None = None) -> Iterator[Judgement | FileEnd]:
    """Yields every judgement of every recording under ``paths`` in input order, a ``FileEnd`` after
    each file; ``jobs`` > 1 spreads files and ranges of large JSON-lines files over processes.
    ``progress(interactions, bytes)`` is called as work completes, when given."""
    from . import registry

    from .source import file_size

    files = recording_files(paths)
    # Judges registered in this process do not reach workers; input smaller than one range is
    # judged here sooner than a pool starts.
    total = sum(file_size(f) for f in files) if jobs > 1 and not registry._registered else 0
    if total > split_size():
        from .engines.local import run_tasks
        from .engines.tasks import tasks

        work = tasks(files, range_size(total, jobs), window, spool=True)  # (the files are cut once)
        if len(work) > 1:
            yield from run_tasks(work, jobs, progress)
            return
    available = judges()

    for path in files:
        if progress is None:
            yield from serial_file(path, available, window)
            continue
        for event in serial_file(path, available, window):
            yield event
            if isinstance(event, FileEnd):
                progress(event.interactions, file_size(path))  # type: ignore[operator]  # progress is checked for None just above


def range_size(total: int, jobs: int) -> int:
    """Returns the size of the ranges ``total`` bytes of input are cut into for ``jobs`` workers:
    ``split_size()``, or less when that would leave a worker idle (at least ``RANGES_PER_JOB``
    ranges each, none under ``MIN_RANGE`` bytes unless ``CONFORMANCE_ANALYZE_SPLIT`` says so)."""
    size = split_size()
    if os.environ.get("CONFORMANCE_ANALYZE_SPLIT", "").isdigit():
        return size
    return max(MIN_RANGE, min(size, -(-total // (jobs * RANGES_PER_JOB))))


def split_size() -> int:
    """Returns the size of the ranges large JSON-lines files are cut into (``CONFORMANCE_ANALYZE_SPLIT``
    bytes, else ``source.SPLIT_SIZE``)."""
    from .source import SPLIT_SIZE

    value = os.environ.get("CONFORMANCE_ANALYZE_SPLIT", "")
    return int(value) if value.isdigit() and int(value) > 0 else SPLIT_SIZE


def exit_code(results: Sequence[FileResult]) -> int:
    """Returns 1 if any interaction has a failing verdict (``FAILING``: it reached into a task in
    flight, the task lost its reasoning or goes on from stale reasoning, its history was rejected as
    broken, or it is inconsistent), whatever else failed to read; else 2 when nothing could be
    judged; else 0 (unreadable files and records are listed and counted, and do not hide the
    verdicts of the rest)."""
    every = [j for r in results for j in r.judgements]
    if any(j.verdict in FAILING for j in every):
        return 1
    return 0 if any(j.judged for j in every) else 2
