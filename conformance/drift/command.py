"""``conformance drift``: compare the folders, print the summary, write the reports; returns the exit code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SpecError, UsageError
from ..engine.command_report import Report, write_report
from ..outputs import JSON_SUFFIXES, MARKDOWN_SUFFIXES, STDOUT, Output, check_outputs, json_output, report_output
from . import compare
from . import output as drift_output


def _fail(message: str) -> int:
    print(f"conformance drift: error: {message}", file=sys.stderr)
    return 2


def _outputs(args: argparse.Namespace) -> list[Path]:
    """Returns the files the command writes (``--json -`` prints to stdout, so it is none of them)."""
    return [Path(p) for p in (args.json, args.markdown, args.update_baseline_delta) if p and p != STDOUT]


def _check_outputs(args: argparse.Namespace) -> None:
    """Raises ``UsageError`` for an output that is unusable or would write over an input or into
    the baseline or current folder or a spec folder (``outputs.check_outputs``); returns None."""
    check_outputs([json_output(args.json, make_folders=True),
                   Output("--markdown", args.markdown, suffixes=MARKDOWN_SUFFIXES, make_folders=True),
                   Output("--update-baseline-delta", args.update_baseline_delta, suffixes=JSON_SUFFIXES,
                          make_folders=True),
                   report_output(args.report)], [args.baseline, args.current, *(args.specs or [])])


def run(args: argparse.Namespace) -> int:
    """Returns 1 on any breaking change, 0 otherwise, 2 when a folder, a recording of the baseline,
    a probe spec or an output path is unusable (the message names it). Recordings are judged under
    the probe specs of ``args.specs`` (default: the shipped ones); ``args.open_report`` writes the
    ``--report`` folder (the command layer above hands it down)."""
    try:
        _check_outputs(args)
    except UsageError as exc:
        return _fail(str(exc))
    try:
        drift = compare.compare_dirs(args.baseline, args.current,
                                     probe_specs=[Path(p) for p in args.specs] if args.specs else None)
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
