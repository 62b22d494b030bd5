"""The terminal rendering of a run: summary by family and by invariant, then each failure."""

from __future__ import annotations

from collections.abc import Sequence

from .._text import fit
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


def render_failure(result: CheckResult, where: str = "",
                   shown_tracebacks: dict[str, str] | None = None) -> list[str]:
    """Returns the lines that show one failing check: ids, message, focused diff, both sides, and
    the target's traceback (only a reference to it when ``shown_tracebacks`` already holds its key)."""
    head = f"[{result.level}] {result.scenario} :: {result.invariant} ({result.outcome})"
    evidence = [f"    {result.message}", *(f"    {line}" for line in result.details.get("diff", []))]
    for side in ("expected", "returned"):
        if result.details.get(side):
            evidence.append(f"    {side} {result.details[side]}")
        if result.details.get(f"{side}_native"):  # the same, in the target's own format and numbering
            evidence.append(f"      {result.details[f'{side}_native']}")
    # the head names the place and a traceback its frames: whole lines, to copy; the rest fits the width
    return [head + (f"  {where}" if where else ""), *fit(evidence), *_traceback_lines(result, shown_tracebacks)]


def _traceback_lines(result: CheckResult, shown: dict[str, str] | None) -> list[str]:
    text, key = result.details.get("traceback"), result.details.get("traceback_id")
    if not text:
        return []
    if shown is not None and key in shown:
        return [f"    (same traceback as {shown[key]})"]
    if shown is not None and key:
        shown[key] = result.scenario
    return ["    traceback (the target's frames):"] + [f"      {line}" for line in str(text).splitlines()]


def not_run(results: Sequence[CheckResult]) -> int:
    """Returns how many skipped checks were not run because the call or its output failed."""
    return sum(1 for r in results if r.outcome == "skip" and r.details.get("blocked_by"))


def render(report: RunReport, probe_results: Sequence[CheckResult] = (), verbose: bool = False,
           verdict: str | None = None) -> str:
    """Returns the whole terminal report of a run as text; ``verdict`` overrides the computed one."""
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
            tracebacks: dict[str, str] = {}
            for result in shown:
                out.extend(render_failure(result, where.get(result.scenario, ""), tracebacks))
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
    everything = [*report.results, *probe_results]
    totals = summarize(everything)["outcomes"]
    failing = len(report.failures()) + sum(1 for r in probe_results if r.level == "MUST" and r.outcome in ("fail", "error", "xpass"))
    if verdict is None:
        verdict = "CONFORMS" if failing == 0 else "DOES NOT CONFORM"
        if verdict == "CONFORMS" and totals["xfail"]:
            verdict += f" (with {totals['xfail']} known-gap failures)"
        if report.spec_errors:
            verdict = f"SPEC ERRORS ({len(report.spec_errors)})"
    counts = [f"{totals[o]} {o}" + (f" ({not_run(everything)} not run)" if o == "skip" and not_run(everything) else "")
              for o in OUTCOMES if totals[o]]
    out.append(", ".join(counts) + f" -- {verdict}")
    return "\n".join(out).lstrip("\n")
