"""Task-record stores: the one surface that may hold reasoning, only encrypted, only while the task runs.

A target is a factory (``MODULE:FACTORY``) returning a store with ``put(task_id, messages)`` (which
stores the task or replaces it: a task's next step puts it back),
``get(task_id) -> messages``, ``finish(task_id)``, ``raw() -> bytes`` (everything it holds at rest)
and ``export() -> payload`` (what the warehouse copy receives). A factory that takes an argument
gets a folder the harness made for the conversation, the same in every worker.

Each conversation runs in three steps, each in a fresh worker process, as a queued agent's steps
would: the first worker puts the task and reads ``raw()`` and ``export()``; a second gets the task
back while it runs, puts it back and finishes it, reading ``raw()`` and ``export()`` between; a
third looks for anything of the task afterwards, ``export()`` included.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ..engine.results import CheckResult, Level, Outcome
from ..engine.target import DEFAULT_TIME_LIMIT, Target, resolve
from ..engine.tracebacks import target_traceback
from ..engine.transcript import canonical
from ..engine.worker import Event, Pool, output_captured
from ..engine.worker.jobs import OneThread, one_job
from .canaries import CIPHERTEXT, REASONING_TEXT, find, find_in
from .checks import reasoning_units, sub_objects
from .conversations import Conversation
from .decode import read
from .run import EgressReport, given_messages, withheld

CATALOG: tuple[tuple[str, Level, str], ...] = (
    ("store.call-completes", "MUST", "Every call of the store (factory, put, get, put again, finish, raw, export) "
     "returns: no exception, no hang."),
    ("store.reasoning-back-byte-identical", "MUST",
     "Another worker process gets the task back while it runs with every block that holds reasoning "
     "as the same JSON (the next step of a queued task needs it unchanged)."),
    ("store.encrypted-at-rest", "MUST",
     "Nothing the store holds at rest (raw()) while the task runs (after the put, after a get, after the "
     "task is put back) shows its reasoning text or reasoning ciphertext, whole or as a fragment, however "
     "encoded: reasoning is there only encrypted."),
    ("store.export-no-reasoning", "MUST",
     "The warehouse copy (export()) carries no reasoning text and no reasoning ciphertext, however encoded, "
     "while the task runs or after it finished."),
    ("store.forgets-finished-task", "MUST",
     "Once the task is finished, get() gives nothing back (None, empty, or KeyError/LookupError) "
     "and nothing at rest shows a canary of it."),
)
LEVELS = {cid: level for cid, level, _ in CATALOG}
GONE = (KeyError, LookupError)


def _factory_call(factory: Callable[..., Any], folder: str) -> Any:
    try:
        params = [p for p in inspect.signature(factory).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        params = []
    return factory(folder) if params else factory()


class _StepFailed(Exception):
    """A call of a step did not return: carries its error line and traceback."""

    def __init__(self, error: str, tb: str | None) -> None:
        super().__init__(error)
        self.error, self.tb = error, tb


class _StepThread:
    """One thread that runs every call of a step, in order (``worker.jobs.OneThread``), each for at
    most ``limit`` seconds: a store may hold objects bound to the thread that made them (a sqlite
    connection), as one worker's step would."""

    def __init__(self, limit: float) -> None:
        self.thread = OneThread("store")
        self.limit = limit

    def call(self, step: str, fn: Callable[[], Any]) -> tuple[Any, str | None, str | None]:
        """Returns ``(value, error line, traceback)`` of ``fn()`` (on a hang, the exception is the
        value and later calls of this step are not made)."""
        value, exc, hung = self.thread.call(fn, self.limit)
        if hung:
            return None, f"{step}: no answer within {self.limit:g} s", None
        if exc is not None:
            return exc, f"{step} raised {type(exc).__name__}: {exc}", target_traceback(exc)
        return value, None, None

    def must(self, step: str, fn: Callable[[], Any]) -> Any:
        """Returns what ``fn()`` returned; raises ``_StepFailed`` where it raised or hung."""
        value, error, tb = self.call(step, fn)
        if error:
            raise _StepFailed(error, tb)
        return value

    def close(self) -> None:
        self.thread.close()


Step = Callable[[_StepThread, Any, str, Conversation, dict[str, Any]], None]


def in_worker(step: Step, name: str, conversation: Conversation, folder: str, limit: float) -> dict[str, Any]:
    """Runs one step in this worker: opens the store ``name`` on the step's own thread, then lets
    ``step`` call it and add what it saw to the report; returns the report (``pid``, the ``error``
    line and ``traceback`` of the first call that did not return, and what the step added)."""
    thread = _StepThread(limit)
    try:
        with output_captured():
            target = resolve(name)
            store, error, tb = thread.call("the factory", lambda: _factory_call(target.func, folder))
            out: dict[str, Any] = {"pid": os.getpid(), "error": error, "traceback": tb}
            if error:
                return out
            try:
                step(thread, store, f"task-{conversation.id}", conversation, out)
            except _StepFailed as failed:
                return {**out, "error": failed.error, "traceback": failed.tb}
        return out
    finally:
        thread.close()


def step_put(thread: _StepThread, store: Any, task: str, conversation: Conversation, out: dict[str, Any]) -> None:
    """First worker: puts the task; adds what raw() and export() showed (findings, no text)."""
    secret = conversation.of(REASONING_TEXT | CIPHERTEXT)
    thread.must("put", lambda: store.put(task, given_messages(conversation)))
    out["raw"] = _findings(thread.must("raw", store.raw), secret)
    out["export"] = _findings(thread.must("export", store.export), secret)


def step_get(thread: _StepThread, store: Any, task: str, conversation: Conversation, out: dict[str, Any]) -> None:
    """Second worker: gets the task back while it runs, puts it back (the task's next step), then
    finishes it; adds the units that did not come back unchanged, and what raw() showed after the
    get and after the second put (a read-through cache, an earlier version kept) and export()
    before and after the finish (a warehouse fed with finished tasks)."""
    secret = conversation.of(REASONING_TEXT | CIPHERTEXT)
    objects = sub_objects(thread.must("get", lambda: store.get(task)))
    out["missing"] = [where for where, unit in reasoning_units(conversation) if canonical(unit) not in objects]
    out["raw"] = _findings(thread.must("raw", store.raw), secret)
    thread.must("put again", lambda: store.put(task, given_messages(conversation)))
    out["raw"] += _findings(thread.must("raw", store.raw), secret)
    out["export"] = _findings(thread.must("export", store.export), secret)
    thread.must("finish", lambda: store.finish(task))
    out["export"] += _findings(thread.must("export after finish", store.export), secret)


def step_after(thread: _StepThread, store: Any, task: str, conversation: Conversation, out: dict[str, Any]) -> None:
    """Third worker: after the task finished; adds what get(), raw() and export() still showed."""
    got, error, tb = thread.call("get after finish", lambda: store.get(task))
    if error and not isinstance(got, GONE):
        raise _StepFailed(error, tb)
    out["still"] = [] if error else [f.to_dict() for f in find(got, list(conversation.canaries))]
    if not error and got not in (None, [], (), {}, b"", ""):
        out["still_returned"] = True
    out["raw"] = _findings(thread.must("raw", store.raw), list(conversation.canaries))
    out["export"] = _findings(thread.must("export", store.export), conversation.of(REASONING_TEXT | CIPHERTEXT))


STEPS: tuple[Step, ...] = (step_put, step_get, step_after)


def _findings(value: Any, canaries: list[Any]) -> list[dict[str, Any]]:
    """Returns the findings of ``canaries`` in ``value`` as plain data; a value larger than the
    search reads is a finding of its own (never judged clean)."""
    found, whole = read(value)
    out = [f.to_dict() for f in find_in(found, canaries)]
    if not whole and not out:
        out.append({"unread": True})
    return out


def _describe(findings: list[dict[str, Any]]) -> list[str]:
    if any(f.get("unread") for f in findings):
        return ["what the store returned is larger than the search reads, so it cannot be judged free of canaries"]
    return [f"{f['kind']} canary {f['canary']} (sha256 {f['sha256']}, {f['length']} chars) found "
            f"{'whole' if f['whole'] else 'as a fragment'} at {f['where']}" for f in findings]


def judge(name: str, conversation: Conversation, steps: list[dict[str, Any]]) -> list[CheckResult]:
    """Returns the store records of one conversation from its three steps' reports."""
    def record(cid: str, outcome: Outcome, message: str = "", details: dict[str, Any] | None = None) -> CheckResult:
        return CheckResult(name, conversation.id, conversation.format, cid, LEVELS[cid], outcome,
                           message, dict(details or {}), kind="egress-store")

    failed = next((s for s in steps if s.get("error")), None)
    pids = {s.get("pid") for s in steps}
    out: list[CheckResult] = []
    if failed is None and len(pids) < len(steps):
        failed = {"error": "the harness could not run the steps in different processes"}
    if failed is not None:
        extra = {"traceback": failed["traceback"]} if failed.get("traceback") else {}
        out.append(record("store.call-completes", "error", failed["error"], extra))
    else:
        out.append(record("store.call-completes", "pass"))
    put, get, after = (steps + [{}, {}, {}])[:3]
    verdicts = {
        "store.reasoning-back-byte-identical": ("missing" in get, [f"{w}: not given back unchanged by another worker"
                                                                   for w in get.get("missing", [])]),
        "store.encrypted-at-rest": ("raw" in put and "raw" in get,
                                    _describe([*put.get("raw", []), *get.get("raw", [])])),
        "store.export-no-reasoning": ("export" in put and "export" in get and "export" in after,
                                      _describe([*put.get("export", []), *get.get("export", []),
                                                 *after.get("export", [])])),
        "store.forgets-finished-task": ("raw" in after, (["get() still gives the task back after finish()"]
                                                         if after.get("still_returned") else [])
                                        + _describe(after.get("still", [])) + _describe(after.get("raw", []))),
    }
    for cid, (ran, lines) in verdicts.items():
        if lines:  # (what a step saw fails, whether or not a later call of the store failed)
            out.append(record(cid, "fail", lines[0], {"diff": lines[1:]} if len(lines) > 1 else {}))
        elif not ran:
            out.append(record(cid, "skip", "not run: a call of the store failed", {"blocked_by": "store.call-completes"}))
        else:
            out.append(record(cid, "pass"))
    return withheld(out, conversation.canaries)


def _report(step: str, event: Event) -> dict[str, Any]:
    """Returns what a step's worker reported, or the error of a step that gave nothing back."""
    return event.value if event.kind == "done" else {"error": f"{step}: {event.reason}"}


def _always(report: dict[str, Any]) -> bool:
    """Returns True: the worker of every step is replaced, so the next step runs in another process."""
    return True


def run(target: str, conversations: Sequence[Conversation], *, time_limit: float = DEFAULT_TIME_LIMIT,
        progress: Callable[[int, int], None] | None = None) -> EgressReport:
    """Returns the report of the store ``target`` on every conversation, each step in a fresh worker."""
    resolve(target)  # a name that does not resolve is a usage error here, not a failed check
    results: list[CheckResult] = []
    for n, conversation in enumerate(conversations):
        folder = tempfile.mkdtemp(prefix="egress-store-")
        steps: list[dict[str, Any]] = []
        try:
            with Pool(1) as pool:
                for step in STEPS:
                    report = one_job(pool, step.__name__, (in_worker, (step, target, conversation, folder, time_limit)),
                                     partial(_report, step.__name__), _always)  # each step in another process
                    steps.append(report)
                    if report.get("error"):
                        break
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        results.extend(judge(target, conversation, steps))
        if progress:
            progress(n + 1, len(conversations))
    return EgressReport(results=results, targets=[target], conversations=list(conversations), surface="task-record")

