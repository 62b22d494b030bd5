"""Wall time of the project's own test command, the one README.md gives (goals: 75 s wall and
120 CPU-s on an otherwise idle two-core machine), and of the quick loop CONTRIBUTING.md gives
(goal: 25 s wall).

Reads the command from the README's second line of commands (what follows its last ``&&``) and the
quick loop from CONTRIBUTING.md (its line that deselects ``slow``), runs each from the repository
root, and prints the wall seconds, the CPU seconds of it and every process
it started (pytest-xdist's workers included), the cores, the load average before and after, and
pytest's last line; and beside each figure its ratio to the anchor ``python -c "import anthropic"``
timed in the same run (median of 5 before and 5 after the tests), which says how fast the machine
was at the time (a figure that grows with the anchor is the machine's, not the suite's).

Run: ``python benchmarks/bench_tests.py`` (``--repeat 2`` for the best of two).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL = 75.0
CPU_GOAL = 120.0
QUICK_GOAL = 25.0
ANCHOR = [sys.executable, "-c", "import anthropic"]


def test_command() -> list[str]:
    """Returns the README's test command as arguments, with this interpreter for ``python``;
    raises ``SystemExit`` when the README gives none."""
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if "pytest" in line and "&&" in line:
            words = shlex.split(line.split("&&")[-1])
            return [sys.executable if w == "python" else w for w in words]
    raise SystemExit("README.md gives no test command")


def quick_command() -> list[str]:
    """Returns CONTRIBUTING.md's quick loop as arguments, with this interpreter for ``python``;
    raises ``SystemExit`` when it gives none."""
    for line in (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("python -m pytest") and "not slow" in line:
            return [sys.executable if w == "python" else w for w in shlex.split(line)]
    raise SystemExit("CONTRIBUTING.md gives no quick loop")


def timed(command: list[str]) -> tuple[float, float, str]:
    """Returns the wall seconds, the CPU seconds of the command and its children, and the last
    line it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = next((line for line in reversed(done.stdout.splitlines()) if line.strip()), f"exit {done.returncode}")
    return wall, cpu, re.sub(r"=+", "", last).strip()


def anchor(times: int = 5) -> list[tuple[float, float]]:
    """Returns the wall and CPU seconds of ``times`` runs of the anchor import."""
    return [timed(ANCHOR)[:2] for _ in range(times)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    args = parser.parse_args()
    commands = [(test_command(), GOAL, f"{CPU_GOAL:.0f}"), (quick_command(), QUICK_GOAL, "")]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    anchors = anchor()
    runs = [[timed(command) for _ in range(args.repeat)] for command, _, _ in commands]
    anchors += anchor()
    anchor_wall = statistics.median(w for w, _ in anchors)
    anchor_cpu = statistics.median(c for _, c in anchors)
    shown = [shlex.join("python" if w == sys.executable else w for w in command) for command, _, _ in commands]
    width = max(len(line) for line in shown)
    print(f"{'command':<{width}} {'wall s':>7} {'goal s':>7} {'/anchor':>8} {'cpu s':>7} {'goal s':>7} {'/anchor':>8}  result")
    label = 'python -c "import anthropic"'
    print(f"{label:<{width}} {anchor_wall:>7.2f} {'':>7} {'':>8} {anchor_cpu:>7.2f}")
    for (_, goal, cpu_goal), done, line in zip(commands, runs, shown, strict=True):
        wall, cpu, last = min(done)
        print(f"{line:<{width}} {wall:>7.1f} {goal:>7.0f} {wall / anchor_wall:>8.0f} {cpu:>7.1f} {cpu_goal:>7} "
              f"{cpu / anchor_cpu:>8.0f}  {last}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
