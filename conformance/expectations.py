"""Known gaps of one implementation: scenario id -> reason and link, applied strictly.

A listed check that fails becomes ``xfail``; one that passes becomes ``xpass``, which fails the run,
so a fixed gap must be removed from the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ._yamlsource import load_document
from .results import CheckResult

GAP_CHECK = "expectations.gap-still-open"


@dataclass(frozen=True)
class KnownGap:
    """One expected failure: which scenario, optionally which invariants, why, and where it is tracked."""

    scenario: str
    reason: str
    link: str | None = None
    invariants: tuple[str, ...] = ()
    target: str | None = None
    path: str = ""
    line: int = 0


def load_gaps(path: str | Path, known_scenarios: Iterable[str], known_invariants: Iterable[str]) -> list[KnownGap]:
    """Returns the gaps of an expectations file; raises ``SpecError`` for a malformed file or unknown id."""
    data, locator = load_document(path)
    if not isinstance(data, dict) or set(data) - {"format_version", "target", "gaps"}:
        extra = sorted(set(data) - {"format_version", "target", "gaps"}) if isinstance(data, dict) else []
        raise locator.error((extra[0],) if extra else (), "expected keys format_version, target, gaps")
    if data.get("format_version") != 1:
        raise locator.error(("format_version",), "must be 1")
    scenarios, invariants = set(known_scenarios), set(known_invariants)
    gaps = []
    for index, raw in enumerate(data.get("gaps") or []):
        at = ("gaps", index)
        if not isinstance(raw, dict):
            raise locator.error(at, "a gap is a mapping with scenario, reason, link, invariants")
        unknown = sorted(set(raw) - {"scenario", "reason", "link", "invariants"})
        if unknown:
            raise locator.error(at + (unknown[0],), "unknown key")
        if not isinstance(raw.get("scenario"), str) or raw["scenario"] not in scenarios:
            raise locator.error(at + ("scenario",), f"unknown scenario id {raw.get('scenario')!r}")
        if not isinstance(raw.get("reason"), str) or not raw["reason"].strip():
            raise locator.error(at + ("reason",), "a gap needs a reason")
        names = raw.get("invariants") or []
        for k, name in enumerate(names):
            if name not in invariants:
                raise locator.error(at + ("invariants", k), f"unknown invariant id {name!r}")
        gaps.append(KnownGap(raw["scenario"], raw["reason"], raw.get("link"), tuple(names),
                             data.get("target"), str(path), locator.line(at) or 0))
    return gaps


def apply_gaps(results: Sequence[CheckResult], gaps: Sequence[KnownGap]) -> list[CheckResult]:
    """Returns the results with known gaps applied strictly (fail -> xfail, pass -> xpass)."""
    out = list(results)
    for gap in gaps:
        mine = [k for k, r in enumerate(out) if r.scenario == gap.scenario
                and (gap.target is None or r.target == gap.target)]
        if not mine:
            continue
        note = f"known gap: {gap.reason}" + (f" ({gap.link})" if gap.link else "")
        hit = False
        for k in mine:
            r = out[k]
            listed = r.invariant in gap.invariants if gap.invariants else r.level == "MUST"
            if not listed:
                continue
            if r.outcome in ("fail", "error"):
                out[k] = replace(r, outcome="xfail", message=f"{note}; {r.message}")
                hit = True
            elif r.outcome == "pass" and gap.invariants:
                out[k] = replace(r, outcome="xpass", message=f"listed as a known gap but passes: {note}")
                hit = True
        if not hit and not gap.invariants:
            first = out[mine[0]]
            out.append(CheckResult(first.target, gap.scenario, first.family, GAP_CHECK, "MUST", "xpass",
                                   f"listed as a known gap but every MUST passes: {note}"))
    return out
