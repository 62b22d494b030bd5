"""Known gaps of one implementation: scenario id -> reason and link, applied strictly.

A listed check that fails becomes ``xfail``; one that passes becomes ``xpass``, which fails the run,
so a fixed gap must be removed from the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ._yamlsource import load_document, read_text
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


def load_gaps(path: str | Path, known_scenarios: Iterable[str], known_invariants: Iterable[str],
              targets: Iterable[str] | None = None) -> list[KnownGap]:
    """Returns the gaps of an expectations file; raises ``SpecError`` for a malformed file, an unknown
    id, or a ``target`` that is not one of ``targets`` (when given)."""
    data, locator = load_document(path, read_text(path))
    if not isinstance(data, dict) or set(data) - {"format_version", "target", "gaps"}:
        extra = sorted(set(data) - {"format_version", "target", "gaps"}) if isinstance(data, dict) else []
        raise locator.error((extra[0],) if extra else (), "expected keys format_version, target, gaps")
    if data.get("format_version") != 1:
        raise locator.error(("format_version",), "must be 1")
    target = data.get("target")
    if target is not None and not isinstance(target, str):
        raise locator.error(("target",), "a target is written MODULE:ATTR")
    run_targets = list(targets) if targets is not None else None
    if target is not None and run_targets is not None and target not in run_targets:
        raise locator.error(("target",), f"{target!r} is not a target of this run "
                                         f"(targets: {', '.join(run_targets) or 'none'})")
    if not isinstance(data.get("gaps", []), list):
        raise locator.error(("gaps",), "gaps is a list of mappings with scenario, reason, link, invariants")
    scenarios, invariants = set(known_scenarios), set(known_invariants)
    gaps: list[KnownGap] = []
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
        if raw.get("link") is not None and not isinstance(raw["link"], str):
            raise locator.error(at + ("link",), "a link is a string")
        names = raw.get("invariants") or []
        if not isinstance(names, list):
            raise locator.error(at + ("invariants",), "invariants is a list of invariant ids")
        for k, name in enumerate(names):
            if not isinstance(name, str) or name not in invariants:
                raise locator.error(at + ("invariants", k), f"unknown invariant id {name!r}")
        for earlier in gaps:  # two gaps over one check: the second could only ever be an xpass
            if earlier.scenario == raw["scenario"] and (not earlier.invariants or not names
                                                        or set(earlier.invariants) & set(names)):
                raise locator.error(at + ("scenario",), f"a second gap for {raw['scenario']!r} over the same "
                                    f"invariants (first at line {earlier.line})")
        gaps.append(KnownGap(raw["scenario"], raw["reason"], raw.get("link"), tuple(names), target,
                             str(path), locator.line(at) or 0))
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


def gaps_document(results: Sequence[CheckResult], target: str, gating: Iterable[str] = ("MUST",)) -> dict[str, object]:
    """Returns a known-gaps document (as ``load_gaps`` reads it) listing, for ``target``, each
    scenario whose gating checks failed, errored or were already known gaps, with those invariants."""
    levels = set(gating)
    failing: dict[str, list[str]] = {}
    for r in results:
        if (r.target == target and r.kind == "scenario" and r.level in levels and r.invariant != GAP_CHECK
                and r.outcome in ("fail", "error", "xfail")):
            names = failing.setdefault(r.scenario, [])
            if r.invariant not in names:
                names.append(r.invariant)
    gaps = [{"scenario": scenario, "reason": f"fails {', '.join(names)} (written by conformance run "
             "--write-gaps: say why, and link the issue that tracks it)", "invariants": names}
            for scenario, names in failing.items()]
    return {"format_version": 1, "target": target, "gaps": gaps}


def not_gaps(path: Path) -> str | None:
    """Returns why the existing file ``path`` is not a known-gaps file ``write_gaps`` may replace
    (it does not read as YAML holding a ``gaps`` list), or None when it is one."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return "is not a known-gaps file"
    if data is None or (isinstance(data, dict) and isinstance(data.get("gaps"), list)):
        return None
    return "is not a known-gaps file (it has no gaps: list)"


def write_gaps(path: str | Path, document: dict[str, object]) -> None:
    """Writes a known-gaps document as YAML; raises ``OSError`` when the file cannot be written."""
    import yaml

    text = "# known gaps: a listed check that passes fails the run, so remove a gap once it is fixed\n"
    text += yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    Path(path).write_text(text, encoding="utf-8")
