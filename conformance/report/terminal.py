"""The terminal rendering of a run: summary by family and by invariant, then each failure."""

from __future__ import annotations

from collections.abc import Sequence

from .._text import fit, plural
from ..engine.invariants import CATALOG
from ..engine.loop import cache_line, prompt_cache
from ..engine.results import NO_OUTPUT, CheckResult, must_checked, summarize_shown, without_output
from ..engine.command_report import Report

_SHOWN = ("pass", "fail", "error", "skip", "xfail", "xpass")


def _table(title: str, rows: dict[str, dict[str, int]], order: Sequence[str], shown: Sequence[str] = _SHOWN) -> list[str]:
    width = max([len(title)] + [len(k) for k in rows]) + 2
    cols = [max(7, len(o) + 1) for o in shown]
    lines = [f"{title:<{width}}" + "".join(f"{o:>{w}}" for o, w in zip(shown, cols))]
    for key in order:
        if key in rows:
            lines.append(f"{key:<{width}}" + "".join(f"{rows[key].get(o, 0):>{w}}" for o, w in zip(shown, cols)))
    return lines


def _group_failures(shown: Sequence[CheckResult], sizes: dict[str, int]) -> list[tuple[str, list[CheckResult]]]:
    """Returns the failures grouped by invariant (catalog order), each group smallest scenario first."""
    order = {inv.id: k for k, inv in enumerate(CATALOG)}
    groups: dict[str, list[CheckResult]] = {}
    for r in shown:
        groups.setdefault(r.invariant, []).append(r)
    for members in groups.values():
        members.sort(key=lambda r: (sizes.get(r.scenario, 0), r.scenario))
    return sorted(groups.items(), key=lambda kv: order.get(kv[0], len(order)))


def _failure_lines(target: str, shown: Sequence[CheckResult], where: dict[str, str], sizes: dict[str, int],
                   verbose: bool) -> list[str]:
    """Returns the failures of one target: every one with ``verbose``, else per invariant its count
    and its smallest scenario in full, the others by id."""
    tracebacks: dict[str, str] = {}
    if verbose:
        out = [f"failures of {target}:"]
        for result in shown:
            out.extend(render_failure(result, where.get(result.scenario, ""), tracebacks))
        return out
    groups = _group_failures(shown, sizes)
    scenarios = len({r.scenario for r in shown})
    out = [f"failures of {target}: {plural(len(shown), 'check')} in {plural(scenarios, 'scenario')} "
           "(by invariant, with its smallest scenario; -v: every one, known gaps too)"]
    for invariant, members in groups:
        smallest = members[0]
        if len(members) > 1:
            out.append(f"{invariant}: {plural(len(members), 'scenario')}; the smallest:")
        out.extend(render_failure(smallest, where.get(smallest.scenario, ""), tracebacks))
        others = [r.scenario for r in members[1:]]
        if others:
            listed = ", ".join(others[:5]) + (f" and {len(others) - 5} more" if len(others) > 5 else "")
            out.extend(fit([f"    also {listed}"]))
    return fit(out[:1]) + out[1:]


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


def given_up_lines(report: Report) -> list[str]:
    """Returns one line per target given up: why, and how many of its scenarios were not run."""
    lines = []
    for target, reason in report.given_up.items():
        skipped = sum(1 for r in report.results if r.target == target and r.details.get("given_up"))
        why = reason.removeprefix("not run: ").removeprefix("the target was ")
        lines.append(f"target {target} {why}: {skipped} more scenarios not run, each recorded as a "
                     "call.completes error")
    return lines


def _count_words(totals: dict[str, int], not_run_count: int) -> list[str]:
    """Returns the counts of a verdict line: errors first, then pass (always) and the others."""
    words = [plural(totals["error"], "error")] if totals.get("error") else []
    for outcome in ("pass", "fail", "skip", "xfail", "xpass"):
        if totals.get(outcome) or outcome == "pass":
            extra = f" ({not_run_count} not run)" if outcome == "skip" and not_run_count else ""
            words.append(f"{totals[outcome]} {outcome}{extra}")
    return words


def target_verdict(target: str, report: Report, no_output: set[tuple[str, str]]) -> str:
    """Returns the one verdict line of one target: CONFORMS, DOES NOT CONFORM or NO VERDICT (an
    interrupted run), then its counts, errors first, passes counted only on an output."""
    mine = [r for r in report.results if r.target == target]
    totals = summarize_shown(mine)["outcomes"]
    failing = [r for r in report.failures() if r.target == target]
    if failing:
        word = "DOES NOT CONFORM"
    elif report.interrupted:
        word = "NO VERDICT, interrupted"
    elif not must_checked(mine):
        word = "NOTHING CHECKED"
    else:
        word = "CONFORMS" + (f" with {plural(totals['xfail'], 'known-gap failure')}" if totals["xfail"] else "")
    calls = len({r.scenario for r in mine})
    declined = sum(1 for r in mine if r.invariant == "call.completes" and (r.target, r.scenario) in no_output
                   and r.outcome == "pass")
    empty = sum(1 for t, _ in no_output if t == target) - declined
    note = f"; no output from {empty} of {plural(calls, 'call')}" if empty else ""
    note += f"; {plural(declined, 'call')} declined, as allowed" if declined else ""
    return f"{target}: {word} ({', '.join(_count_words(totals, not_run(mine)))}{note})"


def provider_verdict(probe_results: Sequence[CheckResult]) -> str:
    """Returns the verdict line of the provider recordings: how many match their predictions, and
    how many strategy configurations reach into a task in flight."""
    replayed = [r for r in probe_results if r.outcome in ("pass", "fail", "xfail", "xpass")
                and "config" in r.details]
    matching = sum(1 for r in replayed if r.outcome in ("pass", "xpass"))
    configs: dict[tuple[str, str, str], bool] = {}
    for r in replayed:
        key = (r.target, r.family, str(r.details["config"]))
        configs[key] = configs.get(key, False) or bool(r.details.get("reached_live"))
    reach = sum(configs.values())
    if matching == len(replayed):
        match = "1 matches its prediction" if matching == 1 else f"{matching} match their predictions"
    else:
        match = f"{matching} of {len(replayed)} match their predictions ({len(replayed) - matching} do NOT)"
    errors = sum(1 for r in probe_results if r.outcome == "error")
    broken = f"; {plural(errors, 'probe')} could not be checked" if errors else ""
    return (f"provider recordings: {match}; {reach} of {plural(len(configs), 'configuration')} "
            f"reach into a task in flight{broken}")


def render(report: Report, verbose: bool = False, header: Sequence[str] = ()) -> str:
    """Returns the whole terminal report of a run as text, ending with one verdict line per target,
    one for the provider recordings (``report.probes``), and the total; ``report.verdict`` overrides
    the total's verdict."""
    probe_results = report.probes
    verdict = report.verdict
    out: list[str] = list(header)
    for error in report.spec_errors:
        out.append(f"spec error: {error}")
    where = {s.id: f"{s.path}:{s.line}" for s in report.scenarios}
    sizes = {s.id: len(s.history) for s in report.scenarios}
    no_output = without_output(report.results)
    cache = prompt_cache(report.observations)
    for target in report.targets:
        mine = [r for r in report.results if r.target == target]
        summary = summarize_shown(mine)
        columns = _SHOWN + ((NO_OUTPUT,) if summary["outcomes"][NO_OUTPUT] else ())
        out.append("")
        out.append(f"target {target}: {plural(len({r.scenario for r in mine}), 'scenario')}, "
                   f"{plural(summary['total'], 'check')}")
        out.extend(_table("family", summary["families"], sorted(summary["families"]), columns))
        out.append("")
        out.extend(_table("invariant", summary["invariants"],
                          [i.id for i in CATALOG] + ["expectations.gap-still-open"], columns))
        if target in cache:
            out.extend(fit([cache_line(cache[target])]))
        if NO_OUTPUT in columns:
            out.extend(fit([f"({NO_OUTPUT}: checks that passed on a call that returned nothing, as it raised, "
                            "hung or declined; they are not counted as passes)"]))
        shown = [r for r in mine if (r.outcome in ("fail", "error", "xpass") or (verbose and r.outcome == "xfail"))
                 and not r.details.get("given_up")]  # said once, below
        if shown:
            out.append("")
            out.extend(_failure_lines(target, shown, where, sizes, verbose))
    if probe_results:
        from ..provider.table import strategy_table

        out.append("")
        out.append(f"provider recordings: {plural(len(probe_results), 'probe')} replayed (details: conformance verify)")
        out.extend(strategy_table(probe_results))
        for result in probe_results:
            if result.outcome in ("fail", "error", "xpass"):
                out.extend(render_failure(result))
    out.append("")
    if report.stopped:
        out.append(report.stopped)
    out.extend(given_up_lines(report))
    out.extend(fit([target_verdict(t, report, no_output) for t in report.targets]))
    if probe_results:
        out.extend(fit([provider_verdict(probe_results)]))
    everything = [*report.results, *probe_results]
    totals = summarize_shown(everything)["outcomes"]
    failing = len(report.failures()) + sum(1 for r in probe_results if r.level == "MUST" and r.outcome in ("fail", "error", "xpass"))
    if verdict is None:
        verdict = "CONFORMS" if failing == 0 else "DOES NOT CONFORM"
        if verdict == "CONFORMS" and report.interrupted:
            verdict = "NO VERDICT (interrupted)"
        elif verdict == "CONFORMS" and totals["xfail"]:
            verdict += f" (with {plural(totals['xfail'], 'known-gap failure')})"
        if verdict.startswith("CONFORMS") and probe_results:  # the recordings' part is no conformance
            verdict += "; every recording as predicted"
        if report.spec_errors:
            verdict = f"SPEC ERRORS ({len(report.spec_errors)})"
    out.extend(fit(["total: " + ", ".join(_count_words(totals, not_run(everything))) + f" -- {verdict}"]))
    return "\n".join(out).lstrip("\n")
