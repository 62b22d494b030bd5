"""Print ``analyze`` results: a table per file, a summary line, JSON records and report results."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..._text import fit
from ...results import CheckResult, Outcome
from ..recordings import RecordingError
from ..table import grid
from .model import ERROR, FAILING, NOT_JUDGED, Judgement
from .run import FileResult

OUTCOME: dict[str, Outcome] = {"reached-live-task": "fail", "inconsistent": "fail", "error": "error", "cannot-tell": "skip",
           "not-judged": "skip"}


def task_in_flight(j: Judgement) -> str:
    """Returns where the task in flight starts, e.g. ``from 2 of 3`` or ``settled (4)``; ``-`` when not judged."""
    if j.live_start is None or j.history is None:
        return "-"
    return f"settled ({j.history})" if j.live_start >= j.history else f"from {j.live_start} of {j.history}"


def file_table(result: FileResult) -> list[str]:
    """Returns the lines for one file: its name, then one row per interaction (or the read error)."""
    if result.error is not None:
        return [str(result.error)]
    rows = [["#", "ENDPOINT", "MODEL", "STRATEGY", "TASK IN FLIGHT", "VERDICT", "EVIDENCE"]]
    for j in result.judgements:
        evidence = j.error if j.error else "; ".join(j.evidence)
        rows.append([str(j.index), j.endpoint, j.model or "-", j.strategy or "-", task_in_flight(j), j.verdict,
                     evidence or "-"])
    return [result.path, *grid(rows)] if len(rows) > 1 else [result.path, "  no interactions"]


def summary(results: Sequence[FileResult]) -> str:
    """Returns the one-line tally: files, interactions, verdicts, not judged and errors."""
    every = [j for r in results for j in r.judgements]
    verdicts = Counter(j.verdict for j in every if j.judged)
    unreadable = sum(1 for r in results if r.error) + sum(1 for j in every if j.verdict == ERROR)
    judged = sum(verdicts.values())
    counted = sum(1 for j in every if j.verdict == NOT_JUDGED)
    tally = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()))
    return (f"analyze: {len(results)} file(s), {len(every)} interaction(s): {judged} judged"
            + (f" ({tally})" if tally else "") + f", {counted} without context management or a judge, "
            f"{unreadable} unreadable")


def unreadable(results: Sequence[FileResult]) -> list[str]:
    """Returns one line per unreadable file (``file:line: why``) and interaction (``file#index: why``)."""
    lines = [str(r.error) for r in results if r.error is not None]
    lines += [f"{j.file}#{j.index}: {j.error}" for r in results for j in r.judgements if j.verdict == ERROR]
    return lines


def render(results: Sequence[FileResult]) -> str:
    """Returns the whole terminal report: a table per file, a findings list, then the summary line."""
    out: list[str] = []
    for result in results:
        out += [*file_table(result), ""]
    failing = [j for r in results for j in r.judgements if j.verdict in FAILING]
    if failing:
        out += ["Findings", *fit(f"  {j.verdict.upper()} {j.file}#{j.index}: {'; '.join(j.evidence)}"
                                  for j in failing), ""]
    errors = unreadable(results)
    if errors:
        out += ["Unreadable", *fit(f"  {line}" for line in errors), ""]
    out.append(summary(results))
    return "\n".join(out)


def records(results: Sequence[FileResult]) -> list[dict[str, Any]]:
    """Returns the ``--json`` records: one per interaction, and one per unreadable file (index null)."""
    out: list[dict[str, Any]] = []
    for result in results:
        if result.error is not None:
            out.append({"file": result.path, "index": None, "provider": None, "endpoint": None, "model": None,
                        "strategy": None, "live_start": None, "history": None, "verdict": ERROR, "evidence": [],
                        "error": f"line {result.error.line}: {result.error.message}" if result.error.line
                        else result.error.message})
        out += [j.to_dict() for j in result.judgements]
    return out


def unreadable_result(path: str, error: RecordingError) -> CheckResult:
    """Returns the report's record of a recording that could not be read (an ``analyze.readable`` error)."""
    return CheckResult(target="unknown", scenario=path, family="analyze", invariant="analyze.readable", level="MUST",
                       outcome="error", message=str(error), kind="probe")


def judgement_result(j: Judgement) -> CheckResult:
    """Returns the report's record of one judged interaction (``analyze.task-in-flight-untouched``)."""
    message = j.error or "; ".join(j.evidence)
    details = {"verdict": j.verdict, "reached_live": j.verdict == "reached-live-task", "file": j.file,
               "index": j.index, "endpoint": j.endpoint, "model": j.model, "config": j.strategy,
               "live_start": j.live_start, "history": j.history, "evidence": list(j.evidence)}
    return CheckResult(target=j.provider, scenario=f"{j.file}#{j.index}", family=j.strategy or "none",
                       invariant="analyze.task-in-flight-untouched", level="MUST",
                       outcome=OUTCOME.get(j.verdict, "pass"), message=message,
                       details=details, kind="probe")


def check_results(results: Sequence[FileResult]) -> list[CheckResult]:
    """Returns the judgements as the records of a report (one per interaction, one per unreadable file)."""
    out = []
    for result in results:
        if result.error is not None:
            out.append(unreadable_result(result.path, result.error))
        out += [judgement_result(j) for j in result.judgements]
    return out
