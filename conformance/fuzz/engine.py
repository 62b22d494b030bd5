"""Property-based fuzzing: the invariant catalog over generated histories, shrunk on failure.

``run_fuzz`` runs a target on ``histories()`` examples with Hypothesis; the first example that breaks a
gating invariant is shrunk to a minimal history and returned as a ``Scenario`` ready to be written
as a scenario file. Failures found before are replayed first from Hypothesis' example database.

The target is called in a worker process, as ``run`` calls it: a call past the time limit, a
segfault or an ``os._exit`` is a failing example (``call.completes``) that is shrunk and written
like any other. Shrinking a failure that costs a timeout or a fresh worker per try stops after
``FuzzOptions.shrink_seconds``, with the smallest failing example found by then. ``in_process``
calls the target in this process instead (as for a debugger), as do targets that cannot reach a
worker (a lambda, a closure).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from ..engine.invariants import CATALOG
from ..engine.results import CheckResult
from ..engine.runner import RunOptions, check_scenario, checked_in_worker, observe, shipping
from ..engine.spec import Scenario
from .storage import hypothesis_storage
from .strategies import histories
from ..engine.target import DEFAULT_TIME_LIMIT, Target
from ..engine.worker import Pool, output_captured

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
    in_process: bool = False  # call the target in this process (no isolation; for a debugger)
    memory_limit: int | None = None  # bytes of address space of the worker
    shrink_seconds: float = 30.0  # past this much shrinking, a failure that hangs or kills its worker stays as found
    invariants: tuple[str, ...] | None = None  # only these invariants are checked and count (None: every one)


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


def _run_options(options: FuzzOptions) -> RunOptions:
    """Returns the run options of each example: when only some invariants count, only those are
    checked, and the target is called a second time only when one of them judges that call."""
    only = None if options.invariants is None else frozenset(options.invariants)
    second = options.idempotence and (only is None or any(inv.second_call for inv in CATALOG if inv.id in only))
    return RunOptions(time_limit=options.time_limit, idempotence=second,
                      reference_targets=frozenset(), in_process=options.in_process,
                      memory_limit=options.memory_limit, invariants=only)


def _failing(results: list[CheckResult], options: FuzzOptions, hung: bool = False) -> list[CheckResult]:
    """Returns the results that fail at one of ``options.levels`` (of ``options.invariants`` only,
    when given); when a call ``hung`` or killed its worker, the failing records of that call too,
    whatever their level (a hang on the second call is an ``output.idempotent`` failure)."""
    return [r for r in results if r.outcome in FAILING and (r.level in options.levels
                                                            or (hung and r.invariant in _CALL_CHECKS))
            and (options.invariants is None or r.invariant in options.invariants)]


_CALL_CHECKS = ("call.completes", "output.idempotent")


def failing_checks(target: Target, scenario: Scenario, options: FuzzOptions) -> list[CheckResult]:
    """Returns the results of ``scenario`` on ``target`` (called in this process) that fail at one
    of ``options.levels``."""
    run_options = _run_options(options)
    with output_captured() as printed:  # the target's own output reaches no terminal and no log
        obs = observe(target, scenario, run_options)
    if printed[0]:
        obs = replace(obs, printed=printed[0])
    return _failing(check_scenario(target, scenario, run_options, obs), options)


Checks = Callable[[Scenario], "tuple[list[CheckResult], bool]"]


@contextmanager
def _checker(target: Target, named: Target, options: FuzzOptions) -> Iterator[Checks]:
    """Yields ``checks(scenario)``: the failing results of one example on ``target`` (``named``
    before it was wrapped in a format) and whether the call hung or killed its worker. The calls
    run in one worker process, kept from example to example, unless ``options.in_process`` or the
    target cannot reach a worker."""
    run_options = _run_options(options)
    shipped = None if options.in_process else shipping(named)
    if shipped is not None and options.format is not None:
        shipped = target  # the format wrapper pickles, sending the inner target by its name
    if shipped is None:
        yield lambda scenario: (failing_checks(target, scenario, options), False)
        return
    pool = Pool(1, options.memory_limit)
    try:
        def checks(scenario: Scenario) -> tuple[list[CheckResult], bool]:
            obs, results = checked_in_worker(pool, shipped, target, scenario, run_options, outputs=False)
            costly = obs.timed_out or (obs.second is not None and obs.second.timed_out) \
                or obs.error_type == "WorkerDied"
            return _failing(results, options, costly), costly
        yield checks
    finally:
        pool.close()


def _key(scenario: Scenario) -> str:
    """Returns a key that tells examples apart: the history, truth, parameters and expectations as
    canonical JSON (0, 0.0 and false stay apart)."""
    return json.dumps([scenario.history, repr(scenario.truth), scenario.params, repr(scenario.expect)],
                      sort_keys=True, default=repr)


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
    named = target
    fmt = None
    if options.format is not None:
        from ..formats import get
        from ..formats.wrap import wrap

        fmt = get(options.format)
        target = wrap(target, fmt)
    with _checker(target, named, options) as checks:
        return _fuzz(target, checks, fmt, options)


def _fuzz(target: Target, checks: Checks, fmt: Any, options: FuzzOptions) -> FuzzResult:
    count, first_failure = 0, 0
    failing: dict[str, list[CheckResult]] = {}  # failing examples: replayed without another call
    shrink_until: float | None = None  # set at the first failure that hung or killed its worker

    def prop(scenario: Scenario) -> None:
        nonlocal count, first_failure, shrink_until
        if fmt is not None:
            from ..formats.wrap import adapted

            held = adapted(scenario, fmt)  # as an agent speaking the format holds it
            if held is None:
                reject()  # not expressible in the target's format: not an example
            scenario = held
        key = _key(scenario) if failing else ""
        failures = failing.get(key)
        if failures is None:
            if shrink_until is not None and time.monotonic() > shrink_until:
                return  # shrinking spent its time: the smallest failure so far stands
            count += 1
            if options.progress is not None and not first_failure:
                options.progress(count)
            failures, costly = checks(scenario)
            if costly and (failures or first_failure) and shrink_until is None:
                shrink_until = time.monotonic() + options.shrink_seconds  # each further try may cost as much
            if failures:
                first_failure = first_failure or count
                failing[key or _key(scenario)] = failures
        if failures:  # one place that raises: Hypothesis tells failures apart by where they were raised
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
