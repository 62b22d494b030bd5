"""The terminal rendering of an egress run: counts per format and per check, then each failure."""

from __future__ import annotations

from ..report.terminal import _table, render_failure
from ..engine.results import OUTCOMES, summarize
from .checks import CATALOG
from .run import EgressReport
from .store import CATALOG as STORE_CATALOG

ORDER = [c.id for c in CATALOG] + [cid for cid, _, _ in STORE_CATALOG]


def render(report: EgressReport) -> str:
    """Returns the whole terminal report as text; ``report.verdict`` overrides the computed one."""
    out: list[str] = [f"spec error: {e}" for e in report.spec_errors]
    where = {c.id: f"{c.path}:{c.line}" for c in report.conversations}
    for target in report.targets:
        mine = [r for r in report.results if r.target == target]
        summary = summarize(mine)
        out += ["", f"target {target} on surface {report.surface}: {len(report.conversations)} conversations, "
                    f"{summary['total']} checks"]
        out += _table("format", summary["families"], sorted(summary["families"]))
        out += [""] + _table("check", summary["invariants"], ORDER)
        failing = [r for r in mine if r.outcome in ("fail", "error", "xpass")]
        if failing:
            out += ["", f"failures of {target}:"]
            shown: dict[str, str] = {}
            for result in failing:
                out += render_failure(result, where.get(result.scenario, ""), shown)
    totals = summarize(report.results)["outcomes"]
    verdict = report.verdict
    if verdict is None:
        verdict = f"SPEC ERRORS ({len(report.spec_errors)})" if report.spec_errors else \
            "CONFORMS" if not report.failures() else "DOES NOT CONFORM"
    out += ["", ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o]) + f" -- {verdict}"]
    return "\n".join(out).lstrip("\n")
