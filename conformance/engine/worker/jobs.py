"""Calls of targets in worker processes as ``run``, ``fuzz`` and ``egress`` make them: one loop.

A caller has items (a target and what it is given) numbered from 0. Those sent to workers go by
the target's name (resolved once in each worker: ``resolved``) or pickled; the rest run here, one
after the other, once the workers are done (``run_items``). Each job's ``Event`` becomes the item's
records by the caller's ``records``; the worker of a job whose guard gave up on a call
(``abandoned``) is recycled, since a thread of the target may still run there. An item ``decided``
(its target given up after hangs, by ``stop_rules.walk``; a stopped run) is not sent, and one in
flight is cancelled. The time limits of a call in a worker live here too: ``window`` lets the
parent kill the worker past the call's limit, ``BACKSTOP`` later, with the harness's own work
allowed; the limit itself and the warm-up it does not count are the guard's (``clock.call_within``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from ..target import Target, resolve
from . import Event, Pool, call_window

BACKSTOP = 1.0  # seconds past a call's limit before the parent kills a worker whose guard did not answer
COPY_SECONDS = 5e-5  # per message: the guard's input copy and mutation check, not the target's time

R = TypeVar("R")
Job = tuple[Callable[..., Any], tuple[Any, ...]]  # a module-level function and its arguments

_RESOLVED: dict[str, Target] = {}


def resolved(shipped: str | Target) -> Target:
    """Returns the target a job names, resolved once in this process (a target that arrived
    pickled is itself); raises ``TargetError`` for a name that does not resolve."""
    if not isinstance(shipped, str):
        return shipped
    if shipped not in _RESOLVED:
        _RESOLVED[shipped] = resolve(shipped)
    return _RESOLVED[shipped]


@contextmanager
def window(limit: float, partial: Any = None, messages: int = 0) -> Iterator[None]:
    """Marks a call of target code limited to ``limit`` seconds (``worker.call_window``): in a
    worker, the parent kills the worker once the block runs ``BACKSTOP`` seconds (plus the copy of
    ``messages`` messages) past the limit, the guard not having answered."""
    with call_window(limit, partial, allowance=BACKSTOP + COPY_SECONDS * messages):
        yield


def failure_reason(event: Event, what: str) -> str:
    """Returns why a job gave no value: the pool's reason (a hang, a dead worker), or for a job
    that raised, that the worker could not run ``what``, with the exception's line."""
    if event.kind != "failed":
        return event.reason
    return f"the worker could not run {what}: {event.reason.splitlines()[0]}"


def never(value: object) -> bool:
    """Returns False: no value of that kind abandons a call."""
    return False


def in_workers(indexes: Iterable[int], job: Callable[[int], Job], records: Callable[[int, Event], R],
               finish: Callable[[int, R], None], *, jobs: int, memory_limit: int | None = None,
               abandoned: Callable[[R], bool] = never, decided: Callable[[int], bool] = never) -> None:
    """Runs the items ``indexes`` in up to ``jobs`` worker processes, in that order, each as
    ``job(index)``; calls ``finish(index, records(index, event))`` as each ends. Raises
    ``KeyboardInterrupt`` when a worker's job was interrupted (Ctrl-C reached it too)."""
    queue = deque(indexes)
    if not queue:
        return
    with Pool(min(jobs, len(queue)), memory_limit) as pool:
        pool.start()
        in_flight: set[int] = set()
        while queue or in_flight:
            for index in [i for i in in_flight if decided(i)]:
                pool.cancel(index)  # a target given up or a stopped run: the answer is no longer wanted
                in_flight.discard(index)
            while queue and pool.free > 0:
                index = queue.popleft()
                if decided(index):
                    continue
                fn, args = job(index)
                pool.submit(index, fn, args)
                in_flight.add(index)
            for event in pool.wait():
                if event.kind == "failed" and event.reason.startswith("KeyboardInterrupt"):
                    raise KeyboardInterrupt  # the worker had Ctrl-C too: this run is interrupted
                in_flight.discard(event.key)
                value = records(event.key, event)
                if event.kind == "done" and abandoned(value):
                    pool.recycle(event.key)  # its guard gave up: a thread of the target may still run
                finish(event.key, value)


def run_items(count: int, remote: Sequence[int], job: Callable[[int], Job], records: Callable[[int, Event], R],
              here: Callable[[int], R], finish: Callable[[int, R], None], *, jobs: int,
              memory_limit: int | None = None, abandoned: Callable[[R], bool] = never,
              decided: Callable[[int], bool] = never) -> None:
    """Runs items ``0..count-1``: those of ``remote`` in worker processes (``in_workers``), then the
    others here, in order, each as ``here(index)``; calls ``finish(index, records)`` as each ends.
    An item ``decided`` is not run."""
    sent = set(remote)
    in_workers(remote, job, records, finish, jobs=jobs, memory_limit=memory_limit, abandoned=abandoned,
               decided=decided)
    for index in range(count):
        if index not in sent and not decided(index):
            finish(index, here(index))


def one_job(pool: Pool, key: Any, job: Job, records: Callable[[Event], R],
            abandoned: Callable[[R], bool] = never) -> R:
    """Returns the records of one job run in one of ``pool``'s workers (``records(event)``, never an
    exception for a hang or a dead worker); the pool has a free worker again afterwards."""
    fn, args = job
    pool.submit(key, fn, args)
    events: list[Event] = []
    while not events and pool.running:
        events = pool.wait()
    (event,) = events
    value = records(event)
    if event.kind == "done" and abandoned(value):
        pool.recycle(event.key)  # its guard gave up: a thread of the target may still run
    return value


class OneThread:
    """One thread that runs calls in order, each within a time limit: what a store's step runs on
    (a store may hold objects bound to the thread that made them, a sqlite connection)."""

    def __init__(self, name: str) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    def call(self, fn: Callable[[], Any], limit: float) -> tuple[Any, BaseException | None, bool]:
        """Returns ``(value, exception, hung)`` of ``fn()`` run for at most ``limit`` seconds
        (within a ``window``): on a hang the call is left running and ``hung`` is True."""
        from concurrent.futures import TimeoutError as Late

        with window(limit):
            future = self.pool.submit(fn)
            try:
                return future.result(timeout=limit), None, False
            except Late:
                return None, None, True
            except BaseException as exc:  # noqa: BLE001 - the callee's failure is data
                return None, exc, False

    def close(self) -> None:
        """Lets the thread go, with any call still running left to it."""
        self.pool.shutdown(wait=False, cancel_futures=True)
