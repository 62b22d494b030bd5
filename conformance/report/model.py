"""The view of a run that the Markdown and HTML reports draw: plain data, computed once.

Results come in already redacted; the timelines are built from the run's observations with
reasoning text shown only as a hash and length.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ..engine.invariants import CATALOG
from ..engine.redaction import Redactor, secrets_in
from ..engine.command_report import Report
from ..engine.results import NOT_RUN, OUTCOMES, CheckResult, gating_failures, summarize_shown
from ..engine.tracebacks import scrub_credentials
from .timeline import align, counts, labeller

# Worst first: the outcome a cell of the matrix shows.
SEVERITY = ("error", "fail", "xpass", "xfail", "pass", "skip")
# Timelines drawn in full; past this many failing (target, scenario) pairs only the checks are listed.
MAX_TIMELINES = 60
# Rows of the probe table kept (the first in probe order); an ``analyze`` of a million interactions
# keeps these, counts the rest and says that results.jsonl holds them.
MAX_PROBE_ROWS = 500


def worst(outcomes: Sequence[str]) -> str:
    """Returns the most severe outcome among ``outcomes`` (``skip`` when there are none)."""
    present = set(outcomes)
    return next((o for o in SEVERITY if o in present), "skip")


def passing(rows: Mapping[str, int]) -> list[int]:
    """Returns ``[passing, total]`` for an outcome tally; skipped checks are not counted, except those
    not run because the call failed (they count as checked and not passing)."""
    return [rows.get("pass", 0), sum(rows.get(o, 0) for o in OUTCOMES if o != "skip") + rows.get(NOT_RUN, 0)]


def verdict_of(gating: int, spec_errors: int) -> str:
    """Returns the one-word verdict shown at the top of every report."""
    if spec_errors:
        return f"SPEC ERRORS ({spec_errors})"
    return "CONFORMS" if gating == 0 else "DOES NOT CONFORM"


def _summaries(results: Sequence[CheckResult], targets: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Returns ``summarize_shown`` of each target's results, by target name (a pass on a call that
    returned nothing counts as no-output)."""
    mine: dict[str, list[CheckResult]] = {t: [] for t in targets}
    for r in results:
        mine.setdefault(r.target, []).append(r)
    return {t: summarize_shown(mine[t]) for t in targets}


def _target_rows(report: Report, summaries: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    failing = [r.target for r in report.failures()]
    rows = []
    for name in report.targets:
        gating = failing.count(name)
        rows.append({"name": name, "summary": summaries[name], "gating": gating,
                     "verdict": verdict_of(gating, 0), "reference": name in report.reference_targets})
    return rows


def _scenario_rows(report: Report, results: Sequence[CheckResult]) -> list[dict[str, Any]]:
    by_pair: dict[tuple[str, str], list[CheckResult]] = {}
    for r in results:
        by_pair.setdefault((r.target, r.scenario), []).append(r)
    rows = []
    for s in report.scenarios:
        cells = {}
        for t in report.targets:
            mine = by_pair.get((t, s.id), [])
            cells[t] = {"outcome": worst([r.outcome for r in mine]),
                        "failing": [r.invariant for r in mine if r.outcome in ("fail", "error", "xpass")]}
        rows.append({"id": s.id, "family": s.family, "description": s.description, "cells": cells,
                     "all_pass": all(c["outcome"] in ("pass", "skip") for c in cells.values())})
    return rows


def _per_target(summaries: Mapping[str, dict[str, Any]], key: str) -> dict[str, dict[str, list[int]]]:
    table: dict[str, dict[str, list[int]]] = {}
    for t, summary in summaries.items():
        for name, tally in summary[key].items():
            table.setdefault(name, {})[t] = passing(tally)
    return table


class ProbeTally:
    """The provider records of a report folded in one at a time: outcome counts, gating failures,
    and the probe table (its first ``MAX_PROBE_ROWS`` rows in probe order), so that a report of a
    stream of records keeps none of them."""

    def __init__(self) -> None:
        self.outcomes = {o: 0 for o in OUTCOMES}
        self.count = 0
        self.gating = 0
        self.strategies: set[str] = set()
        self.rows: dict[str, dict[str, Any]] = {}
        self.keys: list[str] = []  # the rows' probes, sorted
        self.cut = False  # rows were left out past MAX_PROBE_ROWS

    def add(self, r: CheckResult) -> None:
        """Counts one record (already redacted) and puts it in its row of the table."""
        self.count += 1
        self.outcomes[r.outcome] += 1
        self.gating += bool(gating_failures([r]))
        self.strategies.add(r.target)
        row = self._row(r)
        if row is None:
            return
        cell = row["cells"].setdefault(r.target, {"outcomes": set(), "verdict": None, "message": "",
                                                  "reached_live": False, "emulator": r.target.startswith("emulator")})
        cell["outcomes"].add(r.outcome)
        cell["reached_live"] = cell["reached_live"] or bool(r.details.get("reached_live"))
        cell["verdict"] = cell["verdict"] or r.details.get("verdict")
        if r.outcome in ("fail", "error") and not cell["message"]:
            cell["message"] = r.message

    def _row(self, r: CheckResult) -> dict[str, Any] | None:
        """Returns the row of ``r``'s probe, made when missing, or None when it falls past the rows kept
        (the last row kept gives way to one before it)."""
        key = r.scenario
        if key in self.rows:
            return self.rows[key]
        if len(self.keys) >= MAX_PROBE_ROWS:
            self.cut = True
            if key > self.keys[-1]:
                return None
            del self.rows[self.keys.pop()]
        insort(self.keys, key)
        row = self.rows[key] = {"probe": key, "family": r.family, "cells": {}}
        return row

    def table(self) -> dict[str, Any]:
        """Returns the probe table of the view: ``strategies``, ``rows`` in probe order, each cell with
        its worst ``outcome``, ``cut`` (rows left out) and ``failing`` (the failed records of every
        probe, those left out included)."""
        rows = []
        for key in self.keys:
            row = self.rows[key]
            cells = {t: {k: v for k, v in c.items() if k != "outcomes"} | {"outcome": worst(list(c["outcomes"]))}
                     for t, c in row["cells"].items()}
            rows.append({**row, "cells": cells})
        return {"strategies": sorted(self.strategies), "rows": rows, "cut": self.cut,
                "failing": self.outcomes["fail"] + self.outcomes["error"]}


def tally_of(probes: Sequence[CheckResult]) -> ProbeTally:
    """Returns the ``ProbeTally`` of ``probes``."""
    tally = ProbeTally()
    for r in probes:
        tally.add(r)
    return tally


def _failures(report: Report, results: Sequence[CheckResult]) -> list[dict[str, Any]]:
    scenarios = {s.id: s for s in report.scenarios}
    grouped: dict[tuple[str, str], list[CheckResult]] = {}
    for r in results:
        if r.outcome in ("fail", "error", "xpass"):
            grouped.setdefault((r.target, r.scenario), []).append(r)
    out: list[dict[str, Any]] = []
    for (target, scenario_id), failed in grouped.items():
        scenario = scenarios.get(scenario_id)
        obs = report.observations.get((target, scenario_id))
        entry: dict[str, Any] = {"target": target, "scenario": scenario_id,
                                 "description": scenario.description if scenario else "",
                                 "results": [r.to_dict() for r in failed], "timeline": [], "tally": {},
                                 "error": None, "live_start": None, "unanswered": []}
        output = obs.output if obs is not None and obs.returned else None
        secrets = [*secrets_in(scenario.history if scenario else None), *secrets_in(output)]
        if scenario is not None and len(out) < MAX_TIMELINES:
            rows = align(scenario.history, output, scenario.truth.live_start, labeller(secrets))
            entry["timeline"] = [asdict(row) for row in rows]
            entry["tally"] = counts(rows)
            entry["live_start"] = scenario.truth.live_start
            entry["unanswered"] = list(scenario.truth.unanswered)
        if obs is not None and not obs.returned:
            entry["error"] = scrub_credentials(Redactor(secrets).text(f"{obs.error_type or 'timeout'}: {obs.error}"))
        out.append(entry)
    return out


def totals(results: Sequence[CheckResult], probes: ProbeTally) -> dict[str, int]:
    """Returns the outcome counts of the whole report: ``summarize_shown`` of the results (no-output
    passes apart) plus the provider records' outcomes."""
    counts: dict[str, int] = summarize_shown(results)["outcomes"]
    for outcome, n in probes.outcomes.items():
        counts[outcome] += n
    return counts


def build(report: Report, results: Sequence[CheckResult], probes: ProbeTally, exit_code: int) -> dict[str, Any]:
    """Returns the whole report view as plain data (``results`` and the records ``probes`` folded
    already redacted).

    ``gating`` counts the checks that fail the run (the footer's ``gating_failures``); breaking drift
    is counted apart, in ``drift``, and both make ``ok`` false.
    """
    drift = report.drift
    gating = len(report.failures()) + probes.gating
    breaking = (drift or {}).get("counts", {}).get("breaking", 0)
    summaries = _summaries(results, report.targets)
    verdict = verdict_of(gating + breaking, len(report.spec_errors))
    if drift and not results and not probes.count:
        from ..drift.render import verdict as drift_verdict
        verdict = drift_verdict(drift)
    return {
        "verdict": verdict,
        "ok": gating + breaking == 0 and not report.spec_errors,
        "exit_code": exit_code,
        "totals": totals(results, probes),
        "checks": len(results) + probes.count,
        "gating": gating,
        "targets": _target_rows(report, summaries),
        "scenarios": _scenario_rows(report, results),
        "families": _per_target(summaries, "families"),
        "invariants": _invariant_rows(_per_target(summaries, "invariants")),
        "probes": probes.table(),
        "failures": _failures(report, results),
        "spec_errors": [str(e) for e in report.spec_errors],
        "drift": dict(drift) if drift else None,
    }


def _invariant_rows(table: Mapping[str, dict[str, list[int]]]) -> list[dict[str, Any]]:
    """Returns one row per invariant in catalog order (unknown ids last), with its level and statement."""
    order = {inv.id: (n, inv) for n, inv in enumerate(CATALOG)}
    rows = []
    for key in sorted(table, key=lambda k: (order.get(k, (len(order), None))[0], k)):
        inv = order.get(key, (0, None))[1]
        rows.append({"id": key, "level": inv.level if inv else "", "statement": inv.statement if inv else "",
                     "cells": table[key]})
    return rows
