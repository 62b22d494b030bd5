"""Wall time of the main job, ``conformance run``, as run from the repository root.

Prints the best wall time of ``--repeat`` runs, and the machine's load average (other work on the
machine stretches wall times; the goals are for an otherwise idle two-core machine), for:
  conformance run --no-provider                 the shipped scenarios on the reference (goal 1.2 s)
  conformance run                               plus the replay of the shipped recordings (goal 3.5 s)
  conformance run --no-provider --in-process    the same without worker processes
  conformance run --no-provider --jobs 1        one worker process

Run: ``python benchmarks/bench_run.py`` (``--repeat 5``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {
    "conformance run --no-provider": ["run", "--no-provider"],
    "conformance run": ["run"],
    "conformance run --no-provider --in-process": ["run", "--no-provider", "--in-process"],
    "conformance run --no-provider --jobs 1": ["run", "--no-provider", "--jobs", "1"],
}
GOALS = {"conformance run --no-provider": 1.2, "conformance run": 3.5}


def timed_run(args: list[str]) -> tuple[float, str]:
    """Returns the wall seconds and the last line of one run of ``conformance args``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
    return wall, f"exit {done.returncode}: {tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'command':<44} {'wall s':>7} {'goal s':>7}  result")
    for label, command in COMMANDS.items():
        wall, tail = min(timed_run(command) for _ in range(args.repeat))
        goal = f"{GOALS[label]:.1f}" if label in GOALS else ""
        print(f"{label:<44} {wall:>7.2f} {goal:>7}  {tail}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
