"""How long a run of the shipped scenarios takes against targets that attack the harness.

Each hostile target of the test zoo (one that hangs, one that answers three calls and then hangs in
every fresh worker, one that dies every other call, ``os._exit``, a segfault, a hang holding the
interpreter lock) runs over every shipped scenario at ``--time-limit 2``; prints the wall seconds of
each run, how many scenarios ran before the target was given up, and the exit code, beside a
correct target for comparison. The run itself, not the start of the command, is timed.

Run: ``python benchmarks/bench_hostile.py`` (``--time-limit S``, ``--jobs N``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance import RunOptions, load, resolve, run  # noqa: E402 - after the sys.path line above
from conformance._paths import shipped  # noqa: E402 - after the sys.path line above

TARGETS = ["tests.zoo.correct:noop", "tests.zoo.hostile:sleeps", "tests.zoo.hostile:answers_three_then_hangs",
           "tests.zoo.hostile:alternates_hang_and_answer", "tests.zoo.hostile:dies_every_other_call",
           "tests.zoo.hostile:exits", "tests.zoo.hostile:segfaults", "tests.zoo.hostile:hangs_holding_the_gil"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--time-limit", type=float, default=2.0, help="per-call time limit (default 2 s)")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    args = parser.parse_args()
    scenarios = load([shipped("specs")]).scenarios
    print(f"{len(scenarios)} shipped scenarios, --time-limit {args.time_limit:g}")
    for name in TARGETS:
        started = time.perf_counter()
        report = run([resolve(name)], scenarios, options=RunOptions(time_limit=args.time_limit, jobs=args.jobs))
        seconds = time.perf_counter() - started
        given_up = {r.scenario for r in report.results if r.details.get("given_up")}
        print(f"  {name:<48} {seconds:6.1f} s  {len(scenarios) - len(given_up):>4} scenarios ran  "
              f"exit {report.exit_code}")


if __name__ == "__main__":
    main()
