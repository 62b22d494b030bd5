"""``conformance analyze PATH...``: stream the judgements of local files (every core by default) or
of fsspec URLs on a Dask cluster, print them as they come, and return the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .earlier import DEFAULT_WINDOW
from .model import Judgement
from ...engine.command_report import Report
from ...outputs import STDOUT, check_outputs, json_output, report_output
from .output import JsonSink, ReportSink, TableSink, Writer, write
from .run import FileEnd, analyze_stream, default_jobs, recording_files


def _local_events(args: argparse.Namespace, jobs: int, window: int,
                  ) -> tuple[Iterator[Judgement | FileEnd], Any] | None:
    """Returns the event stream of the local files named (and its progress bar, or None), or None
    after saying why there is nothing to judge."""
    paths = [Path(p) for p in args.paths]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"conformance analyze: no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return None
    files = recording_files(paths)
    if not files:
        print(f"conformance analyze: no recording under {', '.join(map(str, paths))}; nothing to judge is not a pass",
              file=sys.stderr)
        return None
    progress = None
    if sys.stderr.isatty():
        from .progress import Progress
        from .source import file_size

        progress = Progress(sum(file_size(f) for f in files))
    return analyze_stream(files, jobs=jobs, window=window, progress=progress), progress


def _recording(path: Path) -> str | None:
    """Returns why the existing file ``path`` must not be replaced by ``--json``: it reads as a
    recording (one interaction at least), an input of ``analyze`` and not its output; else None."""
    from .source import interactions

    try:
        next(iter(interactions(path)))
    except Exception:  # noqa: BLE001 - unreadable or empty as a recording: not one to keep
        return None
    return "reads as a recording (an input of analyze, not its output)"


def analyze_command(args: argparse.Namespace) -> int:
    """Runs ``conformance analyze``; returns 0, 1 or 2 (see ``Tally.exit_code``)."""
    jobs = args.jobs if getattr(args, "jobs", None) is not None else default_jobs()
    window = args.window if getattr(args, "window", None) is not None else DEFAULT_WINDOW
    if jobs < 1 or window < 1:
        print("conformance analyze: --jobs and --window take a positive number", file=sys.stderr)
        return 2
    local = getattr(args, "engine", "local") != "dask"
    check_outputs([json_output(args.json, refuse=_recording), report_output(args.report)],
                  args.paths if local else [p for p in args.paths if "://" not in p])
    if not local:
        from .engines.dask import DaskUnavailable, dask_events

        try:
            events, progress = dask_events(args.paths, scheduler=args.scheduler, jobs=jobs, window=window), None
        except (DaskUnavailable, FileNotFoundError, ValueError) as exc:
            print(f"conformance analyze: {exc}", file=sys.stderr)
            return 2
    else:
        found = _local_events(args, jobs, window)
        if found is None:
            return 2
        events, progress = found
    report = Report("analyze")  # its records stream through the writers, none kept
    target = None
    if args.json is not None and args.json != STDOUT:
        try:
            target = open(args.json, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            print(f"conformance analyze: --json {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    writers: list[Writer] = [JsonSink(sys.stdout, report) if args.json == STDOUT else TableSink(sys.stdout, report)]
    if target is not None:
        writers.append(JsonSink(target, report))
    if args.report:  # the writer comes down from the command layer, which sits above this one
        writers.append(ReportSink(args.open_report(args.report, report)))
    try:
        code = write(events, writers)
    finally:
        if progress is not None:
            progress.close()
        if target is not None:
            target.close()
    return code
