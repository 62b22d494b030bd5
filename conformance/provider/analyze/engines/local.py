"""Judge on every core of this machine: tasks over worker processes, outcomes back in input order.

At most ``2 * jobs`` tasks are in flight, so memory stays bounded by the tasks' size, not the input's;
a large file no range can cut (compressed) spools its judgements to a temporary file.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..earlier import DEFAULT_WINDOW
from ..model import Judgement
from ..judging import FileEnd
from ..source import SPLIT_SIZE
from ....engine.worker import Pool
from .tasks import Outcome, Task, in_order, run_task, tasks


class WorkerFailed(RuntimeError):
    """A worker judging a task raised (a bug of a judge, with its traceback) or died."""


def _outcomes(pool: Pool, work: Sequence[Task], ahead: int) -> Iterator[Outcome]:
    """Yields the outcomes of ``work`` in task order, each task run by ``pool``: a worker that
    finishes is given the next task before an outcome is handed on, and at most ``ahead`` tasks
    are running or waiting to be handed on. Raises ``WorkerFailed``."""
    finished: dict[int, Outcome] = {}
    sent = handed = 0
    while handed < len(work):
        while pool.free and sent < len(work) and sent < handed + ahead:
            pool.submit(sent, run_task, (work[sent],))
            sent += 1
        if handed not in finished:
            for event in pool.wait():
                if event.kind != "done":
                    raise WorkerFailed(f"judging {work[event.key].path}: the worker {event.kind}: {event.reason}")
                finished[event.key] = event.value
            continue
        yield finished.pop(handed)
        handed += 1


def run_local(files: Sequence[Path], jobs: int, window: int = DEFAULT_WINDOW, progress: Any = None,
              split: int = SPLIT_SIZE) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of ``files`` in input order, judged by ``jobs`` worker processes."""
    return run_tasks(tasks(files, split, window, spool=True), jobs, progress)


def run_tasks(work: Sequence[Task], jobs: int, progress: Any = None) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of the tasks ``work`` (``tasks``' list, cut once) in input order, judged
    by ``jobs`` worker processes forked from this one; raises ``WorkerFailed``."""
    if not work:
        return
    with Pool(min(jobs, len(work)), forked=True) as pool:
        yield from in_order(_outcomes(pool, work, 2 * jobs), progress)
