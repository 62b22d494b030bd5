"""The analyzer's judgement of each recording, when the provider side and the probe specs are present."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._paths import shipped


def load_probes(spec_paths: Iterable[Path] | None = None) -> dict[str, Any]:
    """Returns the probe specs by id (empty when the provider side is not installed)."""
    try:
        from ..provider.probes import load_probes as load
    except ImportError:
        return {}
    probes, _ = load(list(spec_paths) if spec_paths else [shipped("specs") / "provider"])
    return probes


def judge(path: Path, probes: dict[str, Any]) -> dict[str, Any] | None:
    """Returns ``{verdict, outcome, message}`` from the analyzer for one cassette, or None when it
    cannot run (no provider side, no probe specs)."""
    if not probes:
        return None
    try:
        from ..provider.verify import check_cassette
    except ImportError:
        return None
    try:
        result = check_cassette(path, probes)
    except Exception as exc:  # noqa: BLE001 - a crash of the analyzer is a judgement too
        return {"verdict": None, "outcome": "error", "message": f"{type(exc).__name__}: {exc}"}
    found = result.details.get("verdict")
    return {"verdict": str(found) if found else None, "outcome": result.outcome, "message": result.message}


def verdict_change(before: dict[str, Any] | None, after: dict[str, Any] | None) -> tuple[str, Any, Any] | None:
    """Returns ``(rule, before, after)`` when the judgement got worse or the verdict changed, else None."""
    if before is None or after is None:
        return None
    if before["verdict"] and after["verdict"] and before["verdict"] != after["verdict"]:
        return "the analyzer's verdict changed", before["verdict"], after["verdict"]
    if before["verdict"] and not after["verdict"]:
        return f"the recording can no longer be judged: {after['message']}", before["verdict"], after["outcome"]
    return None
