"""Judging off the caller's thread: one background thread takes the exchanges from a bounded queue,
in the order they were handed in (the judges' index of earlier calls needs that order).

``Worker(judge).submit(args, wait)`` queues one exchange; the caller goes on at once, unless
``wait`` (a ``raise`` or ``otel-event`` policy, which must act in the caller's thread before the SDK
returns): then it blocks until the verdict is in and re-raises its ``GuardAlert``. A full queue
blocks the caller until there is room, so memory stays bounded and no exchange goes unjudged. Each
judgement runs in a copy of the caller's ``contextvars`` context. ``flush()`` waits for every
queued exchange; ``close()`` flushes and ends the thread.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any

from .policies import LOG, GuardAlert

QUEUE_SIZE = 64  # exchanges waiting to be judged before a caller blocks


class _Job:
    """One queued exchange: the judge's arguments, the caller's context, and, for a waiting caller,
    the event it waits on and the alert to hand back."""

    __slots__ = ("alert", "args", "context", "done")

    def __init__(self, args: tuple[Any, ...], wait: bool) -> None:
        self.args = args
        self.context = contextvars.copy_context()
        self.done = threading.Event() if wait else None
        self.alert: GuardAlert | None = None


class Worker:
    """A daemon thread that runs ``judge(*args)`` for each submitted exchange, in order."""

    def __init__(self, judge: Callable[..., Any], size: int = QUEUE_SIZE) -> None:
        self.judge = judge
        self._queue: queue.Queue[_Job | None] = queue.Queue(maxsize=size)
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def submit(self, args: tuple[Any, ...], wait: bool = False) -> None:
        """Queues one exchange; with ``wait``, returns once it is judged. Raises the ``GuardAlert``
        of a ``raise`` policy (only when waiting: the alert is the caller's)."""
        self._running()
        job = _Job(args, wait)
        self._queue.put(job)  # blocks while the queue is full
        if job.done is not None:
            job.done.wait()
            if job.alert is not None:
                raise job.alert

    def flush(self) -> None:
        """Returns once every exchange submitted so far is judged and its policies have run."""
        if self._thread is not None:
            self._queue.join()

    def close(self) -> None:
        """Judges what is queued, then ends the thread (a later ``submit`` starts another)."""
        with self._start:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()

    def _running(self) -> None:
        if self._thread is None:
            with self._start:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name="conformance-guard", daemon=True)
                    self._thread.start()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                self._run(job)
            finally:
                self._queue.task_done()

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
