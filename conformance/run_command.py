"""``conformance run``: the scenarios on every target, and the provider recordings replayed beside them.

``cmd_run`` reads the run's plan (targets, the specs selected, the replay started, known gaps),
runs it, judges the recordings' results into the exit code, and shows and writes what was asked.
Exit codes: 0 conforms, 1 a MUST failed, 2 a usage or spec error (and a run that checks nothing),
130 interrupted.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ._paths import shipped
from ._text import fit, plural
from .engine.clock import busy_note
from .errors import SpecError, UsageError
from .engine.expectations import KnownGap, apply_gaps, gaps_document, load_gaps, not_gaps, write_gaps
from .engine.invariants import BY_ID
from .outputs import YAML_SUFFIXES, Output, check_outputs, json_output, report_output
from .progress import progress_callback
from .engine.results import CheckResult, must_checked
from .engine.runner import KeywordFilter, RunOptions, RunReport, keyword_filter, run, runs_here
from .engine.spec import LoadResult, Scenario, load
from .engine.target import DEFAULT_TARGET, Target, resolve
from .engine.worker import beside, warm_up


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


@dataclass
class _Plan:
    """What a run was asked to do, read before it starts: the targets (as named, and as run in a
    format), the scenarios selected and what loaded, the replay of the recordings (its results, when
    they were needed up front), the known gaps, and the note of what a format skips."""

    named: list[Target]
    targets: list[Target]
    scenarios: list[Scenario]
    loaded: LoadResult
    replay: Callable[[], list[CheckResult]] | None
    selected: KeywordFilter | None
    early: bool
    probes: list[CheckResult]
    gaps: list[KnownGap]
    format_note: str


def _plan(args: argparse.Namespace, options: RunOptions) -> _Plan:
    """Returns the run's plan: targets resolved, specs loaded, the replay started, ``-k`` and the
    known gaps applied; raises ``SpecError``, ``TargetError`` or ``UsageError`` when there is
    nothing to run."""
    missing = [p for p in args.specs or [] if not Path(p).exists()]
    if missing:  # seen up front: nothing is started
        raise SpecError(missing[0], None, "", "no such file or folder")
    targets = [resolve(name) for name in (args.target or [DEFAULT_TARGET])]
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
    named, format_note = targets, ""
    if args.format:
        from .formats.wrap import in_format

        targets, scenarios, format_note = in_format(targets, scenarios, args.format)
    return _Plan(named, targets, scenarios, loaded, replay, selected, early, probes, gaps, format_note)


def _judged(plan: _Plan, report: RunReport) -> tuple[int, list[str]]:
    """Sets the run's recordings' results and exit code on ``report``; returns the code and the
    targets no MUST check of which passed or failed (then the verdict is NOTHING CHECKED, code 2)."""
    probes = plan.probes
    if plan.replay is not None and not plan.early and not report.interrupted:
        probes = plan.replay()  # the replay went on beside the scenarios
        if plan.selected is not None:
            probes = [p for p in probes if plan.selected.matches(p.scenario, p.family)]
    probes = apply_gaps(probes, plan.gaps)
    probe_spec_error = any(r.invariant == "provider.probe-valid" for r in probes)
    probe_failed = any(r.level == "MUST" and r.outcome in ("fail", "error", "xpass") for r in probes)
    code = report.exit_code or (2 if probe_spec_error else 1 if probe_failed else 0)
    unchecked = [t for t in report.targets
                 if plan.scenarios and not must_checked(r for r in report.results if r.target == t)]
    if code == 0 and unchecked:
        code, report.verdict = 2, "NOTHING CHECKED"
    report.probes, report.code = probes, code
    return code, unchecked


def _show(args: argparse.Namespace, report: RunReport, format_note: str) -> None:
    """Prints the run's tables (on stderr when the JSON document goes to stdout), the note of what a
    format skipped, and what the run lost to a busy machine."""
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


def cmd_run(args: argparse.Namespace) -> int:
    """Runs the scenarios on every target (and replays the recordings when asked); returns the exit code.

    A run that checks nothing (no scenario selected, or a target with no MUST check that passed or
    failed) is a usage error, exit 2, never CONFORMS.
    """
    _check_options(args)
    options = RunOptions(time_limit=args.time_limit, idempotence=not args.no_idempotence,
                         in_process=args.in_process, jobs=args.jobs, memory_limit=args.memory_limit,
                         maxfail=args.maxfail, prefix_check=args.models == "current")
    plan = _plan(args, options)
    progress, done = progress_callback(not args.no_progress)
    try:
        report = run(plan.targets, plan.scenarios, gaps=plan.gaps, options=options, spec_errors=plan.loaded.errors,
                     progress=progress, keep_on_interrupt=True)
    finally:
        done()
    code, unchecked = _judged(plan, report)
    _show(args, report, plan.format_note)
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

        with redirect_stdout(sys.stderr if args.json == "-" else sys.stdout):  # stdout holds only the JSON document
            code = max(code, fuzz_all(plan.named, args.generated, args.seed, args.time_limit, fmt=args.format,
                                        in_process=args.in_process))
    if report.verdict:
        raise UsageError(f"no MUST check of {', '.join(unchecked)} passed or failed: every one was skipped, "
                         "not run or a known gap (see --expectations and -k)")
    return code
