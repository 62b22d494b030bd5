"""The ``conformance`` command: its parser and ``main``; each command's work is in its own module
(``run_command`` for ``run``, and every other command registered by its module).

Exit codes: 0 conforms, 1 a MUST failed, 2 a usage or spec error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import __version__
from .errors import ConformanceError, SpecError, TargetError, UsageError
from .run_command import cmd_run
from .engine.target import DEFAULT_TARGET, DEFAULT_TIME_LIMIT
from .engine.worker import parse_size, reaped

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
    from .engine.invariants import catalog_table

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
