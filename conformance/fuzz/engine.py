"""Property-based fuzzing: the invariant catalog over generated histories, shrunk on failure.

``run_fuzz`` runs a target on ``histories()`` examples with Hypothesis; the first example that breaks a
gating invariant is shrunk to a minimal history and returned as a ``Scenario`` ready to be written
as a scenario file. Failures found before are replayed first from Hypothesis' example database.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from ..results import CheckResult
from ..runner import RunOptions, check_scenario, observe
from ..spec import Scenario
from .storage import hypothesis_storage
from .strategies import histories
from ..target import DEFAULT_TIME_LIMIT, Target
from ..worker import output_captured

CACHE_DIR = Path(".conformance_cache") / "hypothesis"
FAILING = ("fail", "error")
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)  # no "explain" pass: it reruns a failure many times


@dataclass(frozen=True)
class FuzzOptions:
    """Knobs of one fuzzing run. ``levels`` are the invariant levels whose failure counts."""

    examples: int = 100
    seed: int = 0
    levels: tuple[str, ...] = ("MUST",)
    undecidable: bool = True
    time_limit: float = DEFAULT_TIME_LIMIT
    idempotence: bool = True
    database: Path | None = CACHE_DIR
    shrink: bool = True
    format: str | None = None  # the message format the target speaks; None for Anthropic's
    progress: Callable[[int], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class FuzzResult:
    """What a fuzzing run found: nothing, or one shrunk scenario and its failing results."""

    target: str
    examples: int  # histories tried until the first failure (all of them when none failed)
    scenario: Scenario | None = None
    failures: tuple[CheckResult, ...] = ()

    @property
    def passed(self) -> bool:
        """Returns whether every example held every gating invariant."""
        return self.scenario is None


class _Counterexample(Exception):
    """Raised inside the property so that Hypothesis shrinks; carries the scenario and results."""

    def __init__(self, scenario: Scenario, failures: list[CheckResult]) -> None:
        super().__init__(", ".join(sorted({r.invariant for r in failures})))
        self.scenario, self.failures = scenario, failures


def failing_checks(target: Target, scenario: Scenario, options: FuzzOptions) -> list[CheckResult]:
    """Returns the results of ``scenario`` on ``target`` that fail at one of ``options.levels``."""
    run_options = RunOptions(time_limit=options.time_limit, idempotence=options.idempotence,
                             reference_targets=frozenset())
    with output_captured() as printed:  # the target's own output reaches no terminal and no log
        obs = observe(target, scenario, run_options)
    if printed[0]:
        obs = replace(obs, printed=printed[0])
    return [r for r in check_scenario(target, scenario, run_options, obs)
            if r.level in options.levels and r.outcome in FAILING]


def database_for(target: Target, folder: Path | None) -> DirectoryBasedExampleDatabase | None:
    """Returns the example database of ``target`` under ``folder`` (one sub-folder per target)."""
    if folder is None:
        return None
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", target.name).strip("_") or "target"
    return DirectoryBasedExampleDatabase(str(Path(folder) / slug))


def _first_leaf(group: BaseExceptionGroup) -> _Counterexample:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_leaf(exc)
        if isinstance(exc, _Counterexample):
            return exc
    raise group


def run_fuzz(target: Target, options: FuzzOptions = FuzzOptions()) -> FuzzResult:
    """Returns the outcome of ``options.examples`` generated histories on ``target``; never raises
    for a failing target (its shrunk counterexample is in the result)."""
    count, first_failure = 0, 0
    fmt = None
    if options.format is not None:
        from ..formats import get
        from ..formats.wrap import adapted, wrap

        fmt = get(options.format)
        target = wrap(target, fmt)

    def prop(scenario: Scenario) -> None:
        nonlocal count, first_failure
        if fmt is not None:
            held = adapted(scenario, fmt)  # as an agent speaking the format holds it
            if held is None:
                reject()  # not expressible in the target's format: not an example
            scenario = held
        count += 1
        if options.progress is not None and not first_failure:
            options.progress(count)
        failures = failing_checks(target, scenario, options)
        if failures:
            first_failure = first_failure or count
            raise _Counterexample(scenario, failures)

    configured = settings(
        max_examples=options.examples, deadline=None, database=database_for(target, options.database),
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False, verbosity=Verbosity.quiet,
        print_blob=False, phases=_PHASES + ((Phase.shrink,) if options.shrink else ()))
    # settings go on last: @seed alone turns the example database off
    test = configured(seed(options.seed)(given(histories(undecidable=options.undecidable))(prop)))
    try:
        with hypothesis_storage():
            test()
    except _Counterexample as found:
        return FuzzResult(target.name, first_failure, found.scenario, tuple(found.failures))
    except BaseExceptionGroup as group:  # a flaky target: report the failure it did show
        flaky = group.subgroup(_Counterexample)
        if flaky is None:
            raise
        first = _first_leaf(flaky)
        return FuzzResult(target.name, first_failure, first.scenario, tuple(first.failures))
    return FuzzResult(target.name, count)
