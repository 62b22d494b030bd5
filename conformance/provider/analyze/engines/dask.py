"""Judge on a Dask cluster: the same pure tasks as the local engine, mapped by ``distributed``.

Paths and fsspec URLs (``s3://bucket/2026-12-01/*.jsonl.gz``, ``gs://``, ``file://``) are expanded
here; a local file is read by the worker in place (large JSON lines in byte ranges), a remote object
is fetched whole by the worker that judges it. Outcomes come back in input order through the same
``in_order`` as a local run, so the records and the exit code are the same. Needs the ``[dask]``
extra; ``scheduler`` None starts a local cluster of ``jobs`` worker processes on 127.0.0.1.
"""

from __future__ import annotations

import tempfile
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..earlier import DEFAULT_WINDOW
from ..judging import FileEnd
from ..model import Judgement
from ..run import recording_files, split_size
from .tasks import Outcome, Task, in_order, run_task, tasks


class DaskUnavailable(RuntimeError):
    """``--engine dask`` without the ``[dask]`` extra installed."""


def _protocol(url: str) -> str:
    return url.split("://", 1)[0] if "://" in url else ""


def expand(urls: Sequence[str]) -> list[str]:
    """Returns the recordings named: local paths as a local run finds them, URLs globbed by fsspec
    (sorted); raises ``FileNotFoundError`` for a name that matches nothing."""
    import fsspec

    found: list[str] = []
    for url in urls:
        if _protocol(url) in ("", "file"):
            path = Path(url.split("://", 1)[-1])
            matches = sorted(path.parent.glob(path.name)) if any(c in path.name for c in "*?[") else [path]
            if not matches or not all(m.exists() for m in matches):
                raise FileNotFoundError(f"no such file or folder: {url}")
            found += [str(p) for p in recording_files(matches)]
            continue
        fs, _, paths = fsspec.get_fs_token_paths(url)
        files = sorted(p for p in paths if not fs.isdir(p))
        if not files:
            raise FileNotFoundError(f"no recording matches {url}")
        found += [fs.unstrip_protocol(p) for p in files]
    return found


def run_url_task(task: Task) -> Outcome:
    """Returns the outcome of a task whose path may be an fsspec URL (fetched to a temporary file)."""
    if _protocol(task.path) in ("", "file"):
        return run_task(replace(task, path=task.path.split("://", 1)[-1]))
    import fsspec

    with tempfile.TemporaryDirectory() as folder:
        local = Path(folder) / Path(task.path).name
        with fsspec.open(task.path, "rb") as source, local.open("wb") as target:
            while chunk := source.read(1 << 22):
                target.write(chunk)
        out = run_task(replace(task, path=str(local)))
    for found in out.judgements:
        found.file = task.path
    out.task = task
    return out


def url_tasks(files: Sequence[str], split: int, window: int) -> list[Task]:
    """Returns the tasks: local files as the local engine cuts them, each remote object whole."""
    found: list[Task] = []
    for name in files:
        if _protocol(name) in ("", "file"):
            found += tasks([Path(name)], split, window)
        else:
            found.append(Task(name, window=window))
    return found


def _outcomes(client: Any, work: Sequence[Task], ahead: int) -> Iterator[Outcome]:
    pending: deque[Any] = deque()
    queue = iter(work)
    for task in queue:
        pending.append(client.submit(run_url_task, task, pure=False))
        if len(pending) >= ahead:
            break
    while pending:
        future = pending.popleft()
        yield future.result()
        future.release()
        for task in queue:
            pending.append(client.submit(run_url_task, task, pure=False))
            break


def dask_events(urls: Sequence[str], scheduler: str | None = None, jobs: int = 2, window: int = DEFAULT_WINDOW,
                split: int | None = None) -> Iterator[Judgement | FileEnd]:
    """Returns the judgements of the recordings named, judged on the Dask cluster at ``scheduler``
    (a local one of ``jobs`` processes when None), in input order. Raises ``DaskUnavailable``
    without ``distributed``, ``FileNotFoundError`` for a name that matches nothing, ``ValueError``
    when there is nothing to judge."""
    try:
        import distributed  # noqa: F401 - imported only to see that it is installed
        import fsspec  # noqa: F401 - imported only to see that it is installed
    except ImportError:
        raise DaskUnavailable("--engine dask needs the [dask] extra: pip install 'context-conformance[dask]'") from None
    files = expand(urls)
    if not files:
        raise ValueError(f"no recording under {', '.join(urls)}; nothing to judge is not a pass")
    work = url_tasks(files, split or split_size(), window)
    return _events(work, scheduler, jobs)


def _events(work: Sequence[Task], scheduler: str | None, jobs: int) -> Iterator[Judgement | FileEnd]:
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0")  # (None still starts one on :8787 when bokeh is installed)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        yield from in_order(_outcomes(client, work, 2 * workers))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
