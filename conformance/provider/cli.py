"""The provider subcommands: ``verify``, ``record``, ``audit``, ``lint-config`` and ``analyze``.

``register(subparsers)`` adds them to the ``conformance`` command. Each handler takes the parsed
arguments and returns the exit code: 0 ok, 1 a failure or contradiction, 2 a usage or spec error.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..engine.command_report import OpenReport, Report, write_report
from ..outputs import Output, check_outputs, json_output, report_output
from . import base, default_cassettes, default_specs


def _paths(values: list[str] | None) -> list[Path] | None:
    return [Path(v) for v in values] if values else None


def _cassette_paths(command: str, values: list[str] | None) -> list[Path] | None:
    """Returns the cassette paths to read, or None after printing why there is nothing to read (exit 2)."""
    from .verify import cassette_files

    paths = _paths(values) or [default_cassettes()]
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"conformance {command}: no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return None
    files, _ = cassette_files(paths)
    if not files:
        print(f"conformance {command}: no cassette (*.yaml) under {', '.join(map(str, paths))}; "
              "nothing to check is not a pass", file=sys.stderr)
        return None
    return paths


def cmd_verify(args: argparse.Namespace) -> int:
    """Replays cassettes and prints the verdict tables; returns 2 on spec errors, 1 on any contradiction."""
    from .probes import load_probes
    from .verify import is_input_error, verify
    from .verify_output import json_text, terminal

    check_outputs([json_output(args.json), report_output(args.report)],
                  [*(_paths(args.paths) or [default_cassettes()]), *(_paths(args.specs) or [default_specs()])])
    paths = _cassette_paths("verify", args.paths)
    if paths is None:
        return 2
    probes, errors = load_probes(_paths(args.specs) or [default_specs()])
    results = verify(paths, probes, errors)
    code = 2 if any(is_input_error(r) for r in results) else (
        1 if any(r.outcome in ("fail", "error") for r in results) else 0)
    report = Report("verify", probes=results, code=code)
    print(json_text(report) if args.json == "-" else terminal(report))  # ``-``: the records instead of the tables
    if args.json and args.json != "-":
        Path(args.json).write_text(json_text(report) + "\n", encoding="utf-8")
    if args.report:
        write_report(args.open_report, args.report, report)
    return code


UNAVAILABLE = 3


def _keys() -> dict[str, str]:
    """Returns each registered provider's key variable by provider name, in registry order."""
    return {p.name: p.key_variable for p in base.all_providers()}


def _select(args: argparse.Namespace, probes: dict[str, Any], keys: dict[str, str]) -> list[Any] | None:
    """Returns the probes to record or price, or None after printing why the choice is unusable (exit 2).

    ``--probe`` names them; else ``--provider`` picks one provider's; else a dry run prices every
    probe and a recording takes the probes of each provider whose key is set.
    """
    if args.probe:
        unknown = sorted(set(args.probe) - set(probes))
        if unknown:
            print(f"conformance record: unknown probe id(s): {', '.join(unknown)}", file=sys.stderr)
            return None
        return [probes[i] for i in args.probe]
    if args.provider:
        return [p for p in probes.values() if p.provider == args.provider]
    if args.dry_run:
        return list(probes.values())
    return [p for p in probes.values() if keys.get(p.provider)]


def _no_key_message(variables: list[str]) -> str:
    """Returns the message for a recording with no provider's key set, naming every key variable."""
    first, *others = variables
    return (f"conformance record: {first} is not set" + "".join(f", nor {v}" for v in others)
            + f"; export the key of the provider to record (against a local emulator any value works, e.g. {first}=dummy)")


def cmd_record(args: argparse.Namespace) -> int:
    """Records probes through each provider's SDK into cassettes.

    Returns 0 when all were written, 1 if a probe failed, 2 on a usage or spec error (no key, a run
    above ``--max-cost``), 3 when a provider stayed unavailable (overloaded, rate limited).
    """
    variables = _keys()
    keys = {name: os.environ.get(variable, "").strip() for name, variable in variables.items()}
    if args.max_cost is not None and args.max_cost < 0:
        print("conformance record: --max-cost must be zero or more (US dollars)", file=sys.stderr)
        return 2
    if not args.dry_run and not any(keys.values()):
        print(_no_key_message(list(variables.values())), file=sys.stderr)
        return 2
    if not args.dry_run:  # a dry run writes nothing
        check_outputs([Output("--out", args.out, folder=True)], _paths(args.specs) or [default_specs()])
    from .probes import load_probes

    probes, errors = load_probes(_paths(args.specs) or [default_specs()])
    for error in errors:
        print(f"conformance record: {error}", file=sys.stderr)
    if errors:
        return 2
    chosen = _select(args, probes, keys)
    if chosen is None:
        return 2
    groups = {name: [p for p in chosen if p.provider == name] for name in variables}
    groups = {name: members for name, members in groups.items() if members}
    if args.base_url and len(groups) > 1:
        print("conformance record: --base-url names one server; choose one provider with --provider",
              file=sys.stderr)
        return 2
    missing = [variables[name] for name in groups if not keys[name]]
    if missing and not args.dry_run:
        print(f"conformance record: {', '.join(missing)} is not set; export it to record these probes "
              f"(against a local emulator any value works, e.g. {missing[0]}=dummy)", file=sys.stderr)
        return 2
    if args.dry_run:
        for number, name in enumerate(_dry_run_order(groups)):
            if number:
                print()
            print("\n".join(base.get(name).dry_run(groups[name], keys[name], args.base_url)))
        return 0
    if args.max_cost is not None:
        total = _offline_total(groups)  # offline: no call is made before the check
        if total is None or total > args.max_cost:
            said = "cannot be priced (a model is missing from the price table)" if total is None else f"may cost ${total:.2f}"
            print(f"conformance record: this run {said}, above --max-cost {args.max_cost:.2f}; nothing was sent "
                  "(see `conformance record --dry-run`)", file=sys.stderr)
            return 2
    out = Path(args.out) if args.out else default_cassettes()
    outcomes: list[Any] = []
    for name, members in groups.items():
        done = base.get(name).record(members, keys[name], args.base_url, out)
        outcomes += done
        for outcome in done:
            where = f" -> {outcome.path}" if outcome.path else ""
            print(f"{'ok    ' if outcome.ok else 'FAILED'} {outcome.probe}: {outcome.note}{where}")
        if any(o.unavailable for o in done):
            print(f"conformance record: provider {name} unavailable ({done[-1].note}); "
                  f"{len(members) - len(done)} probe(s) not tried", file=sys.stderr)
    if any(o.unavailable for o in outcomes):
        return UNAVAILABLE
    return 0 if all(o.ok for o in outcomes) else 1


def _dry_run_order(groups: dict[str, list[Any]]) -> list[str]:
    """Returns the providers whose cost tables a dry run prints, in order: the implicit provider's last."""
    implicit = base.implicit().name
    return [n for n in groups if n != implicit] + [n for n in groups if n == implicit]


def _offline_total(groups: dict[str, list[Any]]) -> float | None:
    """Returns the offline dollar estimate of every chosen probe, or None when a model has no price."""
    totals = [base.get(name).offline_cost(members) for name, members in groups.items()]
    return None if any(t is None for t in totals) else sum(t or 0.0 for t in totals)


def cmd_audit(args: argparse.Namespace) -> int:
    """Audits cassettes for secrets and reasoning text; returns 1 when anything is found."""
    from .audit import audit, audit_files, fix

    paths = _paths(args.paths) or [default_cassettes()]
    missing = [p for p in paths if not p.exists()]
    if missing or not audit_files(paths):
        why = f"no such file or folder: {', '.join(map(str, missing))}" if missing else \
            f"no recording under {', '.join(map(str, paths))}; nothing to check is not a pass"
        print(f"conformance audit: {why}", file=sys.stderr)
        return 2
    findings, files = audit(paths)
    for finding in findings:
        print(finding)
    print(f"audit: {files} recording(s), {len(findings)} finding(s)")
    if getattr(args, "fix", False):
        refused = 0
        for path in sorted({f.path for f in findings}):
            try:
                copy = fix(path)
            except FileExistsError as exc:
                print(f"conformance: error: {exc}", file=sys.stderr)
                refused += 1
                continue
            left = audit([copy])[0]  # what the scrubber cannot reach (a body inside base64 chunks) is said
            print(f"audit: wrote a scrubbed copy {copy}" + (f"; {len(left)} finding(s) remain in it, scrub "
                                                            "those by hand" if left else ""))
        if refused:
            return 2
    return 1 if findings else 0


def _not_findings(path: Path) -> str | None:
    """Returns why the existing file ``path`` is not a ``lint-config --json`` output that may be
    replaced (it does not hold a JSON list, as a configuration does not), or None when it is one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "[]")
    except (OSError, UnicodeDecodeError, ValueError):
        return "does not hold JSON findings"
    return None if isinstance(data, list) else "holds a JSON object (a configuration?), not lint-config findings"


def cmd_lint_config(args: argparse.Namespace) -> int:
    """Lints a context_management configuration; returns 1 when it can reach into a task in flight.

    The first provider that claims the file lints it (``base.Provider.claims_config``); the implicit
    provider lints every file no other claims.
    """
    if args.max_task_steps is not None and args.max_task_steps < 1:
        print("conformance lint-config: --task-size (--max-task-steps) must be at least 1", file=sys.stderr)
        return 2
    path = Path(args.file)
    check_outputs([json_output(args.json, refuse=_not_findings)], [path])
    linter = next((p for p in base.all_providers() if not p.implicit and p.claims_config(path)), base.implicit())
    if args.model is None:
        return linter.lint_config(path, args.max_task_steps, args.json)
    if "model" not in inspect.signature(linter.lint_config).parameters:
        print(f"conformance lint-config: --model: the {linter.name} configuration in {path} is linted without a "
              "model (its lint reads none)", file=sys.stderr)
        return 2
    lint_with_model: Any = linter.lint_config  # (a provider whose lint reads a model takes it as ``model``)
    return int(lint_with_model(path, args.max_task_steps, args.json, model=args.model))


def cmd_analyze(args: argparse.Namespace) -> int:
    """Judges recorded traffic as it streams; returns 2 for unreadable input or nothing to judge, 1
    when an interaction reached into a task in flight or is inconsistent, else 0."""
    from .analyze.cli import analyze_command

    return analyze_command(args)


def register(subparsers: Any, open_report: OpenReport) -> None:
    """Adds ``verify``, ``record``, ``audit``, ``lint-config`` and ``analyze`` to an argparse subparsers
    object; ``open_report`` writes a ``--report`` folder (the report layer sits above this one)."""
    v = subparsers.add_parser("verify", help="replay provider cassettes offline and compare verdicts with predictions")
    v.add_argument("paths", nargs="*", metavar="PATH", help="cassette files or folders (default: the shipped cassettes)")
    v.add_argument("--specs", nargs="+", metavar="PATH", help="probe spec files or folders (default: specs/provider)")
    v.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-': print them instead of the tables)")
    v.add_argument("--report", metavar="DIR", help="write results.jsonl, summary.md and index.html to DIR")
    v.set_defaults(func=cmd_verify, open_report=open_report)

    keys = _keys()
    r = subparsers.add_parser("record", help=f"record probes through the SDKs into cassettes (needs "
                                             f"{' and/or '.join(keys.values())})")
    r.add_argument("--probe", action="append", metavar="ID", help="record only this probe; repeatable")
    r.add_argument("--provider", choices=sorted(keys), help="record only this provider's probes (default: each "
                   "provider whose key is set)")
    r.add_argument("--base-url", metavar="URL",
                   help=f"server to record (default: {' or '.join('$' + p.base_url_variable for p in base.all_providers())}, "
                        "else the public API)")
    r.add_argument("--dry-run", action="store_true",
                   help="list each probe's requests, input tokens and estimated cost; send nothing billed")
    r.add_argument("--max-cost", type=float, metavar="USD", help="refuse (exit 2) a run estimated above USD")
    r.add_argument("--out", metavar="DIR", help="cassette root; files go to DIR/<server>/<probe>.yaml (default cassettes/)")
    r.add_argument("--specs", nargs="+", metavar="PATH", help="probe spec files or folders (default: specs/provider)")
    r.set_defaults(func=cmd_record)

    a = subparsers.add_parser("audit", help="fail on secrets or unscrubbed reasoning text in recordings")
    a.add_argument("paths", nargs="*", metavar="PATH",
                   help="recording files or folders, any dialect analyze reads (default: the shipped cassettes)")
    a.add_argument("--fix", action="store_true", help="write a scrubbed copy NAME.scrubbed.EXT beside each file with findings")
    a.set_defaults(func=cmd_audit)

    lc = subparsers.add_parser("lint-config", help="say from which task size a context_management config clears live work")
    lc.add_argument("file", metavar="FILE", help="JSON or YAML holding a context_management object")
    lc.add_argument("--task-size", "--max-task-steps", dest="max_task_steps", type=int, metavar="N",
                    help="the longest task your agent runs, in tool steps (a safer clear_tool_uses needs it)")
    lc.add_argument("--json", metavar="FILE",
                    help="write the findings as JSON to FILE ('-': print them instead of the table)")
    lc.add_argument("--model", metavar="NAME",
                    help="the model the configuration is sent to, as the requests name it: also say what that model "
                         "does under the configuration (where the provider's lint reads a model)")
    lc.set_defaults(func=cmd_lint_config)

    an = subparsers.add_parser("analyze", help="judge recorded traffic of any project (VCR, HAR, nock, JSON lines...): "
                                               "did server-side context management reach into a task in flight?")
    an.add_argument("paths", nargs="+", metavar="PATH", help="recording files or folders")
    an.add_argument("--json", metavar="FILE",
                    help="write one JSON record per interaction to FILE (as run, verify, drift and egress do; "
                         "'-': print them instead of the tables)")
    an.add_argument("--report", metavar="DIR", help="write results.jsonl, summary.md and index.html to DIR")
    an.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: one per core)")
    an.add_argument("--engine", choices=("local", "dask"), default="local",
                    help="where to judge: this machine (default) or a Dask cluster (the [dask] extra)")
    an.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                    "(default: a local cluster of --jobs worker processes)")
    an.add_argument("--window", type=int, metavar="N", help="interactions a chain may reach back "
                    "(previous_response_id, a carried compaction; default 1000)")
    an.set_defaults(func=cmd_analyze, open_report=open_report)
