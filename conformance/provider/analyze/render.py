"""The report's records of ``analyze``: one ``CheckResult`` per judged interaction and per unreadable
recording, which the terminal, JSON and report writers (``output``) take as they come."""

from __future__ import annotations

from ...engine.results import CheckResult, Outcome
from ..recordings import RecordingError
from .model import FAILING, Judgement

OUTCOME: dict[str, Outcome] = {**{verdict: "fail" for verdict in FAILING}, "error": "error", "cannot-tell": "skip",
                               "not-judged": "skip"}


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
