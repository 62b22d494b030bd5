"""Run every judge over every recording: files in, one ``Judgement`` per interaction out."""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import base
from ..recordings import Interaction, RecordingError, read_recording
from ..recordings.reader import RECORDING_SUFFIXES
from .model import FAILING, NOT_JUDGED, Judgement, failed, start
from .registry import Judge, judges


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


def _guess_provider(item: Interaction) -> str:
    host = item.host
    for name in base.names():
        if name in host:
            return name
    return "unknown"


def _raised(judge: Judge, exc: Exception) -> str:
    # Named by type and place only: the message of an exception may quote the body.
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"the {judge.provider} judge raised {type(exc).__name__} ({Path(frame.filename).name}:{frame.lineno})"


def judge_one(item: Interaction, earlier: Sequence[Interaction], available: Sequence[Judge]) -> Judgement:
    """Returns the verdict of the first judge that claims ``item``; a judge that raises is an error, not a crash."""
    if item.unreadable:  # the record itself (a line, an entry) is not readable: an error, whoever's traffic
        return failed(item, _guess_provider(item), item.error or "unreadable record")
    for judge in available:
        try:
            if not judge.claims(item):
                continue
            if item.error is not None and not isinstance(item.request, dict):
                return failed(item, judge.provider, item.error)  # (a readable request: the judge decides)
            return judge.judge(item, earlier)
        except Exception as exc:  # a judge's bug must not hide the other interactions' verdicts
            return failed(item, judge.provider, _raised(judge, exc))
    found = start(item, _guess_provider(item), NOT_JUDGED)
    if item.error is not None:  # traffic no judge claims: not judged, whatever its bodies hold
        found.evidence.append(f"no judge claims this traffic; {item.error}")
        return found
    found.evidence.append("no judge for this traffic" if found.provider == "unknown"
                          else f"no judge for {found.provider} is installed")
    return found


def analyze_file(path: Path, available: Sequence[Judge] | None = None) -> FileResult:
    """Returns the judgements of every interaction of one recording (or its read error)."""
    available = judges() if available is None else available
    try:
        items = read_recording(path)
    except RecordingError as exc:
        return FileResult(str(path), error=exc)
    return FileResult(str(path), [judge_one(item, items[:i], available) for i, item in enumerate(items)])


def analyze_paths(paths: Iterable[Path]) -> list[FileResult]:
    """Returns one FileResult per recording file under ``paths``."""
    available = judges()
    return [analyze_file(p, available) for p in recording_files(paths)]


def exit_code(results: Sequence[FileResult]) -> int:
    """Returns 1 if any interaction reached into a task in flight or is inconsistent, whatever else
    failed to read; else 2 when nothing could be judged; else 0 (unreadable files and records are
    listed and counted, and do not hide the verdicts of the rest)."""
    every = [j for r in results for j in r.judgements]
    if any(j.verdict in FAILING for j in every):
        return 1
    return 0 if any(j.judged for j in every) else 2
