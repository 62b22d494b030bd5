"""The ``conformance fuzz`` command, and ``run --generated N`` as a thin alias of it.

Exit codes: 0 every generated example held, 1 a counterexample was found (and written as a
scenario file), 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..outputs import Output, check_outputs
from ..report.terminal import render_failure
from ..engine.spec import Scenario
from ..engine.spec_writer import write
from ..engine.target import DEFAULT_TIME_LIMIT, Target, resolve

if TYPE_CHECKING:  # Hypothesis is imported when fuzzing starts, not with every command
    from .engine import FuzzOptions, FuzzResult

DEFAULT_OUT = Path("fuzz-failures")


def counterexample(result: FuzzResult, seed: int) -> Scenario:
    """Returns the shrunk scenario of a failed run, described by the invariants it breaks."""
    assert result.scenario is not None
    broken = ", ".join(sorted({r.invariant for r in result.failures}))
    description = f"shrunk by conformance fuzz (seed {seed}) against {result.target}: {broken}"
    if len(description) > 120:
        description = description[:117] + "..."
    return replace(result.scenario, description=description)


def reproduce_command(path: Path, target: str, fmt: str | None = None) -> str:
    """Returns the command that runs a written counterexample against its target (in its format)."""
    return f"conformance run --no-provider --specs {path} --target {target}" + (f" --format {fmt}" if fmt else "")


def write_counterexample(result: FuzzResult, seed: int, out: Path, fmt: str | None = None) -> Path:
    """Writes the shrunk scenario of a failed run to ``out/<id>.yaml``; returns the path."""
    scenario = counterexample(result, seed)
    path = out / f"{scenario.id}.yaml"
    found_by = f"conformance fuzz --target {result.target} --seed {seed}" + (f" --format {fmt}" if fmt else "")
    comment = f"Found by: {found_by}. Reproduce: {reproduce_command(path, result.target, fmt)}"
    return write(path, [scenario], [comment])


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Callable[[int], None] | None]:
    """Yields a callback that shows examples done on a terminal (None when stderr is not one)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress  # only on a terminal: rich takes a moment to import

    with Progress(transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=min(done, total))


def fuzz_target(target: Target, options: FuzzOptions, out: Path) -> int:
    """Fuzzes one target and prints the outcome; returns 0 when it held, 1 when a counterexample was written."""
    from .engine import run_fuzz

    with progress_bar(options.examples, f"fuzz {target.name}") as show:
        result = run_fuzz(target, replace(options, progress=show))
    if result.passed:
        print(f"fuzz {target.name}: {result.examples} generated histories held every "
              f"{'/'.join(options.levels)} invariant (seed {options.seed})")
        return 0
    path = write_counterexample(result, options.seed, out, options.format)
    assert result.scenario is not None
    print(f"fuzz {target.name}: counterexample after {result.examples} examples, shrunk to "
          f"{len(result.scenario.history)} messages (seed {options.seed})")
    for failure in result.failures:
        print("\n".join(render_failure(failure, str(path))))
    print(f"written: {path}")
    print(f"reproduce: {reproduce_command(path, target.name, options.format)}")
    return 1


def fuzz_all(targets: Sequence[Target], examples: int, seed: int, time_limit: float = DEFAULT_TIME_LIMIT,
             out: Path = DEFAULT_OUT, fmt: str | None = None, in_process: bool = False) -> int:
    """Fuzzes each target (speaking ``fmt``) with MUST-level checks (``run --generated N``); returns 1
    if any failed."""
    from .engine import FuzzOptions

    options = FuzzOptions(examples=examples, seed=seed, time_limit=time_limit, format=fmt, in_process=in_process)
    return max((fuzz_target(t, options, out) for t in targets), default=0)


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Runs ``conformance fuzz``; returns the exit code."""
    if args.format is not None:
        from ..formats import get

        get(args.format)  # an unknown format is a usage error before any work
    if args.examples < 1:
        raise UsageError("--examples must be at least 1")
    check_outputs([Output("--out", args.out, folder=True)])
    options = fuzz_options(args)
    return max(fuzz_target(resolve(name), options, Path(args.out)) for name in args.target)


def fuzz_options(args: argparse.Namespace) -> FuzzOptions:
    """Returns the fuzzing options of parsed ``conformance fuzz`` arguments: the one place the
    command's defaults become options, so ``benchmarks/kill_rate.py`` measures what a user runs."""
    from .engine import CACHE_DIR, FuzzOptions

    return FuzzOptions(
        examples=args.examples, seed=args.seed, levels=("MUST", "SHOULD") if args.should else ("MUST",),
        undecidable=not args.decidable_only, time_limit=args.time_limit,
        database=None if args.no_cache else CACHE_DIR, format=args.format, in_process=args.in_process)


def register(sub: argparse._SubParsersAction) -> None:
    """Adds the ``fuzz`` subcommand to the ``conformance`` command."""
    p = sub.add_parser("fuzz", help="check a target on generated histories; write a shrunk counterexample")
    p.add_argument("--target", action="append", required=True, metavar="MODULE:ATTR",
                   help="compactor to fuzz; repeat for several")
    p.add_argument("--examples", type=int, default=100, metavar="N", help="generated histories per target")
    p.add_argument("--seed", type=int, default=0, help="seed of the generation (same seed, same histories)")
    p.add_argument("--out", default=str(DEFAULT_OUT), metavar="DIR",
                   help=f"where a counterexample is written as a scenario file (default {DEFAULT_OUT})")
    p.add_argument("--format", metavar="NAME", help="message format the target speaks (default: Anthropic's); "
                   "generated histories it cannot express are not examples")
    p.add_argument("--should", action="store_true", help="SHOULD invariants fail the run too")
    p.add_argument("--decidable-only", action="store_true",
                   help="leave out interleaved and reordered histories (where a refusal is allowed)")
    p.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help="per-call time limit")
    p.add_argument("--in-process", action="store_true",
                   help="call the target in this process (no isolation; for a debugger)")
    p.add_argument("--no-cache", action="store_true",
                   help="do not replay or save failures in .conformance_cache/hypothesis")
    p.set_defaults(func=cmd_fuzz)
