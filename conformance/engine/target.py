"""Resolve a target given as ``module:attr`` and call it under guard.

A guarded call never raises: exceptions, hangs past the time limit, mutation of the input and the
result are all recorded in an ``Observation``.
"""

from __future__ import annotations

import importlib
import inspect
import copy
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._paths import outside_cwd
from .._text import a_type, plural
from . import transcript
from .clock import CallTime, call_within
from ..errors import TargetError
from .tracebacks import stack_of, target_traceback
from .wellformed import longest_output

Compactor = Callable[..., Any]
DEFAULT_TARGET = "conformance_reference:compact"
DEFAULT_TIME_LIMIT = 5.0


@dataclass(frozen=True)
class Target:
    """A compactor under test and the name it was given by."""

    name: str
    func: Compactor
    accepts: frozenset[str] | None  # keyword names it takes; None means it takes **kwargs

    def params_for(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Returns the scenario parameters this target's signature accepts."""
        if self.accepts is None:
            return dict(params)
        return {k: v for k, v in params.items() if k in self.accepts}


def _accepted_keywords(func: Compactor) -> frozenset[str] | None:
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return frozenset()
    names = set()
    for position, param in enumerate(signature.parameters.values()):
        if param.kind is param.VAR_KEYWORD:
            return None
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY) and position > 0:
            names.add(param.name)
    return frozenset(names)


OWN_MODULES = ("conformance", "conformance_reference")  # the project's installed top-level names
REFERENCE = "reference"  # what the design and users' scripts call the shipped reference (reference/)
REFERENCE_MODULE = "conformance_reference"  # the name it is installed under


def _shipped_reference(spec: str) -> tuple[str, str]:
    """Returns (the name the target goes by, the ``module:attr`` to import) for ``spec``:
    ``reference`` and ``reference:ATTR`` name the shipped reference (``compact`` when no attribute
    is given), whatever ``reference`` module is on the path; any other spec is itself."""
    module, sep, attr = spec.partition(":")
    if module != REFERENCE:
        return spec, spec
    attr = attr if sep else "compact"
    return f"{REFERENCE}:{attr}", f"{REFERENCE_MODULE}:{attr}"


def own_modules_first() -> None:
    """Imports this project's own top-level modules (``OWN_MODULES``) from where they are
    installed, never from a file of the current folder, so that a ``conformance_reference.py``
    beside the user cannot replace them later; a module not installed is left alone."""
    missing = [name for name in OWN_MODULES if name not in sys.modules]
    if not missing:
        return
    saved = list(sys.path)
    sys.path[:] = [entry for entry in saved if outside_cwd(entry)]
    try:
        for name in missing:
            try:
                importlib.import_module(name)
            except ImportError:
                pass  # not installed here; a target of that name is then the user's own
    finally:
        sys.path[:] = saved + [e for e in sys.path if e not in saved]


def resolve(spec: str) -> Target:
    """Returns the ``Target`` named ``module:attr`` (dotted attr allowed), importable from the
    current directory as with ``python -m``.

    ``reference`` (or ``reference:compact``) is the shipped reference compactor. Raises
    ``TargetError`` with one clear line when it cannot be imported or is not callable.
    """
    name, spec = _shipped_reference(spec)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise TargetError(f"target {spec!r} is not of the form MODULE:ATTR")
    own_modules_first()  # before the current folder is on the path: a user's file cannot shadow them
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is one line for the user
        raise TargetError(f"cannot import {module_name!r} for target {spec!r}: "
                          f"{type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"module {module_name!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise TargetError(f"target {spec!r} is {a_type(obj)}, not a callable")
    return Target(name, obj, _accepted_keywords(obj))


def from_callable(func: Compactor, name: str | None = None) -> Target:
    """Returns a ``Target`` for a callable already in hand."""
    label = name or f"{getattr(func, '__module__', '?')}:{getattr(func, '__qualname__', repr(func))}"
    return Target(label, func, _accepted_keywords(func))


PROGRAMMING_ERRORS: tuple[type[BaseException], ...] = (
    ArithmeticError, AssertionError, AttributeError, LookupError, NameError, TypeError, RecursionError,
    UnicodeError, StopIteration, StopAsyncIteration, SyntaxError, ImportError, MemoryError, SystemError)


class NotGiven(Exception):
    """Raised in place of a target's call when its history cannot be given to it (a message format
    that cannot carry it): neither a refusal nor a crash of the target."""


def is_crash(exc: BaseException) -> bool:
    """Returns whether an exception a target raised is a crash rather than a refusal.

    A crash is a programming error: an instance of one of ``PROGRAMMING_ERRORS`` (IndexError,
    KeyError, TypeError, ZeroDivisionError, UnboundLocalError..., and any subclass of them, the
    target's own included), or anything that is not an ``Exception`` (``SystemExit``,
    ``KeyboardInterrupt``). Every other exception (``ValueError``, ``RuntimeError``,
    ``NotImplementedError``, a target's own error class not derived from those) is a deliberate refusal.
    """
    return isinstance(exc, PROGRAMMING_ERRORS) or not isinstance(exc, Exception)


@dataclass(frozen=True)
class Observation:
    """What a target did with one input: its output or its failure, and whether it mutated the input."""

    output: Any = None
    error_type: str | None = None
    error: str | None = None
    error_traceback: str | None = None
    timed_out: bool = False
    crashed: bool = False  # the target raised a programming error, never a refusal (see ``is_crash``)
    not_given: bool = False  # the history could not be given to the target at all (``NotGiven``)
    mutated: bool = False
    elapsed: float = 0.0
    second: Observation | None = None  # the call on this call's output, for idempotence
    printed: str = ""  # the end of what the target wrote to stdout and stderr, in a worker process
    mutation: tuple[str, ...] = ()  # when ``mutated``: what changed in the input, reasoning redacted
    timing: CallTime | None = None  # what the call's time limit counted and did not (see ``clock``)
    plays: tuple[Any, ...] = ()  # the agent loop over the history, one ``loop.Play`` per mode
    summarized: tuple[Any, ...] = ()  # the prompts the target gave the harness's summarizer (``call_guarded``)

    @property
    def returned(self) -> bool:
        """Returns whether the call finished without raising or timing out."""
        return self.error_type is None and not self.timed_out

    @property
    def refused(self) -> bool:
        """Returns whether the call raised a deliberate refusal: an exception that is not a crash."""
        return self.error_type is not None and not self.timed_out and not self.crashed


SUMMARIZER = "summarize"  # the keyword a target names to be given the harness's recording summarizer


class RecordingSummarizer:
    """The stand-in for the model call of a target that summarises: it keeps what every call gives
    it and answers a summary that depends on the prompt alone (so an unchanged prompt gets the
    same summary, as a cached one would). A target that keeps the stand-in of an earlier call (a
    model client made once) still has its prompts credited to the call under way (``under_way``)."""

    under_way: RecordingSummarizer | None = None  # the stand-in of the call under way in this process

    def __init__(self) -> None:
        self.prompts: list[Any] = []
        self.abandoned = False  # its call was given up at its time limit: a thread of it may still run

    def __call__(self, prompt: Any, *args: Any, **kwargs: Any) -> str:
        """Returns a summary text naming the prompt's fingerprint; records the prompt, or, when the
        call gives more than a prompt, the list of everything it gives (each argument and keyword
        value: a model call reads them all), here and in the stand-in of the call under way."""
        given = [_kept(value) for value in (prompt, *args, *kwargs.values())]
        self.prompts.append(given if args or kwargs else given[0])
        current = RecordingSummarizer.under_way
        if current is not None and current is not self and not self.abandoned:
            current.prompts.append(self.prompts[-1])
        return f"[summary {transcript.fingerprint(transcript.canonical(prompt))}]"


def _kept(value: Any) -> Any:
    """Returns a copy of a value given to the summarizer, or the value itself where it cannot be
    copied (an object holding a lock): never raises into the target's call."""
    if not isinstance(value, (list, dict)):
        return value
    try:
        return transcript.deep_copy(value)
    except Exception:  # noqa: BLE001 - what cannot be copied is read as it is
        return value


@dataclass(frozen=True)
class Handed:
    """The private copy one guarded call handed its target, kept to be compared again once the
    calls of a scenario are over (``mutated_since``): a thread the target left running, or a later
    call, may change it after the call returned."""

    call: str  # which call it was, as a failure names it ("the call", "the second call"...)
    snapshot: transcript.Snapshot
    mutated: bool  # it was already changed when the call returned


def call_guarded(target: Target, history: list[dict[str, Any]], params: Mapping[str, Any],
                 time_limit: float = DEFAULT_TIME_LIMIT, kept: list[transcript.Snapshot] | None = None,
                 handed: list[Handed] | None = None, call: str = "the call") -> Observation:
    """Returns the ``Observation`` of one call of ``target`` on a private copy of ``history``; a
    target whose signature names ``summarize`` is given a ``RecordingSummarizer`` there, and what
    it was asked is in ``summarized``. With ``kept``, a message of the output that is one of the
    copy's is the message of ``history`` it copies when the copy is still the very same data after
    the call (``originals``), and the copy's ``Snapshot`` is appended to ``kept``: the caller checks,
    once it has read the output, that the target did not change those messages after it returned
    them (``Snapshot.still_exact``). With ``handed``, a call that ended in time appends its copy
    there as a ``Handed`` named ``call``."""
    snapshot = transcript.Snapshot(history)  # ``history`` itself stays untouched
    given = snapshot.copy
    kwargs = target.params_for(params)
    summarizer = RecordingSummarizer() if target.accepts is not None and SUMMARIZER in target.accepts else None
    if summarizer is not None:
        kwargs[SUMMARIZER] = RecordingSummarizer.under_way = summarizer
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["output"] = target.func(given, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - the target's failure is data
            box["exc"] = exc
            box["tb"] = target_traceback(exc)  # the target's frames, not this one

    timing, worker = call_within(run, time_limit, f"target:{target.name}")  # (in a worker, a grown limit reaches the parent: clock)
    elapsed = timing.wall
    if not timing.finished:
        if summarizer is not None:  # (what a thread left running gives it is no later call's)
            summarizer.abandoned = True
        return Observation(timed_out=True, elapsed=elapsed, error=f"no answer within {time_limit:g} s{_not_counted(timing)}",
                           error_traceback=stack_of(worker, __file__), timing=timing)  # where it was stuck
    mutated = snapshot.changed()
    mutation = describe_mutation(snapshot.taken(), given) if mutated else ()
    if handed is not None:
        handed.append(Handed(call, snapshot, mutated))
    if kept is not None and snapshot.exact and "output" in box and not _too_long(box["output"], history):
        output = originals(box["output"], given, history)
        if output is not box["output"]:
            box["output"] = output
            kept.append(snapshot)
    summarized = tuple(summarizer.prompts) if summarizer is not None else ()  # (sent before it raised, they left too)
    if "exc" in box:
        exc = box["exc"]
        return Observation(error_type=type(exc).__name__, error=str(exc), error_traceback=box["tb"],
                           crashed=is_crash(exc), not_given=isinstance(exc, NotGiven), mutated=mutated,
                           elapsed=elapsed, mutation=mutation, timing=timing, summarized=summarized)
    return Observation(output=box.get("output"), mutated=mutated, elapsed=elapsed, mutation=mutation, timing=timing,
                       summarized=summarized)


def mutated_since(handed: Sequence[Handed]) -> tuple[str, ...]:
    """Returns the lines that describe the first copy of ``handed`` that is no longer as it was made
    (``Snapshot.changed``): which call was handed it and whether it changed while the call ran or
    after it returned, then what changed (``describe_mutation``); empty when every copy is unchanged."""
    for given in handed:
        if given.snapshot.changed():
            when = "while it ran" if given.mutated else "after it returned"
            head = f"{given.call} changed the history it was given ({when}):"
            return (head, *describe_mutation(given.snapshot.taken(), given.snapshot.copy))
    return ()


def running_timers() -> set[threading.Thread]:
    """Returns the ``threading.Timer`` threads of this process that are still alive."""
    return {thread for thread in threading.enumerate() if isinstance(thread, threading.Timer) and thread.is_alive()}


def await_timers(before: set[threading.Thread], limit: float) -> None:
    """Waits, ``limit`` seconds at most in all, for the ``threading.Timer`` threads started since
    ``before`` (``running_timers``) whose interval is within ``limit``: what a target set to run
    shortly after its call returned has run before its copies are compared again."""
    deadline = time.monotonic() + limit
    for timer in running_timers() - before:
        if getattr(timer, "interval", limit + 1) <= limit:
            timer.join(max(0.0, deadline - time.monotonic()))


def _too_long(output: Any, history: list[Any]) -> bool:
    """Returns whether ``output`` is a list longer than a compaction of ``history`` returns: no
    check reads it further (``wellformed.longest_output``), so neither is it mapped to ``originals``."""
    return isinstance(output, list) and len(output) > longest_output(len(history))


def originals(output: Any, given: Any, history: Any) -> Any:
    """Returns ``output`` with each message that is one of ``given`` (a target's private copy of
    ``history``, found the very same data after the call) replaced by the message of ``history`` it
    copies: the same JSON (types and key order too), and the caller's own object, so what the checks noted
    of a message on one call is found again on the next. Anything else is returned as it is."""
    if not (isinstance(output, list) and isinstance(given, list) and isinstance(history, list)
            and len(given) == len(history)):
        return output
    where = {id(message): i for i, message in enumerate(given)}
    if not any(id(message) in where for message in output):
        return output
    found = copy.copy(output)  # (a list of another class keeps its class and attributes)
    found[:] = [history[where[id(message)]] if id(message) in where else message for message in output]
    return found


def _not_counted(timing: CallTime) -> str:
    """Returns what a timed-out call's limit did not count, as a parenthesis (empty when nothing)."""
    parts = [f"{seconds:.1f} s {what}" for seconds, what in ((timing.waited, "waiting for a CPU"),
                                                             (timing.imports, "importing")) if seconds >= 0.05]
    return f" of its own time (and {' and '.join(parts)}, not counted)" if parts else ""


MUTATION_LINES = 6  # changes shown of an input the target changed; the rest are counted
_SHORT = 60  # characters of a value quoted in a change line


def _short(value: Any) -> str:
    """Returns a value as short canonical JSON; a content block as its label (type, id or text)."""
    if isinstance(value, dict) and isinstance(value.get("type"), str) and "role" not in value:
        from .redaction import block_label

        if value["type"] in transcript.REASONING_TYPES:  # already redacted: its hash and length
            return f"({value['type']} {value.get('thinking', value.get('data'))})"
        return f"({block_label(value)})"
    text = transcript.canonical(value)
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _redacted(message: Any) -> Any:
    """Returns a message whose reasoning blocks show as hash and length, never as text."""
    from .redaction import safe_block

    if isinstance(message, dict) and isinstance(message.get("content"), list):
        return {**message, "content": [safe_block(block) for block in message["content"]]}
    return message


def describe_mutation(before: Any, after: Any) -> tuple[str, ...]:
    """Returns lines that say what a target changed in the history it was given: the message
    index, the path in it and both values as canonical JSON (types kept; the Python type too when
    only it changed), reasoning redacted."""
    from deepdiff import DeepDiff

    if not (isinstance(before, list) and isinstance(after, list)):
        return (f"the history became {a_type(after)}",)
    lines: list[str] = []
    if len(after) != len(before):
        lines.append(f"the history went from {len(before)} to {plural(len(after), 'message')}")
    for index in range(max(len(before), len(after))):
        if index >= len(after):
            lines.append(f"input[{index}] was removed")
            continue
        if index >= len(before):
            lines.append(f"input[{index}] was added: {_short(_redacted(after[index]))}")
            continue
        if transcript.same_data(before[index], after[index]):
            continue
        try:
            tree = DeepDiff(_redacted(before[index]), _redacted(after[index]), view="tree")
        except Exception:  # noqa: BLE001 - an object deepdiff cannot walk
            lines.append(f"input[{index}] changed: {_short(_redacted(after[index]))}")
            continue
        for kind in sorted(tree):
            for level in tree[kind]:
                where = f"input[{index}]{level.path()[4:]}"
                old = "(absent)" if "added" in kind else _short(level.t1)
                new = "(absent)" if "removed" in kind else _short(level.t2)
                if old == new:  # the same JSON of another type: a list became a tuple
                    old, new = f"{old} ({a_type(level.t1)})", f"{new} ({a_type(level.t2)})"
                lines.append(f"{where}: {old} -> {new}")
    if len(lines) > MUTATION_LINES:
        keep = MUTATION_LINES - 1  # so that the count below is 2 or more
        lines = lines[:keep] + [f"... and {len(lines) - keep} more changes"]
    return tuple(lines)
