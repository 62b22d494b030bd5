"""Judging off the caller's thread: one background thread judges the exchanges in the order they
were handed in (the judges' index of earlier calls needs that order), a bounded number at a time.

``Worker(judge).submit(args, wait)`` queues one exchange; the caller goes on at once, unless
``wait`` (a ``raise`` or ``otel-event`` policy, which must act in the caller's thread before the SDK
returns): then it blocks until the verdict is in and re-raises its ``GuardAlert``. The thread
wakes ``linger`` seconds after the first exchange queued while it was idle and judges every queued
one in a row, so a client making small calls back to back hands the interpreter to it once per
batch, not once per call; queued bodies of ``batch_bytes`` in all (large bodies kept waiting make
the client's own allocations slower), a waiting caller, a full queue (which blocks the caller until
there is room: memory stays bounded and no exchange goes unjudged), ``flush()`` and ``close()``
wake it at once. Each
judgement runs in a copy of the caller's ``contextvars`` context.
"""

from __future__ import annotations

import contextvars
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from .policies import LOG, GuardAlert

QUEUE_SIZE = 64  # exchanges handed in and not yet judged before a caller blocks
LINGER = 0.05  # seconds the thread waits, once woken, for more exchanges to judge in the same batch
BATCH_BYTES = 64 * 1024  # queued bodies of this size in all are judged without lingering


class _Job:
    """One queued exchange: the judge's arguments, the caller's context, and, for a waiting caller,
    the event it waits on and the alert to hand back."""

    __slots__ = ("alert", "args", "context", "done", "weight")

    def __init__(self, args: tuple[Any, ...], wait: bool, weight: int) -> None:
        self.args, self.weight = args, weight
        self.context = contextvars.copy_context()
        self.done = threading.Event() if wait else None
        self.alert: GuardAlert | None = None


class Worker:
    """A daemon thread that runs ``judge(*args)`` for each submitted exchange, in order."""

    def __init__(self, judge: Callable[..., Any], size: int = QUEUE_SIZE, linger: float = LINGER,
                 batch_bytes: int = BATCH_BYTES) -> None:
        self.judge, self.size, self.linger, self.batch_bytes = judge, size, linger, batch_bytes
        self._jobs: deque[_Job] = deque()
        self._pending = 0  # queued or being judged; guarded by ``_state``
        self._weight = 0  # bytes of the queued bodies; guarded by ``_state``
        self._state = threading.Condition()  # notified when all are judged, or there is room again
        self._wake = threading.Event()
        self._now = False  # someone waits: judge without lingering
        self._closing = False
        self._thread: threading.Thread | None = None

    def submit(self, args: tuple[Any, ...], wait: bool = False, weight: int = 0) -> None:
        """Queues one exchange whose bodies hold ``weight`` bytes; with ``wait``, returns once it is
        judged. Raises the ``GuardAlert`` of a ``raise`` policy (only when waiting: the alert is the caller's)."""
        job = _Job(args, wait, weight)
        with self._state:
            self._running()
            while self._pending >= self.size:  # full: the caller waits for room
                self._hurry()
                self._state.wait()
            self._pending += 1
            self._weight += weight
            self._jobs.append(job)
            first = self._pending == 1
            heavy = self._weight >= self.batch_bytes
        if heavy:
            self._hurry()
        if job.done is not None:
            self._hurry()
            job.done.wait()
            if job.alert is not None:
                raise job.alert
        elif first:
            self._wake.set()  # the thread lingers, then judges what came meanwhile

    def flush(self) -> None:
        """Returns once every exchange submitted so far is judged and its policies have run."""
        with self._state:
            if self._pending:
                self._hurry()
            while self._pending:
                self._state.wait()

    def close(self) -> None:
        """Judges what is queued, then ends the thread (a later ``submit`` starts another)."""
        with self._state:
            thread, self._thread = self._thread, None
            if thread is not None:
                self._closing = True
        if thread is not None:
            self._hurry()
            thread.join()
            self._closing = False

    def _hurry(self) -> None:
        self._now = True
        self._wake.set()

    def _running(self) -> None:  # (called holding ``_state``)
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="conformance-guard", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            self._wake.wait()
            if not self._now:
                self._wake.clear()
                self._wake.wait(self.linger)  # more may come: judged in the same batch
            self._wake.clear()
            self._now = False
            self._drain()
            with self._state:
                if self._closing and not self._jobs:
                    return

    def _drain(self) -> None:
        job: _Job | None = None
        while True:
            with self._state:
                if job is not None:
                    self._pending -= 1
                    if self._pending in (0, self.size - 1):  # (woken per batch or for room, not per job)
                        self._state.notify_all()
                if not self._jobs:
                    return
                job = self._jobs.popleft()
                self._weight -= job.weight
            self._run(job)

    def _run(self, job: _Job) -> None:
        try:
            job.context.run(self.judge, *job.args)
        except GuardAlert as alert:
            if job.done is None:  # (a callback raised it: nobody waits for it, so it is told)
                LOG.warning("a guard alert was raised off the caller's thread: %s", alert)
            job.alert = alert
        except Exception as exc:  # noqa: BLE001 - a bug in judging must not stop the thread
            LOG.warning("the guard could not judge a call (%s); the call goes on", type(exc).__name__)
        finally:
            if job.done is not None:
                job.done.set()
