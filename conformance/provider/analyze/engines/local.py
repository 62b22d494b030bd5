"""Judge on every core of this machine: tasks over worker processes, outcomes back in input order.

At most ``2 * jobs`` tasks are in flight, so memory stays bounded by the tasks' size, not the input's;
a large file no range can cut (compressed) spools its judgements to a temporary file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..earlier import DEFAULT_WINDOW
from ..model import Judgement
from ..judging import FileEnd
from ..source import SPLIT_SIZE
from ....engine.worker import process_pool
from .tasks import Outcome, Task, in_order, run_task, tasks


def _outcomes(pool: ProcessPoolExecutor, work: Sequence[Any], ahead: int) -> Iterator[Outcome]:
    pending: deque[Future[Outcome]] = deque()
    queue = iter(work)
    for task in queue:
        pending.append(pool.submit(run_task, task))
        if len(pending) >= ahead:
            break
    while pending:
        yield pending.popleft().result()
        for task in queue:
            pending.append(pool.submit(run_task, task))
            break


def run_local(files: Sequence[Path], jobs: int, window: int = DEFAULT_WINDOW, progress: Any = None,
              split: int = SPLIT_SIZE) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of ``files`` in input order, judged by ``jobs`` worker processes."""
    return run_tasks(tasks(files, split, window, spool=True), jobs, progress)


def run_tasks(work: Sequence[Task], jobs: int, progress: Any = None) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of the tasks ``work`` (``tasks``' list, cut once) in input order, judged
    by ``jobs`` worker processes."""
    if not work:
        return
    with process_pool(min(jobs, len(work))) as pool:
        yield from in_order(_outcomes(pool, work, 2 * jobs), progress)
