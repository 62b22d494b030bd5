"""The ``egress`` subcommand: a serializer (or a task-record store) on the egress conversations.

Exit codes as ``conformance run``: 0 conforms, 1 a MUST failed, 2 a usage or spec error.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..outputs import check_outputs, json_output, report_output
from ..progress import progress_callback
from ..engine.results import must_checked
from ..engine.runner import keyword_filter
from ..engine.target import DEFAULT_TIME_LIMIT, resolve
from . import store
from .conversations import FORMATS, load, shipped_folder
from .render import render
from .run import EgressReport, run
from .surfaces import ENCRYPTED, surface, table


def cmd_egress(args: argparse.Namespace) -> int:
    """Runs the target on every conversation of its format for the surface; returns the exit code."""
    chosen = surface(args.surface)
    if args.format not in FORMATS:
        raise UsageError(f"unknown egress format {args.format!r}; known: {', '.join(FORMATS)}")
    if not (args.time_limit > 0):
        raise UsageError("--time-limit must be a positive number of seconds")
    check_outputs([json_output(args.json), report_output(args.report)], args.specs or [shipped_folder()])
    for name in args.target:
        resolve(name)  # a target that does not import is a usage error before any work
    loaded = load(args.specs)
    conversations = [c for c in loaded.conversations if c.format == args.format]
    if args.keyword:
        selected = keyword_filter(args.keyword)
        conversations = [c for c in conversations if selected.matches(c.id, *c.features)]
    if not conversations and not loaded.errors:
        raise UsageError(f"no egress conversation in format {args.format!r} selected")
    progress, done = progress_callback(not args.no_progress)
    try:
        if chosen.reasoning == ENCRYPTED:
            report = EgressReport(spec_errors=list(loaded.errors), targets=list(args.target),
                                  conversations=conversations, surface=chosen.name)
            for name in args.target:
                report.results.extend(store.run(name, conversations, time_limit=args.time_limit,
                                                progress=progress).results)
        else:
            targets: list[Any] = [resolve(n) for n in args.target] if args.in_process else list(args.target)
            report = run(targets, conversations, chosen, time_limit=args.time_limit, jobs=args.jobs,
                         spec_errors=loaded.errors, progress=progress)
    finally:
        done()
    if report.exit_code == 0 and not must_checked(report.results):
        report.code, report.verdict = 2, "NOTHING CHECKED"
    if args.json != "-":  # with ``--json -`` the JSON document is printed instead of the tables
        print(render(report))
    from ..report import write_outputs

    write_outputs(report, args.json, args.report)
    return report.exit_code


def register(subparsers: Any) -> None:
    """Adds the ``egress`` and ``egress-catalog`` subcommands to the ``conformance`` parser (``egress-matrix``
    is the matrix command's egress suite)."""
    names = ", ".join(table())
    e = subparsers.add_parser("egress", help="check that a serializer lets no reasoning out and keeps the answer")
    e.add_argument("--target", action="append", required=True, metavar="MODULE:ATTR",
                   help="serializer conversation -> payload; for --surface task-record a store factory")
    e.add_argument("--surface", required=True, metavar="NAME", help=f"where the payload goes; one of: {names}")
    e.add_argument("--format", default="anthropic", metavar="NAME",
                   help=f"the message format the target takes (default anthropic); one of: {', '.join(FORMATS)}")
    e.add_argument("--specs", nargs="+", metavar="PATH", help="egress conversation files or folders (default: the shipped ones)")
    e.add_argument("-k", dest="keyword", metavar="EXPR", help="only conversations whose id/format/features match")
    e.add_argument("--json", metavar="FILE", help="write one record per (conversation, check) and a summary to FILE "
                                                  "('-': print them instead of the tables)")
    e.add_argument("--report", metavar="DIR", help="write results.jsonl, summary.md and index.html to DIR")
    e.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS", help="per-call time limit")
    e.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: one per core)")
    e.add_argument("--in-process", action="store_true", help="call a serializer in this process (for a debugger)")
    e.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    e.set_defaults(func=cmd_egress)
    c = subparsers.add_parser("egress-catalog", help="print the egress catalog (docs/egress.md)")
    c.set_defaults(func=cmd_egress_catalog)


def cmd_egress_catalog(args: argparse.Namespace) -> int:
    """Prints docs/egress.md."""
    from .docs import catalog_markdown

    print(catalog_markdown(), end="")
    return 0
