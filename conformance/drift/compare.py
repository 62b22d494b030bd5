"""Compare two folders of recordings probe by probe; returns the drift report as plain data."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import SpecError
from . import classify, normalise, recordings, verdicts

CATEGORIES = ("breaking", "additive", "noise")


def _probe(key: str, before: Path | None, after: Path | None, probes: dict[str, Any]) -> tuple[dict, list[dict]]:
    entry: dict[str, Any] = {"probe": key, "baseline": str(before) if before else None,
                             "current": str(after) if after else None,
                             "verdict_before": None, "verdict_after": None}
    judged = [verdicts.judge(side, probes) if side else None for side in (before, after)]
    entry["verdict_before"], entry["verdict_after"] = (j["verdict"] if j else None for j in judged)
    if before is None:
        entry["status"] = "added"
        return entry, [classify.change(key, "additive", "probe_added", "", "a new recording")]
    if after is None:
        entry["status"] = "removed"
        return entry, [classify.change(key, "breaking", "probe_removed", "", "the recording is missing")]
    changes: list[dict[str, Any]] = []
    try:
        old, new = normalise.cassette(recordings.read(before)), normalise.cassette(recordings.read(after))
    except SpecError as exc:
        entry["status"] = "unreadable"
        return entry, [classify.change(key, "breaking", "unreadable", "", str(exc))]
    changed = verdicts.verdict_change(*judged)
    if changed is not None:
        changes.append(classify.change(key, "breaking", "verdict_changed", "verdict", *changed))
    changes += classify.classify(key, old, new)
    entry["status"] = "changed" if changes else "unchanged"
    return entry, changes


def compare_dirs(baseline: str | Path, current: str | Path, probe_specs: list[Path] | None = None) -> dict[str, Any]:
    """Returns ``{baseline, current, probes, changes, counts, exit_code}``; exit 1 on any breaking change."""
    probes = verdicts.load_probes(probe_specs)
    entries, changes = [], []
    for key, (before, after) in recordings.pair(Path(baseline), Path(current)).items():
        entry, found = _probe(key, before, after, probes)
        tally = Counter(c["category"] for c in found)
        entry["counts"] = {c: tally.get(c, 0) for c in CATEGORIES}
        entries.append(entry)
        changes += found
    tally = Counter(c["category"] for c in changes)
    counts = {c: tally.get(c, 0) for c in CATEGORIES}
    return {"baseline": str(baseline), "current": str(current), "probes": entries, "changes": changes,
            "counts": counts, "exit_code": 1 if counts["breaking"] else 0}
