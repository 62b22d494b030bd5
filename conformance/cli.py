"""The ``conformance`` command: a thin shell over the runner and the provider side.

Exit codes: 0 conforms, 1 a MUST failed, 2 a usage or spec error.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__
from ._paths import shipped
from ._text import fit, plural
from .clock import busy_note
from .errors import ConformanceError, SpecError, TargetError, UsageError
from .expectations import apply_gaps, gaps_document, load_gaps, not_gaps, write_gaps
from .invariants import BY_ID
from .outputs import YAML_SUFFIXES, Output, check_outputs, json_output, report_output
from .progress import progress_callback
from .results import CheckResult, must_checked
from .runner import RunOptions, RunReport, keyword_filter, run, runs_here
from .spec import load
from .target import DEFAULT_TARGET, DEFAULT_TIME_LIMIT, resolve
from .worker import beside, parse_size, reaped, warm_up

# The other commands' modules (egress, fuzz, matrix, the provider side, the reports) and what they
# import load only for a command that is theirs (see ``build_parser``): ``run`` imports none of them.


def format_help() -> str:
    """Returns the help of ``--format``: the formats this project ships, read from the registry's list
    (no format module is imported for it)."""
    from . import registry

    names = [name for name, _ in registry.shipped("formats")]
    return "the message format the targets speak (default anthropic); one of: " + ", ".join(names)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _replays_recordings(args: argparse.Namespace) -> bool:
    """Returns whether the run replays the provider recordings: by default only without ``--target``."""
    if args.no_provider and (args.provider or args.cassettes):
        raise UsageError("--no-provider contradicts --provider / --cassettes")
    return not args.no_provider and bool(args.provider or args.cassettes or not args.target)


def _replayed(paths: list[Path] | None) -> list[CheckResult]:
    """Returns the results of replaying the cassettes under ``paths`` (None: the shipped ones):
    ``provider.replay_all``, run in a process of its own."""
    from .provider import replay_all

    return replay_all(paths)


def _start_replay(args: argparse.Namespace) -> Callable[[], list[CheckResult]] | None:
    """Starts the replay of the provider recordings when the run replays them; returns what gives
    its results (``None`` when it does not). The replay runs in a process of its own from now on
    (``provider.replay_all``: there each provider's SDK imports in a process of its own, side by
    side), while this one loads the specs and runs the scenarios: this process imports no SDK, and
    the run takes about as long as the slowest provider's replay. A replay that broke is done
    again here, where a problem is reported."""
    if not _replays_recordings(args):
        return None
    from .provider.base import names

    paths = [Path(p) for p in args.cassettes] if args.cassettes else None
    # A process that holds every SDK already (a test run's) replays here when the results are asked
    # for: there is nothing to import, and no process to start.
    side = None if all(name in sys.modules for name in names()) else beside(_replayed, paths)

    def results() -> list[CheckResult]:
        if side is not None:
            try:
                return side.result()
            except Exception:  # noqa: BLE001 - a replay that broke is done here, where a problem is reported
                pass
        from .provider import verify_results

        return verify_results(paths)

    return results


def _check_options(args: argparse.Namespace) -> None:
    """Raises ``UsageError`` for an option value no run can use, and for an output path that
    cannot be written, before any work is done."""
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        raise UsageError(f"--time-limit must be a positive number of seconds, not {args.time_limit:g}")
    if args.generated < 0:
        raise UsageError(f"--generated must be 0 or more, not {args.generated}")
    if args.write_gaps and len(args.target or [DEFAULT_TARGET]) != 1:
        raise UsageError("--write-gaps writes the gaps of one target: give one --target")
    replays = _replays_recordings(args)
    inputs = [*(args.specs or [shipped("specs")]), *(args.expectations or [])]
    if replays:
        inputs += args.cassettes or [shipped("cassettes")]
    check_outputs([json_output(args.json), report_output(args.report),
                   Output("--write-gaps", args.write_gaps, suffixes=YAML_SUFFIXES, refuse=not_gaps)], inputs)


def _nothing_selected(args: argparse.Namespace, loaded: int, probes: int) -> str:
    """Returns the one-line reason a run selected no scenario."""
    where = " ".join(args.specs) if args.specs else "the shipped specs"
    if not loaded:
        return f"no scenario found in {where}"
    probe_note = f" and none of the {probes} provider probes" if args.keyword and probes else ""
    return f"-k {args.keyword!r} selects none of the {plural(loaded, 'scenario')} in {where}{probe_note}"


def spec_folder_line(specs: Sequence[str] | None) -> list[str]:
    """Returns the line that says which spec files or folders a run reads (and, for the shipped
    ones, that a ``specs/`` folder in the current directory is not the one being run)."""
    if specs:
        return fit([f"specs: {' '.join(str(Path(p).resolve()) for p in specs)}"])
    folder = shipped("specs").resolve()
    line = f"specs: {folder} (the shipped specs)"
    here = Path("specs")
    if here.is_dir() and here.resolve() != folder:
        line += "; ./specs is not run (--specs specs runs it)"
    return fit([line])


def _write_gaps(path: str, report: RunReport) -> None:
    """Writes the known-gaps file of the run's one target from its failures and says so."""
    target = report.targets[0]
    gating = ("MUST", "REFERENCE") if target in report.reference_targets else ("MUST",)
    document = gaps_document(report.results, target, gating)
    try:
        write_gaps(path, document)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None
    count = len(document["gaps"])  # type: ignore[arg-type]  # the gaps document is typed as plain JSON
    print(f"wrote {plural(count, 'known gap')} of {target} to {path}; "
          f"rerun with --expectations {path}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    """Runs the scenarios on every target (and replays the recordings when asked); returns the exit code.

    A run that checks nothing (no scenario selected, or a target with no MUST check that passed or
    failed) is a usage error, exit 2, never CONFORMS.
    """
    _check_options(args)
    missing = [p for p in args.specs or [] if not Path(p).exists()]
    if missing:  # seen up front: nothing is started
        raise SpecError(missing[0], None, "", "no such file or folder")
    targets = [resolve(name) for name in (args.target or [DEFAULT_TARGET])]
    options = RunOptions(time_limit=args.time_limit, idempotence=not args.no_idempotence,
                         in_process=args.in_process, jobs=args.jobs, memory_limit=args.memory_limit,
                         maxfail=args.maxfail, prefix_check=args.models == "current")
    # specs named by --specs load first, so that when none of them loads nothing is replayed
    replay = None if args.specs else _start_replay(args)
    if not args.in_process and (args.format or not all(runs_here(t, options) for t in targets)):
        warm_up()  # a worker will call a target: the fork server imports the harness while the specs load
    loaded = load(args.specs or [shipped("specs")])
    scenarios = loaded.scenarios
    if not (loaded.scenarios or loaded.errors or args.generated):  # nothing of ours to run
        raise UsageError(_nothing_selected(args, 0, 0))
    if loaded.errors and not loaded.scenarios and not args.generated:  # no spec loaded: nothing is run
        for error in loaded.errors:
            print(f"conformance: spec error: {error}", file=sys.stderr)
        raise UsageError(f"no scenario loaded from {' '.join(args.specs or ['the shipped specs'])}, "
                         "so nothing was run")
    if args.specs:
        replay = _start_replay(args)
    selected = keyword_filter(args.keyword) if args.keyword else None
    if selected is not None:
        scenarios = [s for s in scenarios if selected(s)]
    # The recordings' results are needed before the run only to read a known-gaps file or to tell
    # whether anything was selected; else the scenarios run while the recordings replay.
    early = replay is not None and (bool(args.expectations) or not scenarios)
    probes = replay() if early and replay is not None else []
    gaps = []
    run_targets = [t.name for t in targets] + sorted({p.target for p in probes})
    for path in args.expectations or []:
        gaps.extend(load_gaps(path, [s.id for s in loaded.scenarios] + [p.scenario for p in probes],
                              [*BY_ID, *(p.invariant for p in probes)], targets=run_targets))
    all_probes = len(probes)
    if selected is not None:
        probes = [p for p in probes if selected.matches(p.scenario, p.family)]
    if not loaded.errors and not scenarios and (args.target or not probes) and not args.generated:
        raise UsageError(_nothing_selected(args, len(loaded.scenarios), all_probes))
    named_targets = targets
    format_note = ""
    if args.format:
        from .formats.wrap import in_format

        targets, scenarios, format_note = in_format(targets, scenarios, args.format)
    progress, done = progress_callback(not args.no_progress)
    try:
        report = run(targets, scenarios, gaps=gaps, options=options, spec_errors=loaded.errors, progress=progress,
                     keep_on_interrupt=True)
    finally:
        done()
    if replay is not None and not early and not report.interrupted:
        probes = replay()  # the replay went on beside the scenarios
        if selected is not None:
            probes = [p for p in probes if selected.matches(p.scenario, p.family)]
    probes = apply_gaps(probes, gaps)
    probe_spec_error = any(r.invariant == "provider.probe-valid" for r in probes)
    probe_failed = any(r.level == "MUST" and r.outcome in ("fail", "error", "xpass") for r in probes)
    code = report.exit_code or (2 if probe_spec_error else 1 if probe_failed else 0)
    unchecked = [t for t in report.targets
                 if scenarios and not must_checked(r for r in report.results if r.target == t)]
    if code == 0 and unchecked:
        code, report.verdict = 2, "NOTHING CHECKED"
    report.probes, report.code = probes, code
    from .report import terminal

    to_stdout = args.json == "-"  # the JSON document on stdout instead of the tables
    if not to_stdout or report.interrupted:  # an interrupted run writes no JSON: what finished goes to stderr
        print(terminal.render(report, verbose=args.verbose, header=spec_folder_line(args.specs))
              + (f"\n{format_note}" if format_note else ""), file=sys.stderr if to_stdout else sys.stdout)
    elif format_note:
        print(f"conformance: {format_note}", file=sys.stderr)
    note = busy_note([t for obs in report.observations.values() for t in (obs.timing, obs.second.timing if obs.second else None)])
    if note:  # on stderr: what the run lost to the machine is no part of its results
        print(f"conformance: {note}", file=sys.stderr)
    if report.interrupted:  # what finished is shown; no file claims to be the whole run
        if args.json or args.report or args.write_gaps:
            print("conformance: interrupted: no --json, --report or --write-gaps written", file=sys.stderr)
        return 130
    if args.write_gaps:
        _write_gaps(args.write_gaps, report)
    from .report import write_outputs

    write_outputs(report, args.json, args.report)
    if args.generated:  # a thin alias of `conformance fuzz --examples N --seed S`
        from contextlib import redirect_stdout

        from .fuzz.cli import fuzz_all

        with redirect_stdout(sys.stderr if to_stdout else sys.stdout):  # stdout holds only the JSON document
            code = max(code, fuzz_all(named_targets, args.generated, args.seed, args.time_limit, fmt=args.format,
                                        in_process=args.in_process))
    if report.verdict:
        raise UsageError(f"no MUST check of {', '.join(unchecked)} passed or failed: every one was skipped, "
                         "not run or a known gap (see --expectations and -k)")
    return code


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_catalog(args: argparse.Namespace) -> int:
    """Prints the invariant catalog as a Markdown table."""
    from .invariants import catalog_table

    print(catalog_table())
    return 0


OWN_COMMANDS = ("run", "catalog")  # defined here; every other command is registered by its own module


def command_of(argv: Sequence[str]) -> str | None:
    """Returns the command ``argv`` names (its first word that is not an option), or ``None``."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Returns the argument parser of the ``conformance`` command: every command, or with
    ``command`` one of ``OWN_COMMANDS``, that one alone (so the other commands' modules are not
    imported)."""
    parser = _Parser(prog="conformance", description="Conformance suite for history compaction.")
    parser.add_argument("--version", action="version", version=f"context-conformance {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("run", help="run the scenarios (and, without --target, replay the provider recordings)")
    p.add_argument("--target", action="append", metavar="MODULE:ATTR",
                   help=f"compactor to test; repeat for several (default {DEFAULT_TARGET})")
    p.add_argument("--specs", nargs="+", metavar="PATH", help="spec files or folders (default: the shipped specs)")
    p.add_argument("-k", dest="keyword", metavar="EXPR", help="only scenarios whose id/family/features match")
    p.add_argument("--generated", type=int, default=0, metavar="N",
                   help="then fuzz each target on N generated histories (as conformance fuzz --examples N)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated histories")
    p.add_argument("--json", metavar="FILE", help="write one record per (scenario, invariant) and a summary to FILE "
                                                  "('-': print them instead of the tables)")
    p.add_argument("--report", metavar="DIR", help="write results.jsonl, summary.md and index.html to DIR")
    p.add_argument("--expectations", action="append", metavar="FILE", help="known gaps of the target (strict)")
    p.add_argument("--write-gaps", metavar="FILE",
                   help="write the known gaps of the one target from this run's failures to FILE")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help="per-call time limit")
    p.add_argument("--format", metavar="NAME", help=format_help())
    p.add_argument("--no-idempotence", action="store_true", help="skip the second call for output.idempotent")
    p.add_argument("--models", choices=("current", "older"), default="current",
                   help="judge as current Claude models do, which check the prefix of every thinking block sent "
                        "back (the agent loop's thinking.* checks; default), or as models without that check "
                        "(Opus 5, Sonnet 5 and earlier), where keeping settled reasoning stays legal")
    p.add_argument("--cassettes", nargs="+", metavar="PATH", help="recordings to replay (default: the shipped ones)")
    p.add_argument("--provider", action="store_true",
                   help="also replay the provider recordings (the default only when no --target is given)")
    p.add_argument("--no-provider", action="store_true", help="do not replay provider recordings")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="show every failure in full, known gaps too (default: each invariant's smallest scenario)")
    p.add_argument("--jobs", "-j", type=_positive_int, default=None, metavar="N",
                   help="worker processes running scenarios at once (default: one per core)")
    p.add_argument("--in-process", action="store_true",
                   help="call targets in this process (no isolation; for a debugger)")
    p.add_argument("--memory-limit", type=_size, default=None, metavar="SIZE",
                   help="cap each worker's memory, e.g. 2G (a target past it gets MemoryError)")
    p.add_argument("--maxfail", type=_positive_int, default=None, metavar="N",
                   help="stop after N failing scenarios")
    p.add_argument("-x", "--exitfirst", dest="maxfail", action="store_const", const=1,
                   help="stop after the first failing scenario")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines on stderr")
    p.set_defaults(func=cmd_run)
    c = sub.add_parser("catalog", help="print the invariant catalog")
    c.set_defaults(func=cmd_catalog)
    if command not in OWN_COMMANDS:
        from .egress.command import register as register_egress
        from .fuzz.cli import register as register_fuzz
        from .matrix import register as register_matrix
        from .provider.cli import register as register_provider
        from .report import open_report
        from .report.cli import register as register_reports

        register_provider(sub, open_report)
        register_reports(sub)
        register_fuzz(sub)
        register_matrix(sub)
        register_egress(sub)
    return parser


def _stdout_gone() -> int:
    """Points standard output at the null device, so that nothing more fails at exit; returns 141,
    the shell's code for a writer whose reader closed the pipe."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a file descriptor (a captured stream)
        pass
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit code (0 conforms, 1 MUST failed, 2 usage/spec error)."""
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(command_of(words))
        if not words:  # bare `conformance`: what it can do
            parser.print_usage(sys.stderr)
            print("conformance: error: give a command (run, explain, ...); conformance --help lists them",
                  file=sys.stderr)
            return 2
        args = parser.parse_args(words)
        with reaped():  # no worker or helper process this command started outlives it
            code = int(args.func(args))
        sys.stdout.flush()  # a reader that has gone away shows here, not as a traceback at exit
        return code
    except BrokenPipeError:  # `conformance ... | head`: a closed pipe is a normal end
        return _stdout_gone()
    except (TargetError, UsageError) as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    except SpecError as exc:
        print(f"conformance: spec error: {exc}", file=sys.stderr)
        return 2
    except ConformanceError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside the scenarios' loop (that one reports what finished)
        print("conformance: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
