"""A baseline update as a JSON-serialised deepdiff Delta (never a pickle): write, read, apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepdiff import DeepDiff, Delta
from deepdiff.serialization import json_dumps, json_loads

from ..errors import SpecError
from . import normalise, recordings


def _read(files: dict[str, Path | None], skipped: list[str]) -> dict[str, Any]:
    """Returns the readable recordings by key, bodies parsed; adds the path of each unreadable one to ``skipped``."""
    found = {}
    for key, path in files.items():
        if path is None:
            continue
        try:
            found[key] = normalise.parsed(recordings.read(path))
        except SpecError:
            skipped.append(str(path))
    return found


def _snapshots(baseline: str | Path, current: str | Path) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    pairs = recordings.pair(Path(baseline), Path(current))
    skipped: list[str] = []
    before = _read({key: b for key, (b, _) in pairs.items()}, skipped)
    after = _read({key: a for key, (_, a) in pairs.items()}, skipped)
    for key, (_, fresh) in pairs.items():  # an unreadable fresh recording keeps its baseline as it was
        if fresh is not None and key not in after and key in before:
            after[key] = before[key]
    return before, after, skipped


def snapshots(baseline: str | Path, current: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns both folders' readable recordings by probe key (paired as drift pairs them), bodies parsed."""
    before, after, _ = _snapshots(baseline, current)
    return before, after


def write_delta(baseline: str | Path, current: str | Path, path: str | Path) -> list[str]:
    """Writes the baseline update Delta to ``path`` as JSON text; returns the unreadable recordings left out."""
    before, after, skipped = _snapshots(baseline, current)
    delta = Delta(DeepDiff(before, after), serializer=json_dumps)
    Path(path).write_text(delta.dumps() + "\n", encoding="utf-8")
    return skipped


def read_delta(path: str | Path) -> Delta:
    """Returns the Delta stored at ``path``; raises ``ValueError`` when the file is not JSON."""
    return Delta(Path(path).read_text(encoding="utf-8"), deserializer=json_loads)


def apply(baseline: dict[str, Any], delta: Delta) -> dict[str, Any]:
    """Returns the baseline snapshot with the Delta applied."""
    return baseline + delta
