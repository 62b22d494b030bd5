"""Wall time of the main job, ``conformance run``, as run from the repository root.

Prints the best wall time of ``--repeat`` runs with the CPU seconds of the main process (its
workers and the replay process aside), and the machine's load average (other work on the machine
stretches wall times; the goals are for an otherwise idle two-core machine), for:
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
import tempfile
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


def timed_run(args: list[str]) -> tuple[float, float, str]:
    """Returns the wall seconds, the CPU seconds of the main process (not its workers) and the last
    line of one run of ``conformance args``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([sys.executable, "-m", "conformance", *args, "--no-progress"], cwd=ROOT,
                                 env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        out.seek(0)
        lines = out.read().strip().splitlines()
    child.returncode = os.waitstatus_to_exitcode(status)
    tail = lines[-1] if lines else ""
    return wall, usage.ru_utime + usage.ru_stime, f"exit {child.returncode}: {tail}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'command':<44} {'wall s':>7} {'goal s':>7} {'main cpu s':>10}  result")
    for label, command in COMMANDS.items():
        wall, cpu, tail = min(timed_run(command) for _ in range(args.repeat))
        goal = f"{GOALS[label]:.1f}" if label in GOALS else ""
        print(f"{label:<44} {wall:>7.2f} {goal:>7} {cpu:>10.2f}  {tail}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
