"""The ``drift`` and ``explain`` subcommands, registered on the ``conformance`` command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._paths import shipped


def cmd_explain(args: argparse.Namespace) -> int:
    """Prints one scenario or probe, or with ``--interaction N`` one interaction of a recording;
    returns 1 when it explains a failure ``run`` or ``analyze`` would exit 1 for (a MUST check of
    ``--target`` on the scenario that fails, an interaction that reached into a task in flight, a
    probe recording that contradicts its prediction),
    2 when the id, the file or the index is unusable (a one-line error), else 0."""
    from pathlib import Path

    if args.interaction is not None or Path(args.id).is_file():
        return _explain_interaction(args)
    from ..engine.target import resolve
    from ..engine.results import gating_failures
    from .explain import explain_probe, explain_scenario_results, find
    subject, near = find(args.id, args.specs or [shipped("specs")])
    if subject is None:
        from ..engine.spec import load
        several = [n for n in near if n.startswith(args.id)]
        hint = (f"; {len(several)} ids start with it: {', '.join(several[:5])}{', ...' if len(several) > 5 else ''}"
                if several else f"; did you mean: {', '.join(near)}" if near else "")
        for error in load(args.specs or [shipped("specs")]).errors:  # it may be in a spec that did not load
            print(f"conformance: spec error: {error}", file=sys.stderr)
        print(f"conformance: error: no scenario or probe {args.id!r}{hint}", file=sys.stderr)
        return 2
    if hasattr(subject, "truth"):
        from ..formats.wrap import in_format
        targets, (subject,), note = in_format([resolve(args.target)] if args.target else [], [subject], args.format)
        text, results = explain_scenario_results(subject, targets[0] if targets else None)
        print(text + (f"\n{note}" if note else ""))
        return 1 if gating_failures(results, ("MUST",)) else 0
    else:
        if args.target:
            print("note: --target applies to scenarios; a probe runs against the provider", file=sys.stderr)
        outcomes: list[str] = []
        print(explain_probe(subject, outcomes=outcomes))
        return 1 if "fail" in outcomes else 0  # a recording that contradicts its prediction, as `verify` exits


def _explain_interaction(args: argparse.Namespace) -> int:
    """Prints interaction ``--interaction N`` of the recording ``args.id``; returns 1 when its verdict
    is a failing one (as ``analyze`` would for it), else 0, or 2 with a
    one-line error when the file is missing or unreadable, the index is bad or ``--interaction`` is
    not given."""
    from pathlib import Path

    from .explain_recording import ExplainError, explain_interaction

    if args.interaction is None:
        print(f"conformance: error: {args.id} is a file: give --interaction N to explain one interaction of it",
              file=sys.stderr)
        return 2
    try:
        text, verdict = explain_interaction(Path(args.id), args.interaction)
    except ExplainError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    print(text)
    from ..provider.analyze.model import FAILING
    return 1 if verdict in FAILING else 0


def cmd_drift(args: argparse.Namespace) -> int:
    """Compares two folders of recordings; returns 1 on any breaking change, else 0 (2 on bad input)."""
    from ..drift.command import run
    from . import open_report

    args.open_report = open_report
    return run(args)


def register(subparsers: Any) -> None:
    """Adds the ``drift`` and ``explain`` subcommands to the ``conformance`` parser."""
    d = subparsers.add_parser("drift", help="compare two sets of provider recordings and classify the changes")
    d.add_argument("--baseline", required=True, metavar="DIR", help="the committed recordings")
    d.add_argument("--current", required=True, metavar="DIR", help="the fresh recordings")
    d.add_argument("--specs", nargs="+", metavar="PATH", help="probe spec files or folders (default: specs/provider)")
    d.add_argument("--json", metavar="FILE", help="write the classified changes as JSON to FILE "
                                                  "('-': print them instead of the summary)")
    d.add_argument("--markdown", metavar="PATH", help="write the Markdown drift report")
    d.add_argument("--report", metavar="DIR", help="write results.jsonl, summary.md and index.html to DIR")
    d.add_argument("--update-baseline-delta", metavar="PATH",
                   help="write the baseline update as a JSON-serialised deepdiff Delta")
    d.add_argument("-v", "--verbose", action="store_true", help="also list the noise")
    d.set_defaults(func=cmd_drift)
    e = subparsers.add_parser("explain", help="print one scenario, probe or recorded interaction, boundary marked")
    e.add_argument("id", metavar="ID", help="scenario or probe id, or with --interaction a recording file")
    e.add_argument("--interaction", type=int, metavar="N",
                   help="explain interaction N (0-based, as analyze numbers them) of the recording file ID")
    e.add_argument("--target", metavar="MODULE:ATTR", help="also show what this compactor does to it")
    e.add_argument("--specs", nargs="+", metavar="PATH", help="spec files or folders (default: the shipped specs)")
    e.add_argument("--format", metavar="NAME", help="the message format the target speaks (see conformance run)")
    e.set_defaults(func=cmd_explain)
