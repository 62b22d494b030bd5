"""The one loop: scenarios x targets x invariants -> result records.

The CLI, the pytest plugin and the reports are shells over ``run`` and ``check_scenario``. By
default ``run`` calls targets in worker processes (``worker.Pool``), several at once, and assembles
the records in the order a serial run gives them.
"""

from __future__ import annotations

import pickle
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from .._text import a_type, plural
from . import _memo, loop
from ..errors import SpecError, UsageError
from .evidence import sides
from .expectations import KnownGap, apply_gaps
from .invariants import CATALOG, CRASH_CHECK, LOOP_CHECK, OUTPUT_GUARD, Invariant, call_problem, output_unreadable
from .redaction import Redactor, native_secrets, secrets_in
from .command_report import Report
from .results import DECLINED, CheckResult, Outcome
from .spec import Scenario
from .stop_rules import ItemSummary, walk
from .target import (DEFAULT_TARGET, DEFAULT_TIME_LIMIT, Handed, NotGiven, Observation, Target, await_timers,
                     call_guarded, is_crash, mutated_since, resolve, running_timers)
from .tracebacks import credential_scrubber, scrub_data, traceback_key
from .transcript import Snapshot
from .wellformed import longest_output, new_malformations
from .worker import Event, Pool, default_jobs, output_captured
from .worker.jobs import failure_reason, one_job, resolved, run_items, window


@dataclass(frozen=True)
class RunOptions:
    """Knobs of a run. ``reference_targets`` are held to the REFERENCE level too."""

    time_limit: float = DEFAULT_TIME_LIMIT
    idempotence: bool = True
    reference_targets: frozenset[str] = frozenset({DEFAULT_TARGET})
    in_process: bool = False  # call targets in this process (threads), as for a debugger
    jobs: int | None = None  # worker processes; None means one per core
    memory_limit: int | None = None  # bytes of address space per worker
    maxfail: int | None = None  # stop after this many failing (scenario, target) items
    give_up_after: int | None = 3  # timeouts and worker deaths in all after which a target is given up
    invariants: frozenset[str] | None = None  # only these invariants are checked (None: every one)
    prefix_check: bool = True  # judge as current models do (the prefix check of replayed thinking); False: older models


REFUSAL_WOULD_PASS = ("this scenario allows a refusal: where the order hides the task boundary, raising "
                      "an error that is not a programming error (ValueError, RuntimeError, your own) passes")
RunReport = Report  # what ``run`` returns: the one report model of every command (command_report)


_WORD = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordFilter:
    """A ``-k`` expression: words match substrings of an id, family or feature; and/or/not/().

    Parsed once into nested tuples by a small recursive-descent parser (``or`` binds loosest, then
    ``and``, then ``not``), as pytest's ``-k`` reads; never evaluated as code."""

    def __init__(self, expression: str) -> None:
        self._tokens = _WORD.findall(expression)
        self._at = 0
        try:
            self._tree: Any = self._or() if self._tokens else ("word", "")
            if self._at != len(self._tokens):
                raise SyntaxError(self._tokens[self._at])
        except (SyntaxError, IndexError):
            raise UsageError(f"-k expression does not parse: {expression!r}") from None

    def _take(self) -> str:
        token = self._tokens[self._at]
        self._at += 1
        return token

    def _peek(self) -> str | None:
        return self._tokens[self._at] if self._at < len(self._tokens) else None

    def _chain(self, operator: str, operand: Callable[[], Any]) -> Any:
        """Returns the tree of ``operand (operator operand)*``, joined from the left."""
        left = operand()
        while self._peek() == operator:
            self._take()
            left = (operator, left, operand())
        return left

    def _or(self) -> Any:
        return self._chain("or", self._and)

    def _and(self) -> Any:
        return self._chain("and", self._not)

    def _not(self) -> Any:
        token = self._take()
        if token == "not":
            return ("not", self._not())
        if token == "(":
            inner = self._or()
            if self._take() != ")":
                raise SyntaxError("(")
            return inner
        if token in ("and", "or", ")"):
            raise SyntaxError(token)
        return ("word", token)

    def matches(self, *words: str) -> bool:
        """Returns whether the expression holds for a subject described by ``words``."""
        return _holds(self._tree, " ".join(words))

    def __call__(self, scenario: Scenario) -> bool:
        """Returns whether ``scenario`` is selected."""
        return self.matches(scenario.id, scenario.family, *scenario.features)


def _holds(tree: Any, haystack: str) -> bool:
    """Returns the value of a parsed ``-k`` expression for the text ``haystack``."""
    kind = tree[0]
    if kind == "word":
        return tree[1] in haystack
    if kind == "not":
        return not _holds(tree[1], haystack)
    if kind == "and":
        return _holds(tree[1], haystack) and _holds(tree[2], haystack)
    return _holds(tree[1], haystack) or _holds(tree[2], haystack)


def keyword_filter(expression: str) -> KeywordFilter:
    """Returns the ``-k`` filter of ``expression``; raises ``UsageError`` when it does not parse."""
    return KeywordFilter(expression)


def applicable(scenario: Scenario, target: Target, options: RunOptions) -> list[Invariant]:
    """Returns the invariants that apply to ``scenario`` for ``target``."""
    chosen = []
    for inv in CATALOG:
        if scenario.expect.invariants is not None and inv.id not in scenario.expect.invariants:
            continue
        if options.invariants is not None and inv.id not in options.invariants:
            continue
        if inv.level == "REFERENCE":
            has_expectation = (scenario.expect.reference_output is not None
                               or scenario.expect.reference_raises is not None)
            if not has_expectation or target.name not in options.reference_targets:
                continue
        if inv.second_call and not options.idempotence:
            continue
        if inv.prefix_check and not options.prefix_check:
            continue
        chosen.append(inv)
    return chosen


def observe(target: Target, scenario: Scenario, options: RunOptions) -> Observation:
    """Returns the guarded observation of ``target`` on ``scenario``, with a second pass for idempotence
    and the agent loop. The messages a target hands back unchanged are the scenario's own objects
    (``call_guarded``'s ``kept``), so the checks read each once; should the target change any of
    them after it returned them (a thread it left running, a later call), the scenario is observed
    again with each output as the target returned it.

    Once every call is over (and the timers the target started meanwhile have run: ``await_timers``),
    the copy each call was handed is compared again with the history it was taken from: a change the
    target made on a thread it left running, or in a later call, or one that a call other than the
    first made, marks the observation ``mutated`` (``mutated_since``)."""
    kept: list[Snapshot] = []
    handed: list[Handed] = []
    timers = running_timers()
    obs = _observe(target, scenario, options, kept, handed)
    if any(not snapshot.still_exact() for snapshot in kept):
        obs = _observe(target, scenario, options, None, handed)
    await_timers(timers, options.time_limit)
    if not obs.mutated:
        mutation = mutated_since(handed)
        if mutation:
            obs = replace(obs, mutated=True, mutation=mutation)
    return obs


def _observe(target: Target, scenario: Scenario, options: RunOptions, kept: list[Snapshot] | None,
             handed: list[Handed] | None = None) -> Observation:
    # The guard answers at the limit (with where the target was stuck); in a worker, the parent
    # kills the worker a little later should the guard itself be stuck (a target holding the GIL).
    limit = options.time_limit
    with window(limit, messages=len(scenario.history)):
        obs = call_guarded(target, scenario.history, scenario.params, limit, kept, handed)
    if (options.idempotence and obs.returned and isinstance(obs.output, list)
            and len(obs.output) <= longest_output(len(scenario.history))):  # else not read at all
        with window(limit, obs, messages=len(obs.output)):
            second = call_guarded(target, obs.output, scenario.params, limit, kept, handed,
                                  "the second call (on its own output)")
        obs = replace(obs, second=second)
    looped = [inv for inv in applicable(scenario, target, options) if inv.loop]  # (prefix checks need thinking)
    if not obs.timed_out and any(loop.has_thinking(scenario.history) if inv.prefix_check else scenario.truth.tasks
                                 for inv in looped):
        obs = replace(obs, plays=play_loop(target, scenario, options, obs, kept, handed))
    return obs


def _answer(obs: Observation, given: list[Any]) -> loop.Answer:
    """Returns what a call on the messages ``given`` gave the loop: the request, or why there is none
    and, when the call crashed, hung or returned no readable list (not a list, or one longer than a
    compaction returns, which is not read further), what it fails. A deliberate refusal fails
    nothing here, whatever the scenario allows: the loop's calls hold a prefix of its history."""
    if obs.returned and isinstance(obs.output, list) and len(obs.output) <= longest_output(len(given)):
        return loop.Answer(obs.output, summarized=obs.summarized)
    if obs.returned:
        _, problem, _ = next(new_malformations(given, obs.output))  # (not a list, or too long: the first)
        return loop.Answer(None, f"it {problem}", failed=f"{OUTPUT_GUARD.id}: {problem}", summarized=obs.summarized)
    failed = call_problem(obs, refusal_allowed=True)
    return loop.Answer(None, obs.error if obs.timed_out else f"{obs.error_type}: {obs.error}", obs.timed_out,
                       failed=f"{CRASH_CHECK.id}: {failed}" if failed else "", not_given=obs.not_given,
                       summarized=obs.summarized)


def play_loop(target: Target, scenario: Scenario, options: RunOptions, obs: Observation,
              kept: list[Snapshot] | None = None, handed: list[Handed] | None = None) -> tuple[loop.Play, ...]:
    """Returns the agent loop over the scenario's history in each mode (``loop.MODES``), the target
    called under guard before every assistant turn; ``obs`` is the stateless loop's last call;
    ``kept`` and ``handed`` are ``call_guarded``'s."""
    limit = options.time_limit
    kwargs = target.params_for(scenario.params)

    def call(messages: list[dict[str, Any]]) -> loop.Answer:
        with window(limit, messages=len(messages)):
            return _answer(call_guarded(target, messages, scenario.params, limit, kept, handed,
                                        f"a call of the agent loop (on {plural(len(messages), 'message')})"), messages)

    def call_reference(messages: list[dict[str, Any]]) -> loop.Answer:
        try:  # this project's own compactor: it neither hangs nor mutates, so it needs no guard nor copy
            return _answer(Observation(output=target.func(messages, **kwargs)), messages)
        except Exception as exc:  # noqa: BLE001 - a refusal is an answer of the loop like any other
            return _answer(Observation(error_type=type(exc).__name__, error=str(exc), crashed=is_crash(exc),
                                       not_given=isinstance(exc, NotGiven)), messages)

    if runs_here(target, options):
        call = call_reference

    final = _answer(obs, scenario.history)
    return tuple(loop.play(scenario.history, mode, call, final=final) for mode in loop.MODES)


def check_scenario(target: Target, scenario: Scenario, options: RunOptions = RunOptions(),
                   obs: Observation | None = None) -> list[CheckResult]:
    """Returns one result per applicable invariant of ``scenario`` on ``target``; never raises.

    No reasoning text of the input or the output reaches a result's message or details.
    """
    if obs is None:
        obs = observe(target, scenario, options)
    with _memo.shared_facts():  # facts are shared by the checks of this observation only: a target may
        results = _checks(target, scenario, options, obs)  # hand back one list object, refilled, call after call
    if not any(r.message or r.details for r in results):
        return results  # no text at all, so none to redact: skip collecting the reasoning texts
    second = obs.second
    second_output = second.output if second is not None else None
    redactor = Redactor([*secrets_in(scenario.history), *secrets_in(obs.output), *secrets_in(second_output),
                         *native_secrets(obs.output), *native_secrets(second_output)])
    scrub = credential_scrubber()
    out = []
    for r in results:
        if r.message or r.details or type(r.details) is not dict:  # (a result without text is kept as it is)
            r = redactor.result(r)
            r = replace(r, message=scrub(r.message), details=scrub_data(r.details, scrub))
        out.append(r)
    return out


def _checks(target: Target, scenario: Scenario, options: RunOptions, obs: Observation) -> list[CheckResult]:
    invariants = applicable(scenario, target, options)
    malformed = obs.returned and output_unreadable(scenario, obs)
    results = []
    for inv in invariants:
        record = partial(_record, target, scenario, inv)
        if inv.id in scenario.expect.skip:
            results.append(record("skip", scenario.expect.skip[inv.id]))
            continue
        if inv.needs_output and not obs.returned:
            if scenario.expect.refusal_allowed and obs.refused:
                results.append(record("skip", f"target declined: {obs.error_type}: {obs.error}"))
            else:  # the one error record is call.completes's; the rest were not run
                results.append(record("skip", f"not run: no output ({obs.error_type or 'hang'})",
                                      extra={"blocked_by": CRASH_CHECK.id}))
            continue
        if inv.loop and not any(loop.compacted(p) for p in obs.plays) and (obs.plays or not obs.returned) and not (
                inv is LOOP_CHECK and (obs.returned or obs.refused) and any(p.failed for p in obs.plays)):
            # (a loop call that failed is loop.every-call's to say, unless the run's own call failed: call.completes says it)
            results.append(record("skip", f"not run: {_unplayed(obs)}", extra=None if obs.returned or (
                scenario.expect.refusal_allowed and obs.refused) else {"blocked_by": CRASH_CHECK.id}))
            continue
        if (inv.needs_output or inv.loop) and not inv.guards_output and malformed:
            results.append(record("skip", "not run: the output is not a list of readable messages",
                                  extra={"blocked_by": OUTPUT_GUARD.id}))
            continue
        violations = _safe(inv, scenario, obs)
        if not violations:
            message = f"{DECLINED}{obs.error_type}" if (inv.reports_crash and obs.error_type) else ""
            results.append(record("pass", message))
        elif inv.reports_crash:  # raised or hung: no output at all
            crash = {"traceback": obs.error_traceback, "traceback_id": traceback_key(obs.error_traceback)} \
                if obs.error_traceback else {}
            if obs.printed:  # its last words, redacted below like every record
                crash["printed"] = obs.printed
            results.append(record("error", violations[0], extra=crash))
        else:
            lines = "\n".join(violations).splitlines()
            if inv.lists_mutation:
                lines += list(obs.mutation)
            if scenario.expect.refusal_allowed and inv.level == "MUST":
                lines.append(REFUSAL_WOULD_PASS)
            results.append(record("fail", lines[0], lines[1:], extra=sides(scenario, obs, lines[0], inv.id)))
    return results


def _record(target: Target, scenario: Scenario, inv: Invariant, outcome: Outcome, message: str,
            diff: list[str] | None = None, extra: Mapping[str, object] | None = None) -> CheckResult:
    details: dict[str, object] = {"diff": diff} if diff else {}
    details.update(extra or {})
    return CheckResult(target.name, scenario.id, scenario.family, inv.id, inv.level, outcome,
                       message, details)


def _safe(inv: Invariant, scenario: Scenario, obs: Observation) -> list[str]:
    try:
        return inv.check(scenario, obs)
    except Exception as exc:  # noqa: BLE001 - garbage output must not crash the run
        return [f"the output could not be checked: {type(exc).__name__}: {exc}"]


def run(targets: Sequence[Target], scenarios: Iterable[Scenario], *, gaps: Sequence[KnownGap] = (),
        options: RunOptions = RunOptions(), spec_errors: Sequence[SpecError] = (),
        progress: Callable[[int, int], None] | None = None, keep_on_interrupt: bool = False) -> RunReport:
    """Returns the report of every scenario on every target, with known gaps applied.

    The records come in the order of a serial run (targets, then scenarios), whatever ``jobs``.
    ``progress(done, total)`` is called as items finish. On Ctrl-C, ``KeyboardInterrupt`` is
    raised (the workers stopped), or with ``keep_on_interrupt`` the report of what finished is
    returned, marked ``interrupted``.
    """
    chosen = list(scenarios)
    items = [(t, s) for t in targets for s in chosen]
    names = [t.name for t, _ in items]
    done: dict[int, tuple[Observation, list[CheckResult]]] = {}
    summaries: dict[int, ItemSummary] = {}
    known = [walk(names, summaries, options.maxfail, options.give_up_after)]  # stop decisions never revert

    def finish(index: int, obs: Observation, results: list[CheckResult]) -> None:
        target = items[index][0]
        done[index] = (obs, results)
        gating = {"MUST"} | ({"REFERENCE"} if target.name in options.reference_targets else set())
        gapped = apply_gaps(results, gaps)
        failed = any(r.level in gating and r.outcome in ("fail", "error", "xpass") for r in gapped)
        known_gap = any(r.outcome == "xfail" and r.invariant in _CALL_CHECKS for r in gapped)
        timed_out = not known_gap and _abandoned((obs, results))  # the call, its second, or a call of the loop
        died = not known_gap and obs.error_type == "WorkerDied"  # a known gap spends no give-up budget
        summaries[index] = ItemSummary(timed_out, failed, died)
        if timed_out or died or (failed and options.maxfail):
            known[0] = walk(names, summaries, options.maxfail, options.give_up_after)
        if progress is not None:
            progress(len(done), len(items))

    shipped = {t.name: None if runs_here(t, options) else shipping(t) for t in targets} if not options.in_process else {}
    interrupted = False
    try:
        run_items(len(items), [i for i, (t, _) in enumerate(items) if shipped.get(t.name) is not None],
                  lambda index: (_run_item, (shipped[items[index][0].name], items[index][1], options)),
                  lambda index, event: _from_event(event, *items[index], options),
                  lambda index: _here(*items[index], options), lambda index, value: finish(index, *value),
                  jobs=options.jobs or default_jobs(), memory_limit=options.memory_limit, abandoned=_abandoned,
                  decided=lambda index: known[0].decided(index))
    except KeyboardInterrupt:  # Ctrl-C: keep what finished; workers killed by the interrupt are not results
        if not keep_on_interrupt:
            raise
        interrupted = True
        for index in [i for i, (obs, _) in done.items() if obs.error_type in ("WorkerDied", "WorkerError")]:
            del done[index]
            summaries.pop(index, None)
    state = walk(names, summaries, options.maxfail, options.give_up_after)
    results: list[CheckResult] = []
    observations: dict[tuple[str, str], Observation] = {}
    ran_scenarios: dict[str, Scenario] = {}
    for index, (target, scenario) in enumerate(items):
        if index in state.hung:
            results.extend(error_records(target, scenario, options, state.hung[index], given_up=True))
        elif index in done and (interrupted or state.stopped_at is None or index <= state.stopped_at):
            obs, mine = done[index]
            observations[(target.name, scenario.id)] = obs
            results.extend(mine)
        else:
            continue
        ran_scenarios.setdefault(scenario.id, scenario)
    stopped = ""
    if interrupted:
        unit = "scenarios" if len(targets) == 1 else "scenario runs (scenarios x targets)"
        stopped = f"interrupted (Ctrl-C): {len(done)} of {len(items)} {unit} finished"
    elif state.stopped_at is not None and state.stopped_at < len(items) - 1:
        stopped = (f"stopped after {plural(options.maxfail, 'failing scenario')} (--maxfail {options.maxfail}): "
                   f"{len(items) - 1 - state.stopped_at} not run")
    kept = [s for s in chosen if s.id in ran_scenarios] if stopped else chosen
    return Report("run", apply_gaps(results, gaps), spec_errors=list(spec_errors), targets=[t.name for t in targets],
                  reference_targets=frozenset(options.reference_targets), scenarios=kept,
                  observations=observations, stopped=stopped, given_up=dict(state.given_up), interrupted=interrupted)


# the records of a call that hung or killed its worker: the check of the call and of the second call
_CALL_CHECKS = tuple(inv.id for inv in CATALOG if inv.reports_crash or inv.second_call)


def _here(target: Target, scenario: Scenario, options: RunOptions) -> tuple[Observation, list[CheckResult]]:
    """Returns the observation (``judged``) and records of ``scenario`` on ``target`` called in this process."""
    obs = observe(target, scenario, options)
    return judged(obs), check_scenario(target, scenario, options, obs)


def _unplayed(obs: Observation) -> str:
    """Returns why the agent loop judged no request the target made: it stopped at a call that failed
    before any, the target declined every call, or the loop was not played (the run's call gave nothing)."""
    if not obs.plays:
        return f"the agent loop sent no request (no output ({obs.error_type or 'hang'}))"
    played = obs.plays[0]
    if played.stopped:
        return f"the agent loop sent no request ({played.stopped})"
    return f"the target declined every call of the agent loop ({played.steps[0].declined})"


def judged(obs: Observation) -> Observation:
    """Returns ``obs`` without what only its checks read, so a run keeps no more than its outputs:
    the loop's requests (why each mode stopped and its cache figure stay) and the summarizer's prompts
    (they hold the history's reasoning when a target fails ``summary.no-reasoning``)."""
    if obs.summarized:
        obs = replace(obs, summarized=())
    if any(p.steps for p in obs.plays):
        obs = replace(obs, plays=tuple(replace(p, steps=()) for p in obs.plays))
    return obs


def _abandoned(value: tuple[Observation, list[CheckResult]]) -> bool:
    """Returns whether the guard gave up on a call of the observation (a thread of the target may still run)."""
    obs = value[0]
    return obs.timed_out or (obs.second is not None and obs.second.timed_out) or any(p.timed_out for p in obs.plays)


def error_records(target: Target, scenario: Scenario, options: RunOptions, reason: str,
                  given_up: bool = False) -> list[CheckResult]:
    """Returns the records of a scenario whose call gave nothing to check (a dead worker, a target
    given up: ``given_up`` marks its error): a ``call.completes`` error naming why, the other checks
    not run."""
    out = []
    for inv in applicable(scenario, target, options):
        if inv.id in scenario.expect.skip:
            out.append(_record(target, scenario, inv, "skip", scenario.expect.skip[inv.id]))
        elif inv.reports_crash:  # the one error record; the rest were not run
            out.append(_record(target, scenario, inv, "error", reason,
                               extra={"given_up": True} if given_up else None))
        else:
            out.append(_record(target, scenario, inv, "skip", f"not run: {reason}",
                               extra={"blocked_by": CRASH_CHECK.id}))
    return out


def _run_item(shipped: str | Target, scenario: Scenario, options: RunOptions,
              outputs: bool = True) -> tuple[Observation, list[CheckResult]]:
    """Runs one scenario on a target in a worker: the target is resolved there by name (or arrives
    pickled); returns the observation (output made picklable; without the outputs unless
    ``outputs``) and the records."""
    with output_captured() as printed:  # the target's own output never reaches the terminal
        target = resolved(shipped)
        obs = observe(target, scenario, options)
    if printed[0]:
        obs = replace(obs, printed=printed[0])
    results = check_scenario(target, scenario, options, obs)
    if isinstance(obs.output, list) and len(obs.output) > longest_output(len(scenario.history)):
        obs = replace(obs, output=f"<a list of {len(obs.output)} items, checked in the worker, not sent back>")
    obs = judged(obs)
    if not outputs:
        obs = replace(obs, output=None, second=replace(obs.second, output=None) if obs.second else None)
    return _picklable(obs), results


def _picklable(obs: Observation) -> Observation:
    """Returns ``obs`` with any output that does not pickle replaced by a description of it."""
    try:
        pickle.dumps(obs)
        return obs
    except Exception:  # noqa: BLE001 - any object a target returns
        second = _picklable(obs.second) if obs.second is not None else None
        try:
            pickle.dumps(obs.output)
            output = obs.output
        except Exception:  # noqa: BLE001 - any object a target returns, its repr included
            output = f"<{a_type(obs.output)} that cannot be sent between processes>"
        return replace(obs, output=output, second=second)


def checked_in_worker(pool: Pool, shipped: str | Target, target: Target, scenario: Scenario,
                      options: RunOptions, outputs: bool = True) -> tuple[Observation, list[CheckResult]]:
    """Returns the observation and records of ``scenario`` on ``target`` called in one of ``pool``'s
    workers (``shipped``: how the target gets there, see ``shipping``; the observation without the
    outputs unless ``outputs``). A hang or a dead worker is an error record, never an exception;
    the pool has a free worker again afterwards."""
    return one_job(pool, scenario.id, (_run_item, (shipped, scenario, options, outputs)),
                   lambda event: _from_event(event, target, scenario, options), _abandoned)


def runs_here(target: Target, options: RunOptions) -> bool:
    """Returns whether ``target`` is called in this process without asking: the shipped reference
    compactor itself (this project's own code, which needs no isolation: no worker to start), unless
    the run caps the workers' memory. Any other target runs in a worker."""
    reference = sys.modules.get("conformance_reference")
    return (target.name == DEFAULT_TARGET and options.memory_limit is None and reference is not None
            and target.func is getattr(reference, "compact", None))


def shipping(target: Target) -> str | Target | None:
    """Returns how ``target`` reaches a worker: its name (resolved there), itself pickled, or
    ``None`` when it can only run in this process (a lambda, a closure)."""
    try:
        if resolve(target.name).func is target.func:
            return target.name
    except Exception:  # noqa: BLE001 - not a module:attr name
        pass
    try:
        pickle.dumps(target)
        return target
    except Exception:  # noqa: BLE001 - unpicklable callables run in-process
        return None


def _from_event(event: Event, target: Target, scenario: Scenario,
                options: RunOptions) -> tuple[Observation, list[CheckResult]]:
    """Returns the observation and records of a job's event, in the parent when the worker gave none."""
    if event.kind == "done":
        return event.value  # type: ignore[no-any-return]  # a worker's records cross the pipe untyped
    if event.kind == "timeout":
        hung = Observation(timed_out=True, elapsed=event.limit, error=event.reason)
        obs = hung if event.partial is None else replace(event.partial, second=hung)
        return obs, check_scenario(target, scenario, options, obs)
    reason = failure_reason(event, "this scenario")
    obs = Observation(error_type="WorkerDied" if event.kind == "died" else "WorkerError", error=reason,
                      crashed=True)  # never a refusal
    return obs, error_records(target, scenario, options, reason)
