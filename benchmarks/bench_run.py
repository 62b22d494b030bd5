"""The main job, ``conformance run``, side by side with the SDK imports it is measured against.

Each round runs, one after the other from the repository root: the two anchors
  python -c "import anthropic"                  the import any user of the Anthropic SDK pays
  python -c "import anthropic, openai"          both SDKs, as the default run replays both
and the commands
  conformance run --no-provider                 the shipped scenarios on the reference; goal <= 0.5x the first anchor
  conformance run                               plus both providers' replay; goal <= 1.2x the second anchor
  conformance run --no-provider --in-process    the same as the first (the reference runs in process anyway)
  conformance run --no-provider --jobs 1 --target tests.zoo.correct:noop
                                                a user's target, called in worker processes
and prints the median over ``--repeat`` rounds (after one warm-up round, which also fills the spec
cache as any first run does) of the wall seconds and of the CPU seconds (the command and every
process it started), each beside its ratio to its anchor in the same rounds. Wall ratios are the
goals, on an otherwise idle two-core machine; CPU ratios move less when the machine is busy.

Run: ``python benchmarks/bench_run.py`` (``--repeat 5``, the default).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = {
    'python -c "import anthropic"': [sys.executable, "-c", "import anthropic"],
    'python -c "import anthropic, openai"': [sys.executable, "-c", "import anthropic, openai"],
}
CONFORMANCE = [sys.executable, "-m", "conformance"]
COMMANDS = {  # label -> (arguments, its anchor, the goal as a ratio to it)
    "conformance run --no-provider": (["run", "--no-provider"], 'python -c "import anthropic"', 0.5),
    "conformance run": (["run"], 'python -c "import anthropic, openai"', 1.2),
    "conformance run --no-provider --in-process": (["run", "--no-provider", "--in-process"],
                                                   'python -c "import anthropic"', None),
    "conformance run --no-provider --jobs 1 (a user's target)": (
        ["run", "--no-provider", "--jobs", "1", "--target", "tests.zoo.correct:noop"], 'python -c "import anthropic"',
        None),
}


def timed(command: list[str]) -> tuple[float, float, int]:
    """Returns the wall seconds, the CPU seconds (the command and every process it started) and
    the exit code of one run of ``command`` from the repository root."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*command, *(["--no-progress"] if command[:3] == CONFORMANCE else [])], cwd=ROOT,
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def rounds(repeat: int) -> dict[str, list[tuple[float, float, int]]]:
    """Returns each anchor's and command's timings, one per round, after a warm-up round."""
    everything = {**ANCHORS, **{label: [*CONFORMANCE, *args] for label, (args, _, _) in COMMANDS.items()}}
    for command in everything.values():  # the warm-up: caches of the OS and of the specs filled
        timed(command)
    found: dict[str, list[tuple[float, float, int]]] = {label: [] for label in everything}
    for _ in range(repeat):
        for label, command in everything.items():
            found[label].append(timed(command))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds after the warm-up (the median is shown)")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cores} cores, load average {os.getloadavg()[0]:.1f} at start; medians of {args.repeat} rounds")
    found = rounds(args.repeat)
    wall = {label: statistics.median(t[0] for t in times) for label, times in found.items()}
    cpu = {label: statistics.median(t[1] for t in times) for label, times in found.items()}
    print(f"{'':<58} {'wall s':>7} {'ratio':>6} {'goal':>6} {'cpu s':>6} {'ratio':>6}  exit")
    for label in ANCHORS:
        print(f"{label:<58} {wall[label]:>7.2f} {'':>6} {'':>6} {cpu[label]:>6.2f} {'':>6}")
    for label, (_, anchor, goal) in COMMANDS.items():
        codes = sorted({t[2] for t in found[label]})
        goal_text = f"<={goal:g}" if goal is not None else ""
        print(f"{label:<58} {wall[label]:>7.2f} {wall[label] / wall[anchor]:>6.2f} {goal_text:>6} "
              f"{cpu[label]:>6.2f} {cpu[label] / cpu[anchor]:>6.2f}  {','.join(map(str, codes))}")
    print(f"(ratios to {', '.join(ANCHORS)} as the goals say); load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
