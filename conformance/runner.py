"""The one loop: scenarios x targets x invariants -> result records.

The CLI, the pytest plugin and the reports are shells over ``run`` and ``check_scenario``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from .errors import SpecError, UsageError
from .evidence import sides
from .expectations import KnownGap, apply_gaps
from .invariants import BY_ID, CATALOG, Invariant, output_unreadable
from .redaction import Redactor, secrets_in
from .results import CheckResult, gating_failures
from .spec import Scenario
from .target import DEFAULT_TARGET, DEFAULT_TIME_LIMIT, Observation, Target, call_guarded
from .tracebacks import scrub_credentials, scrub_data, traceback_key


@dataclass(frozen=True)
class RunOptions:
    """Knobs of a run. ``reference_targets`` are held to the REFERENCE level too."""

    time_limit: float = DEFAULT_TIME_LIMIT
    idempotence: bool = True
    reference_targets: frozenset[str] = frozenset({DEFAULT_TARGET})


@dataclass
class RunReport:
    """Everything one run produced, as plain data."""

    results: list[CheckResult] = field(default_factory=list)
    spec_errors: list[SpecError] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    scenarios: list[Scenario] = field(default_factory=list)
    reference_targets: frozenset[str] = frozenset()
    observations: dict[tuple[str, str], Observation] = field(default_factory=dict)

    def failures(self) -> list[CheckResult]:
        """Returns the results that make the run fail (MUST, plus REFERENCE for reference targets)."""
        must = gating_failures(self.results, ("MUST",))
        ref = [r for r in gating_failures(self.results, ("REFERENCE",)) if r.target in self.reference_targets]
        return must + ref

    @property
    def exit_code(self) -> int:
        """Returns 2 for spec errors, 1 when a gating check failed, 0 when the target conforms."""
        if self.spec_errors:
            return 2
        return 1 if self.failures() else 0


_WORD = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordFilter:
    """A ``-k`` expression: words match substrings of an id, family or feature; and/or/not/()."""

    def __init__(self, expression: str) -> None:
        self._tokens = _WORD.findall(expression)
        try:
            self.matches("")
        except SyntaxError:
            raise UsageError(f"-k expression does not parse: {expression!r}") from None

    def matches(self, *words: str) -> bool:
        """Returns whether the expression holds for a subject described by ``words``."""
        haystack = " ".join(words)
        parts = [t if t in ("and", "or", "not", "(", ")") else str(t in haystack) for t in self._tokens]
        return bool(eval(" ".join(parts) or "True", {"__builtins__": {}}, {}))  # noqa: S307 - True/False/ops only

    def __call__(self, scenario: Scenario) -> bool:
        """Returns whether ``scenario`` is selected."""
        return self.matches(scenario.id, scenario.family, *scenario.features)


def keyword_filter(expression: str) -> KeywordFilter:
    """Returns the ``-k`` filter of ``expression``; raises ``UsageError`` when it does not parse."""
    return KeywordFilter(expression)


def applicable(scenario: Scenario, target: Target, options: RunOptions) -> list[Invariant]:
    """Returns the invariants that apply to ``scenario`` for ``target``."""
    chosen = []
    for inv in CATALOG:
        if scenario.expect.invariants is not None and inv.id not in scenario.expect.invariants:
            continue
        if inv.level == "REFERENCE":
            has_expectation = (scenario.expect.reference_output is not None
                               or scenario.expect.reference_raises is not None)
            if not has_expectation or target.name not in options.reference_targets:
                continue
        if inv.id == "output.idempotent" and not options.idempotence:
            continue
        chosen.append(inv)
    return chosen


def observe(target: Target, scenario: Scenario, options: RunOptions) -> Observation:
    """Returns the guarded observation of ``target`` on ``scenario``, with a second pass for idempotence."""
    obs = call_guarded(target, scenario.history, scenario.params, options.time_limit)
    if options.idempotence and obs.returned and isinstance(obs.output, list):
        return replace(obs, second=call_guarded(target, obs.output, scenario.params, options.time_limit))
    return obs


def check_scenario(target: Target, scenario: Scenario, options: RunOptions = RunOptions(),
                   obs: Observation | None = None) -> list[CheckResult]:
    """Returns one result per applicable invariant of ``scenario`` on ``target``; never raises.

    No reasoning text of the input or the output reaches a result's message or details.
    """
    if obs is None:
        obs = observe(target, scenario, options)
    second = obs.second
    redactor = Redactor([*secrets_in(scenario.history), *secrets_in(obs.output),
                         *secrets_in(second.output if second is not None else None)])
    redacted = [redactor.result(r) for r in _checks(target, scenario, options, obs)]
    return [replace(r, message=scrub_credentials(r.message), details=scrub_data(r.details)) for r in redacted]


def _checks(target: Target, scenario: Scenario, options: RunOptions, obs: Observation) -> list[CheckResult]:
    invariants = applicable(scenario, target, options)
    shape = BY_ID["output.well-formed"]
    malformed = obs.returned and output_unreadable(scenario, obs)
    results = []
    for inv in invariants:
        record = partial(_record, target, scenario, inv)
        if inv.id in scenario.expect.skip:
            results.append(record("skip", scenario.expect.skip[inv.id]))
            continue
        if inv.needs_output and inv.level != "REFERENCE" and not obs.returned:
            if scenario.expect.refusal_allowed and obs.refused:
                results.append(record("skip", f"target declined: {obs.error_type}: {obs.error}"))
            else:  # the one error record is call.completes's; the rest were not run
                results.append(record("skip", f"not run: no output ({obs.error_type or 'hang'})",
                                      extra={"blocked_by": "call.completes"}))
            continue
        if inv.needs_output and inv is not shape and malformed and inv.level != "REFERENCE":
            results.append(record("skip", "not run: the output is not a list of readable messages",
                                  extra={"blocked_by": shape.id}))
            continue
        violations = _safe(inv, scenario, obs)
        if not violations:
            message = f"declined: {obs.error_type}" if (inv.id == "call.completes" and obs.error_type) else ""
            results.append(record("pass", message))
        elif inv.id == "call.completes":  # raised or hung: no output at all
            crash = {"traceback": obs.error_traceback, "traceback_id": traceback_key(obs.error_traceback)} \
                if obs.error_traceback else {}
            results.append(record("error", violations[0], extra=crash))
        else:
            lines = "\n".join(violations).splitlines()
            results.append(record("fail", lines[0], lines[1:], extra=sides(scenario, obs, lines[0], inv.id)))
    return results


def _record(target: Target, scenario: Scenario, inv: Invariant, outcome: str, message: str,
            diff: list[str] | None = None, extra: dict[str, str] | None = None) -> CheckResult:
    details: dict[str, object] = {"diff": diff} if diff else {}
    details.update(extra or {})
    return CheckResult(target.name, scenario.id, scenario.family, inv.id, inv.level, outcome,  # type: ignore[arg-type]
                       message, details)


def _safe(inv: Invariant, scenario: Scenario, obs: Observation) -> list[str]:
    try:
        return inv.check(scenario, obs)
    except Exception as exc:  # noqa: BLE001 - garbage output must not crash the run
        return [f"the output could not be checked: {type(exc).__name__}: {exc}"]


def run(targets: Sequence[Target], scenarios: Iterable[Scenario], *, gaps: Sequence[KnownGap] = (),
        options: RunOptions = RunOptions(), spec_errors: Sequence[SpecError] = ()) -> RunReport:
    """Returns the report of every scenario on every target, with known gaps applied."""
    chosen = list(scenarios)
    results: list[CheckResult] = []
    observations: dict[tuple[str, str], Observation] = {}
    for target in targets:
        for scenario in chosen:
            obs = observations[(target.name, scenario.id)] = observe(target, scenario, options)
            results.extend(check_scenario(target, scenario, options, obs))
    return RunReport(apply_gaps(results, gaps), list(spec_errors), [t.name for t in targets], chosen,
                     frozenset(options.reference_targets), observations)
