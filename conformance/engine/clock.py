"""The time a call of target code is held to: its own, not the machine's.

A call runs in a thread of its own (one whose last call ended in time waits for the next, so a run
of many calls does not start a thread for each); its time limit counts the seconds that thread
could have used, less the two kinds of time that say nothing about the target: the seconds it
waited for a CPU (the machine was busy with other work; read from Linux's per-thread scheduler
statistics) and the seconds it spent importing modules (a worker's first call of a target imports
its library). A thread that sleeps, blocks or spins is counted in full, so a target that hangs is
still given up at its limit; the two allowances together never add more than ``EXTENSION_CAP``
seconds to a call.
"""

from __future__ import annotations

import importlib._bootstrap as _bootstrap
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._text import plural

EXTENSION_CAP = 120.0  # most seconds a call's waiting and importing may add to its time limit
BUSY_NOTE_SECONDS = 0.5  # a call that lost at least this much to waiting or importing is noted
_SLICE = 0.5  # seconds between two looks at a running call (and two reports of its allowance)


@dataclass(frozen=True)
class CallTime:
    """How long a call took (``wall``) and how much of that was not the target's own: ``waited``
    for a CPU, ``imports`` of modules. ``finished`` is whether it ended within its limit."""

    wall: float
    waited: float = 0.0
    imports: float = 0.0
    finished: bool = True

    @property
    def own(self) -> float:
        """Returns the seconds the time limit counted."""
        return max(0.0, self.wall - self.waited - self.imports)


_watched: dict[int, list[float]] = {}  # thread ident -> [seconds importing, import depth, outermost began]
# CPython's import machinery has no stubs for it: the one hook every import passes through
_original_find_and_load = _bootstrap._find_and_load  # type: ignore[attr-defined]  # a private hook typeshed does not list


def _timed_find_and_load(name: str, import_: Any) -> Any:
    """``importlib``'s ``_find_and_load`` (the load of a module not imported yet), timed for the
    threads of calls being watched (the outermost import only)."""
    entry = _watched.get(threading.get_ident())
    if entry is None:
        return _original_find_and_load(name, import_)
    if not entry[1]:
        entry[2] = time.perf_counter()
    entry[1] += 1
    try:
        return _original_find_and_load(name, import_)
    finally:
        entry[1] -= 1
        if not entry[1]:
            entry[0] += time.perf_counter() - entry[2]


def _importing(entry: list[float]) -> float:
    """Returns the seconds a watched thread has spent importing, the import in progress included."""
    return entry[0] + (time.perf_counter() - entry[2] if entry[1] else 0.0)


def _install() -> None:
    if _bootstrap._find_and_load is not _timed_find_and_load:  # type: ignore[attr-defined]  # private, not in typeshed
        _bootstrap._find_and_load = _timed_find_and_load  # type: ignore[attr-defined]  # private, not in typeshed


def runqueue_seconds(native_id: int | None, process: int | str = "self") -> float:
    """Returns the seconds the thread ``native_id`` of ``process`` (this one by default) has
    waited for a CPU so far (0 where the system does not say)."""
    if native_id is None:
        return 0.0
    try:
        with open(f"/proc/{process}/task/{native_id}/schedstat", "rb") as stats:
            return int(stats.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


# Who hears the seconds a call's limit grew by (``call_within``'s ``on_allowance`` when it is given
# none): a worker process sets it to tell its parent, whose own clock on the call must grow alike
allowance_listener: Callable[[float], None] | None = None

IDLE_CALLERS = 4  # threads kept waiting for the next call once theirs ended in time


class _Caller(threading.Thread):
    """A daemon thread that runs the calls handed to it one at a time. It waits for the next one as
    long as each ends within its limit; one given up on ends with its call (if ever)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self._go, self.done = threading.Lock(), threading.Lock()
        self._go.acquire()
        self.done.acquire()
        self.call: Callable[[], None] | None = None
        self.abandoned = False
        self.broken = False  # a call raised past its own catch: the thread ends
        self.imports = [0.0, 0, 0.0]  # ``_watched``'s entry of this thread
        self._stat = -1  # this thread's scheduler statistics, kept open

    def give(self, call: Callable[[], None]) -> None:
        """Hands ``call`` to the thread (which must be idle): it starts at once."""
        self.call, self.imports[0] = call, 0.0
        if self.is_alive():
            self._go.release()
        else:
            self.start()

    def wake(self) -> None:
        """Lets the thread go on past its wait for a call (with none: it ends, once abandoned)."""
        self._go.release()

    def run(self) -> None:
        _watched[threading.get_ident()] = self.imports
        try:
            self._stat = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        except OSError:
            pass  # (not Linux: no CPU wait is allowed for)
        try:
            while True:
                call, self.call = self.call, None
                if call is not None:  # (woken without one: given up on, it ends)
                    try:
                        call()  # (it catches what the target raises)
                    except BaseException:
                        self.broken = True  # (seen by the caller once ``done`` is released)
                        raise
                    finally:
                        call = None  # (what the call held is let go while the thread waits)
                        self.done.release()
                if self.abandoned:
                    return
                self._go.acquire()
        finally:
            _watched.pop(threading.get_ident(), None)
            if self._stat >= 0:
                os.close(self._stat)

    def runqueue(self) -> float:
        """Returns the seconds this thread has waited for a CPU so far (0 where the system does not say)."""
        if self._stat < 0:
            return runqueue_seconds(self.native_id)
        try:
            return int(os.pread(self._stat, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0


_idle: dict[str, list[_Caller]] = {}  # the threads waiting for a call, by the name of what they call
_idle_lock = threading.Lock()


def _forget_callers() -> None:
    """In a forked child, the parent's threads do not exist: none of them is handed a call."""
    global _idle_lock
    _idle.clear()
    _idle_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_callers)


def _keep(name: str, caller: _Caller) -> None:
    """Lets ``caller`` wait for the next call of ``name``; past ``IDLE_CALLERS`` waiting in all, the
    one that has waited longest ends."""
    with _idle_lock:
        _idle.setdefault(name, []).append(caller)
        _idle[name] = _idle.pop(name)  # (the name last used last)
        while waiting_threads() > IDLE_CALLERS:
            oldest = next(iter(_idle))
            ended = _idle[oldest].pop(0)
            if not _idle[oldest]:
                del _idle[oldest]
            ended.abandoned = True
            ended.wake()


def waiting_threads() -> int:
    """Returns how many threads wait for a call (each blocked on a lock of its own, holding no other)."""
    return sum(map(len, _idle.values()))


def call_within(call: Callable[[], None], limit: float, name: str = "call",
                on_allowance: Callable[[float], None] | None = None) -> tuple[CallTime, threading.Thread]:
    """Runs ``call`` on a thread of its own and returns once it ends or its own time reaches
    ``limit`` (see the module's docstring): how long it took, and the thread that ran it (where it
    is stuck, when it did not finish). The thread is one whose last call of the same ``name`` (a
    target's) ended in time, when one waits: what a target leaves in its thread (a thread-local, an
    event loop) is never another target's. ``call`` must catch what it raises.
    ``on_allowance(seconds)`` (by default ``allowance_listener``, when set) hears the seconds added
    to the limit so far, each time they grew."""
    _install()
    if on_allowance is None:
        on_allowance = allowance_listener
    with _idle_lock:
        waiting = _idle.get(name)
        caller = waiting.pop() if waiting else _Caller()
    caller.name = name
    kept = False
    started = time.perf_counter()
    caller.give(call)
    waited_at_start = caller.runqueue()
    reported = waited = 0.0
    try:
        finished = caller.done.acquire(timeout=max(0.0, min(limit, _SLICE)))
        while True:
            wall = time.perf_counter() - started
            if not finished:
                waited = max(0.0, caller.runqueue() - waited_at_start) or waited
            imports = _importing(caller.imports)
            allowance = min(EXTENSION_CAP, waited + imports)
            remaining = limit + allowance - wall
            if finished:
                kept = not caller.broken
                if kept:
                    _keep(name, caller)
                return CallTime(wall, waited, imports, True), caller
            if remaining <= 0:
                return CallTime(wall, waited, imports, False), caller
            if on_allowance is not None and allowance > reported + 0.05:
                on_allowance(allowance)
                reported = allowance
            finished = caller.done.acquire(timeout=min(remaining, _SLICE))
    finally:
        if not kept:  # given up on, interrupted, or enough threads wait already: it ends with its call
            caller.abandoned = True
            caller.wake()


def busy_note(calls: list[CallTime | None]) -> str:
    """Returns the line that says how much calls lost to a busy machine and to first imports
    (empty when none lost ``BUSY_NOTE_SECONDS``)."""
    waited = [c.waited for c in calls if c is not None and c.waited >= BUSY_NOTE_SECONDS]
    imported = [c.imports for c in calls if c is not None and c.imports >= BUSY_NOTE_SECONDS]
    parts = []
    if waited:
        parts.append(f"{plural(len(waited), 'call')} waited for a CPU (the machine was busy; "
                     f"the longest {max(waited):.1f} s)")
    if imported:
        parts.append(f"{plural(len(imported), 'call')} imported modules (a worker's first "
                     f"call; the longest {max(imported):.1f} s)")
    if not parts:
        return ""
    return "note: " + "; ".join(parts) + ": the per-call time limit counts neither"
