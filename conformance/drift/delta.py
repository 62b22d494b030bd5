"""A baseline update as a JSON-serialised deepdiff Delta (never a pickle): write, read, apply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepdiff import DeepDiff, Delta
from deepdiff.serialization import json_dumps, json_loads

from . import normalise, recordings


def snapshots(baseline: str | Path, current: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Returns both folders' recordings by probe key (paired as drift pairs them), bodies parsed."""
    pairs = recordings.pair(Path(baseline), Path(current))
    before = {key: normalise.parsed(recordings.read(b)) for key, (b, _) in pairs.items() if b is not None}
    after = {key: normalise.parsed(recordings.read(a)) for key, (_, a) in pairs.items() if a is not None}
    return before, after


def make_delta(baseline: str | Path, current: str | Path) -> Delta:
    """Returns the Delta that turns the baseline snapshot into the current one."""
    before, after = snapshots(baseline, current)
    return Delta(DeepDiff(before, after), serializer=json_dumps)


def write_delta(baseline: str | Path, current: str | Path, path: str | Path) -> None:
    """Writes the baseline update Delta to ``path`` as JSON text."""
    Path(path).write_text(make_delta(baseline, current).dumps() + "\n", encoding="utf-8")


def read_delta(path: str | Path) -> Delta:
    """Returns the Delta stored at ``path``; raises ``ValueError`` when the file is not JSON."""
    return Delta(Path(path).read_text(encoding="utf-8"), deserializer=json_loads)


def apply(baseline: dict[str, Any], delta: Delta) -> dict[str, Any]:
    """Returns the baseline snapshot with the Delta applied."""
    return baseline + delta
