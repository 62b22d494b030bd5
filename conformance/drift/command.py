"""``conformance drift``: compare the folders, print the summary, write the reports; returns the exit code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SpecError
from ..command_report import Report, write_report
from . import compare
from . import output as drift_output


def _fail(message: str) -> int:
    print(f"conformance drift: error: {message}", file=sys.stderr)
    return 2


def _outputs(args: argparse.Namespace) -> list[Path]:
    """Returns the files the command writes (``--json -`` prints to stdout, so it is none of them)."""
    return [Path(p) for p in (args.json, args.markdown, args.update_baseline_delta) if p and p != "-"]


def run(args: argparse.Namespace) -> int:
    """Returns 1 on any breaking change, 0 otherwise, 2 when a folder, a recording of the baseline,
    a probe spec or an output path is unusable (the message names it). ``args.open_report`` writes
    the ``--report`` folder (the command layer above hands it down)."""
    for path in _outputs(args):
        if path.is_dir():
            return _fail(f"{path}: is a folder, not a file to write")
    try:
        drift = compare.compare_dirs(args.baseline, args.current)
    except SpecError as exc:
        return _fail(str(exc))
    report = Report("drift", drift=drift, code=drift["exit_code"])
    if args.json == "-":  # the JSON document on stdout instead of the summary
        print(drift_output.json_text(report), end="")
    else:
        print(drift_output.terminal(report, verbose=args.verbose))
    try:
        for path in _outputs(args):
            path.parent.mkdir(parents=True, exist_ok=True)
        if args.json and args.json != "-":
            Path(args.json).write_text(drift_output.json_text(report), encoding="utf-8")
        if args.markdown:
            Path(args.markdown).write_text(drift_output.markdown(report), encoding="utf-8")
        if args.update_baseline_delta:
            from .delta import write_delta
            for skipped in write_delta(args.baseline, args.current, args.update_baseline_delta):
                print(f"conformance drift: {skipped}: unreadable, left out of the baseline update", file=sys.stderr)
        if args.report:
            write_report(args.open_report, args.report, report)
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: cannot write: {exc.strerror or exc}")
    return int(drift["exit_code"])
