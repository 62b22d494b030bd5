"""The terminal rendering of a run: summary by family and by invariant, then each failure."""

from __future__ import annotations

from collections.abc import Sequence

from ..invariants import CATALOG
from ..results import OUTCOMES, CheckResult, summarize
from ..runner import RunReport

_SHOWN = ("pass", "fail", "error", "skip", "xfail", "xpass")


def _table(title: str, rows: dict[str, dict[str, int]], order: Sequence[str]) -> list[str]:
    width = max([len(title)] + [len(k) for k in rows]) + 2
    lines = [f"{title:<{width}}" + "".join(f"{o:>7}" for o in _SHOWN)]
    for key in order:
        if key in rows:
            lines.append(f"{key:<{width}}" + "".join(f"{rows[key].get(o, 0):>7}" for o in _SHOWN))
    return lines


def render_failure(result: CheckResult, where: str = "") -> list[str]:
    """Returns the lines that show one failing check: ids, message and focused diff."""
    head = f"[{result.level}] {result.scenario} :: {result.invariant} ({result.outcome})"
    lines = [head + (f"  {where}" if where else ""), f"    {result.message}"]
    lines += [f"    {line}" for line in result.details.get("diff", [])]
    return lines


def render(report: RunReport, probe_results: Sequence[CheckResult] = (), verbose: bool = False) -> str:
    """Returns the whole terminal report of a run as text."""
    out: list[str] = []
    for error in report.spec_errors:
        out.append(f"spec error: {error}")
    where = {s.id: f"{s.path}:{s.line}" for s in report.scenarios}
    for target in report.targets:
        mine = [r for r in report.results if r.target == target]
        summary = summarize(mine)
        out.append("")
        out.append(f"target {target}: {len(report.scenarios)} scenarios, {summary['total']} checks")
        out.extend(_table("family", summary["families"], sorted(summary["families"])))
        out.append("")
        out.extend(_table("invariant", summary["invariants"], [i.id for i in CATALOG] + ["expectations.gap-still-open"]))
        shown = [r for r in mine if r.outcome in ("fail", "error", "xpass") or (verbose and r.outcome == "xfail")]
        if shown:
            out.append("")
            out.append(f"failures of {target}:")
            for result in shown:
                out.extend(render_failure(result, where.get(result.scenario, "")))
    if probe_results:
        from ..provider.table import strategy_table

        out.append("")
        out.append(f"provider recordings: {len(probe_results)} probes replayed (details: conformance verify)")
        out.extend(strategy_table(probe_results))
        for result in probe_results:
            if result.outcome in ("fail", "error", "xpass"):
                out.extend(render_failure(result))
    out.append("")
    if getattr(report, "stopped", ""):
        out.append(report.stopped)
    totals = summarize([*report.results, *probe_results])["outcomes"]
    failing = len(report.failures()) + sum(1 for r in probe_results if r.level == "MUST" and r.outcome in ("fail", "error", "xpass"))
    verdict = "CONFORMS" if failing == 0 and not report.spec_errors else "DOES NOT CONFORM"
    if report.spec_errors:
        verdict = f"SPEC ERRORS ({len(report.spec_errors)})"
    out.append(", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o]) + f" -- {verdict}")
    return "\n".join(out).lstrip("\n")
