"""Runs a command while a CPU-burning process keeps every core busy, as on a shared CI runner.

    python benchmarks/busy.py -- conformance matrix --check
    python benchmarks/busy.py --times 3 -- conformance egress-matrix --check
    python benchmarks/busy.py --times 3 -- python -m pytest -q -n auto

One burner per core spins until the command ends, or at the latest ``--seconds`` after it started
(and stops by itself should this script die: each burner watches its parent). The command runs
``--times`` times in a row; each run's exit code, wall time and CPU time are printed, and this
script exits with the first nonzero code (0 when every run passed).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

BURN = """
import os, sys, time
deadline, parent = float(sys.argv[1]), int(sys.argv[2])
while time.time() < deadline and os.getppid() == parent:
    for _ in range(200_000):
        pass
"""


def start_burners(count: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """Returns ``count`` started burner processes, each ending by itself after ``seconds``."""
    deadline = time.time() + seconds
    return [subprocess.Popen([sys.executable, "-c", BURN, str(deadline), str(os.getpid())],
                             stdin=subprocess.DEVNULL) for _ in range(count)]


def stop(burners: list[subprocess.Popen[bytes]]) -> None:
    """Ends the burners this script started and waits for each."""
    for burner in burners:
        if burner.poll() is None:
            burner.terminate()
    for burner in burners:
        burner.wait()


def children_cpu() -> float:
    """Returns the CPU seconds of the waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    """Runs the command under load; returns the first nonzero exit code of its runs, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                        else os.cpu_count() or 1, help="burners to start (default: one per core)")
    parser.add_argument("--seconds", type=float, default=1800.0,
                        help="longest time the burners run (default 1800)")
    parser.add_argument("--times", type=int, default=1, help="runs of the command in a row (default 1)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    burners = start_burners(args.cores, args.seconds)
    first_failure = 0
    try:
        for run in range(1, args.times + 1):
            before, started = children_cpu(), time.perf_counter()
            code = subprocess.run(command, check=False).returncode
            wall, cpu = time.perf_counter() - started, children_cpu() - before
            alive = sum(1 for b in burners if b.poll() is None)
            print(f"busy: run {run} of {args.times}: exit {code} in {wall:.1f} s wall, {cpu:.1f} CPU-s, "
                  f"with {alive} of {len(burners)} burners still running", file=sys.stderr)
            if code and not first_failure:
                first_failure = code
    finally:
        stop(burners)
    return first_failure


if __name__ == "__main__":
    sys.exit(main())
