"""One result record per (subject, check): the currency every runner, reporter and shell shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

Outcome = Literal["pass", "fail", "error", "skip", "xfail", "xpass"]
Level = Literal["MUST", "SHOULD", "REFERENCE"]
OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "skip", "xfail", "xpass")
# Of the skips, those not run because the call raised or hung or its output was malformed: they are
# no pass, and a "passing / checked" tally counts them as checked and not passing.
NOT_RUN = "not_run"
NO_OUTPUT = "no-output"  # checks that passed on a call that returned nothing (raised, hung, declined)
SHOWN: tuple[str, ...] = (*OUTCOMES, NO_OUTPUT)  # the counts a report shows: no-output passes apart
# The message of a ``call.completes`` pass whose call declined (raised a refusal the scenario allows).
DECLINED = "declined: "


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check of one subject (a scenario or a provider probe) on one target.

    ``details`` holds structured evidence: ``diff`` lines for a scenario, ``verdict``/``evidence``
    for a probe. ``kind`` is ``"scenario"`` or ``"probe"``.
    """

    target: str
    scenario: str
    family: str
    invariant: str
    level: Level
    outcome: Outcome
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    kind: str = "scenario"

    def to_dict(self) -> dict[str, Any]:
        """Returns the record as plain JSON-ready data (what ``dataclasses.asdict`` returns)."""
        return {f.name: plain_copy(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class _Box:
    """One value, for ``dataclasses.asdict`` to copy."""

    value: Any


_ATOMIC = frozenset({str, int, float, bool, type(None)})


def plain_copy(value: Any) -> Any:
    """Returns the copy ``dataclasses.asdict`` makes of a field's value: plain dicts, lists and tuples
    rebuilt, strings, numbers and None as they are, anything else as ``asdict`` copies it."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is dict:
        return {plain_copy(k): plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [plain_copy(v) for v in value]
    if kind is tuple:
        return tuple(plain_copy(v) for v in value)
    return asdict(_Box(value))["value"]


def gating_failures(results: Iterable[CheckResult], levels: Iterable[str] = ("MUST",)) -> list[CheckResult]:
    """Returns the results that fail the run: a gating level with outcome fail, error or xpass."""
    gate = set(levels)
    return [r for r in results if r.level in gate and r.outcome in ("fail", "error", "xpass")]


def must_checked(results: Iterable[CheckResult]) -> bool:
    """Returns whether at least one MUST check was evaluated and not excused: a pass, fail, error or
    xpass (skipped, not-run and known-gap checks are no evidence either way)."""
    return any(r.level == "MUST" and r.outcome in ("pass", "fail", "error", "xpass") for r in results)


def summarize(results: Iterable[CheckResult]) -> dict[str, Any]:
    """Returns counts per outcome, and per level, family and invariant (each row also counts its
    ``not_run`` skips), as plain data."""
    by_outcome = {o: 0 for o in OUTCOMES}
    by_level: dict[str, dict[str, int]] = {}
    by_family: dict[str, dict[str, int]] = {}
    by_invariant: dict[str, dict[str, int]] = {}
    total = 0
    for r in results:
        total += 1
        by_outcome[r.outcome] += 1
        blocked = r.outcome == "skip" and bool(r.details.get("blocked_by"))
        for table, key in ((by_level, r.level), (by_family, r.family), (by_invariant, r.invariant)):
            row = table.setdefault(key, {o: 0 for o in OUTCOMES} | {NOT_RUN: 0})
            row[r.outcome] += 1
            row[NOT_RUN] += blocked
    return {"total": total, "outcomes": by_outcome, "levels": by_level, "families": by_family,
            "invariants": by_invariant}


def without_output(results: Iterable[CheckResult]) -> set[tuple[str, str]]:
    """Returns the (target, scenario) pairs whose call gave no output: its ``call.completes``
    record is an error (raised, hung), a known-gap error, or a pass of a declined call."""
    return {(r.target, r.scenario) for r in results if r.invariant == "call.completes" and r.kind == "scenario"
            and (r.outcome in ("error", "xfail") or (r.outcome == "pass" and r.message.startswith(DECLINED)))}


def summarize_shown(results: Sequence[CheckResult]) -> dict[str, Any]:
    """Returns ``summarize`` of ``results`` where a pass on a call that returned nothing is counted
    as ``no-output``, not as a pass (a target that always raises passes nothing)."""
    no_output = without_output(results)
    summary = summarize(results)
    idle = summarize([r for r in results if r.outcome == "pass" and (r.target, r.scenario) in no_output])
    for name in ("outcomes", "families", "invariants"):
        table, lost = summary[name], idle[name]
        rows = [table] if name == "outcomes" else [table.get(k, {}) for k in lost]
        keys = [None] if name == "outcomes" else list(lost)
        for row, key in zip(rows, keys):
            gone = (lost if key is None else lost[key])["pass"]
            row["pass"] -= gone
            row[NO_OUTPUT] = gone
    summary["outcomes"].setdefault(NO_OUTPUT, 0)
    return summary
