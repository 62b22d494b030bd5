"""Fuzzing speed, the reference on many generated histories, and the strategy's truth against the loader.

1. Speed: ``run_fuzz`` on a fast target (a compactor that returns its input) for N examples, called
   in a worker process (the default) and in this process (``--in-process``); prints examples per
   second of wall time and of CPU time (this process and, for the worker, the worker's too: the
   two take turns, so their sum is the work of one core), against the target of 200 per second.
2. The reference: M generated histories (undecidable shapes included), every one checked on
   ``conformance_reference:compact`` (MUST invariants); prints how many fail, grouped by the invariants they
   break and the features they all share, and the first one shrunk, as a scenario file.
3. Truth against the loader: M decidable histories are written as scenario files and loaded back
   with the spec loader, whose semantic checks (``live_start`` in range, declared unanswered ids
   really unanswered) must accept every one, with the history, truth and params unchanged.

Run: ``python benchmarks/bench_fuzz.py`` (``--examples 2000 --reference 10000``; ``--check`` exits 1
below target or on any disagreement).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402 - after the sys.path line above

from conformance import from_callable, load_file  # noqa: E402 - after the sys.path line above
from conformance.fuzz import FuzzOptions, failing_checks, run_fuzz  # noqa: E402 - after the sys.path line above
from conformance.engine.spec_writer import dumps  # noqa: E402 - after the sys.path line above
from conformance.fuzz.strategies import GeneratedScenario, histories  # noqa: E402 - after the sys.path line above

TARGET = 200.0


def returns_input(history: list) -> list:
    """The fast target: returns its input as a new list."""
    return list(history)


def _worker_cpu() -> float:
    """Returns the CPU seconds used so far by the worker processes of this process's pools."""
    import os

    from conformance.engine import worker

    total = 0.0
    for pid in worker.live_worker_pids():
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def speed(examples: int, in_process: bool = False) -> tuple[float, float]:
    """Returns (examples per CPU second, examples per wall second) fuzzing the fast target; the CPU
    time counts this process and the worker's."""
    options = FuzzOptions(examples=examples, seed=0, database=None, in_process=in_process)
    used: list[float] = []
    progress = None if in_process else (lambda done: used.append(_worker_cpu()))
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_fuzz(from_callable(returns_input, "returns_input"), replace(options, progress=progress))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if not result.passed:
        raise SystemExit(f"the fast target failed: {[r.invariant for r in result.failures]}")
    return examples / (cpu + (used[-1] if used else 0.0)), examples / wall


def reference_census(examples: int) -> tuple[int, str]:
    """Returns (failing histories, a report) of the reference on ``examples`` generated histories:
    every example is checked (no stop at the first failure), failures are grouped by the invariants
    they break with the features all of them share, and the first one is shrunk."""
    import conformance_reference as reference

    target = from_callable(reference.compact, "conformance_reference:compact")
    options = FuzzOptions(database=None)
    groups: dict[tuple[str, ...], list[frozenset[str]]] = {}

    @seed(0)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate])
    @given(histories(undecidable=True))
    def census(scenario: GeneratedScenario) -> None:
        failures = failing_checks(target, scenario, options)
        if failures:
            groups.setdefault(tuple(sorted({r.invariant for r in failures})), []).append(frozenset(scenario.features))

    census()
    failing = sum(len(v) for v in groups.values())
    lines = [f"conformance_reference:compact on {examples} generated histories (seed 0): {failing} break a MUST invariant"]
    for invariants, features in sorted(groups.items()):
        shared = sorted(frozenset.intersection(*features))
        lines.append(f"  {len(features)} x {', '.join(invariants)}; features all of them have: {', '.join(shared)}")
    if failing:
        result = run_fuzz(target, FuzzOptions(examples=examples, seed=0, database=None))
        assert result.scenario is not None
        lines.append(f"the first, shrunk to {len(result.scenario.history)} messages:\n{dumps([result.scenario])}")
    return failing, "\n".join(lines)


def loader_disagreements(examples: int) -> tuple[int, int]:
    """Returns (histories checked, disagreements) writing decidable histories and loading them back."""
    seen, bad = 0, 0

    @seed(0)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(histories())
    def check(scenario: GeneratedScenario) -> None:
        nonlocal seen, bad
        seen += 1
        loaded = load_file("generated.yaml", dumps([scenario]))
        same = len(loaded.scenarios) == 1 and (loaded.scenarios[0].history, loaded.scenarios[0].truth,
                                              loaded.scenarios[0].params) == \
            (scenario.history, scenario.truth, scenario.params)
        if loaded.errors or not same:
            bad += 1
            print(f"disagreement on {scenario.id}: {[str(e) for e in loaded.errors]}")

    check()
    return seen, bad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=2000, help="examples for the speed measure")
    parser.add_argument("--reference", type=int, default=10000, help="examples for the reference and the loader")
    parser.add_argument("--check", action="store_true", help="exit 1 below target or on any disagreement")
    args = parser.parse_args()
    per_cpu, per_wall = speed(args.examples)
    print(f"fast target, {args.examples} examples in a worker process: {per_cpu:.0f} examples/s of CPU time, "
          f"{per_wall:.0f}/s wall (target {TARGET:.0f}/s on one core: {per_cpu / TARGET:.2f}x)")
    in_cpu, in_wall = speed(args.examples, in_process=True)
    print(f"fast target, {args.examples} examples in this process (--in-process): {in_cpu:.0f} examples/s of "
          f"CPU time, {in_wall:.0f}/s wall")
    failing, census = reference_census(args.reference)
    print(census)
    seen, bad = loader_disagreements(args.reference)
    print(f"strategy truth vs spec loader: {seen} decidable histories written and loaded back, {bad} disagreements")
    if args.check and (per_cpu < TARGET or bad or failing):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
