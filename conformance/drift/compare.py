"""Compare two folders of recordings probe by probe; returns the drift report as plain data."""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import SpecError
from . import classify, normalise, recordings, verdicts

CATEGORIES = ("breaking", "additive", "noise")


def check_folder(path: Path, role: str) -> None:
    """Returns None when ``path`` is a folder holding recordings; raises ``SpecError`` naming it otherwise."""
    if not path.exists():
        raise SpecError(path, None, role, "no such folder")
    if not path.is_dir():
        raise SpecError(path, None, role, "not a folder")
    if not recordings.files(path):
        raise SpecError(path, None, role, "holds no recordings (*.yaml): nothing to compare, so no verdict")


def _probe(key: str, before: Path | None, after: Path | None, judged: tuple[Any, ...],
           before_data: dict[str, Any] | None = None) -> tuple[dict, list[dict]]:
    entry: dict[str, Any] = {"probe": key, "baseline": str(before) if before else None,
                             "current": str(after) if after else None,
                             "verdict_before": None, "verdict_after": None}
    entry["verdict_before"], entry["verdict_after"] = (j["verdict"] if j else None for j in judged)
    if before is None:
        entry["status"] = "added"
        return entry, [classify.change(key, "additive", "probe_added", "", "a new recording")]
    if after is None:
        entry["status"] = "removed"
        return entry, [classify.change(key, "breaking", "probe_removed", "", "the recording is missing")]
    old = normalise.cassette(before_data if before_data is not None else recordings.read(before))
    try:
        new = normalise.cassette(recordings.read(after))
    except SpecError as exc:
        entry["status"] = "unreadable"
        return entry, [classify.change(key, "breaking", "unreadable", "", f"the current recording is unreadable: {exc}",
                                       "readable", "unreadable")]
    changes = [classify.change(key, "breaking", kind, "verdict", rule, was, now)
               for kind, rule, was, now in verdicts.changes(*judged)]
    changes += classify.classify(key, old, new)
    entry["status"] = "changed" if changes else "unchanged"
    return entry, changes


_JUDGED: dict[tuple[str, bytes, bytes], dict[str, Any]] = {}  # (path, its bytes' hash, the specs' hash) -> judgement


def _judged(path: Path, probes: dict[str, Any], specs: bytes) -> dict[str, Any]:
    """Returns ``verdicts.judge(path, probes)``, remembered for the same file holding the same bytes
    under the same probe specs (a baseline compared again, in one process, is not replayed again)."""
    key = (str(path), hashlib.sha256(path.read_bytes()).digest(), specs)
    if key not in _JUDGED:
        if len(_JUDGED) >= 4096:
            _JUDGED.clear()
        _JUDGED[key] = verdicts.judge(path, probes)
    return copy.deepcopy(_JUDGED[key])


def _specs_key(probes: dict[str, Any]) -> bytes:
    """Returns a hash of the probe spec files the probes come from."""
    digest = hashlib.sha256()
    for name in sorted({str(p.path) for p in probes.values()}):
        digest.update(name.encode() + b"\0" + Path(name).read_bytes())
    return digest.digest()


def compare_dirs(baseline: str | Path, current: str | Path, probe_specs: list[Path] | None = None) -> dict[str, Any]:
    """Returns ``{baseline, current, probes, changes, counts, unjudged_baseline, exit_code}``; exit 1 on
    any breaking change. ``unjudged_baseline`` names the baseline recordings the analyzer cannot judge
    (no such probe, a stale recording): for those only the bodies are compared.

    Raises ``SpecError`` when a folder is missing or holds no recordings, a baseline recording is
    unreadable, or a probe spec fails to load: drift cannot judge then, and says so instead of passing.
    """
    baseline, current = Path(baseline), Path(current)
    check_folder(baseline, "--baseline")
    check_folder(current, "--current")
    pairs = recordings.pair(baseline, current)
    baseline_data = {before: recordings.read(before) for before, _ in pairs.values() if before is not None}
    probes = verdicts.load_probes(probe_specs)
    specs = _specs_key(probes)
    judged = {key: tuple(_judged(side, probes, specs) if side else None for side in sides)
              for key, sides in pairs.items()}
    entries, changes = [], []
    for key, (before, after) in pairs.items():
        entry, found = _probe(key, before, after, judged[key], baseline_data.get(before) if before else None)
        tally = Counter(c["category"] for c in found)
        entry["counts"] = {c: tally.get(c, 0) for c in CATEGORIES}
        entries.append(entry)
        changes += found
    for strategy, kind, rule, was, now in verdicts.strategy_changes(
            ((k, j[0]) for k, j in judged.items()), ((k, j[1]) for k, j in judged.items())):
        changes.append(classify.change(strategy, "breaking", kind, "strategy", rule, was, now))
    tally = Counter(c["category"] for c in changes)
    counts = {c: tally.get(c, 0) for c in CATEGORIES}
    unjudged = [f"{key}: {sides[0]['message']}" for key, sides in judged.items()
                if sides[0] is not None and sides[0]["verdict"] is None]
    return {"baseline": str(baseline), "current": str(current), "probes": entries, "changes": changes,
            "counts": counts, "unjudged_baseline": unjudged, "exit_code": 1 if counts["breaking"] else 0}
