"""The time a call of target code is held to: its own, not the machine's.

A call runs in a thread of its own; its time limit counts the seconds that thread could have used,
less the two kinds of time that say nothing about the target: the seconds it waited for a CPU (the
machine was busy with other work; read from Linux's per-thread scheduler statistics) and the
seconds it spent importing modules (a worker's first call of a target imports its library). A
thread that sleeps, blocks or spins is counted in full, so a target that hangs is still given up at
its limit; the two allowances together never add more than ``EXTENSION_CAP`` seconds to a call.
"""

from __future__ import annotations

import importlib._bootstrap as _bootstrap
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


# Who hears the seconds a call's limit grew by (``join_within``'s ``on_allowance`` when it is given
# none): a worker process sets it to tell its parent, whose own clock on the call must grow alike
allowance_listener: Callable[[float], None] | None = None


def join_within(thread: threading.Thread, limit: float,
                on_allowance: Callable[[float], None] | None = None) -> CallTime:
    """Starts ``thread`` (not started yet) and returns once it ends or its own time reaches
    ``limit`` (see the module's docstring); ``on_allowance(seconds)`` (by default
    ``allowance_listener``, when set) hears the seconds added to the limit so far, each time they grew."""
    _install()
    if on_allowance is None:
        on_allowance = allowance_listener
    box: list[Any] = []
    run = thread.run

    def timed_run() -> None:
        box.append(_watched.setdefault(threading.get_ident(), [0.0, 0, 0.0]))
        try:
            run()
        finally:
            _watched.pop(threading.get_ident(), None)

    thread.run = timed_run  # type: ignore[method-assign]  # timed on this one thread object only
    started = time.perf_counter()
    thread.start()
    native = thread.native_id
    waited_at_start = runqueue_seconds(native)
    reported = 0.0
    waited = imports = 0.0
    while True:
        wall = time.perf_counter() - started
        if thread.is_alive():
            waited = max(0.0, runqueue_seconds(native) - waited_at_start) or waited
        imports = _importing(box[0]) if box else 0.0
        allowance = min(EXTENSION_CAP, waited + imports)
        remaining = limit + allowance - wall
        if not thread.is_alive():
            return CallTime(wall, waited, imports, True)
        if remaining <= 0:
            return CallTime(wall, waited, imports, False)
        if on_allowance is not None and allowance > reported + 0.05:
            on_allowance(allowance)
            reported = allowance
        thread.join(min(remaining, _SLICE))


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
