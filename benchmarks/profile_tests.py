"""Where the test loop's CPU goes: per test file, in the test process and in every other process.

Runs the README's test command without pytest-xdist (one test process, so that each test's cost
is its own) with this module loaded as a pytest plugin. For each test it records the CPU seconds
of the test process (``time.process_time``: its threads included) and, on Linux, the CPU seconds
the whole machine spent meanwhile (``/proc/stat``): the difference is what the processes the test
started spent (worker processes, commands run as subprocesses, servers, a browser). A session
fixture (the SDKs' import, the shipped scenarios) is charged to the first test that uses it. Run it
on an otherwise idle machine, since the machine's figure counts every process on it. The CPU
seconds of the cyclic garbage collector's passes in the test process are summed apart
(``gc.callbacks``, the CPU time of the thread each pass ran in).

Prints the totals, the collector's share, the test files by CPU with the two parts, and the costliest tests.

Run: ``python benchmarks/profile_tests.py`` (``--top 40`` for more rows, ``-- ARGS`` for pytest's own
arguments, such as a folder of tests).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bench_tests  # this folder is on the path, run as a script or loaded as a plugin

ROOT = Path(__file__).resolve().parents[1]
_OUT = "CONFORMANCE_PROFILE_TESTS_OUT"
_STAT = Path("/proc/stat")
_ROWS: list[tuple[str, float, float]] = []
_GC = {"seconds": [0.0, 0.0, 0.0], "passes": [0, 0, 0]}  # by generation
_GC_START: list[float] = []


def _timed_pass(phase: str, info: dict[str, int]) -> None:
    """Adds the CPU seconds of one pass of the garbage collector to ``_GC`` (a ``gc.callbacks`` entry)."""
    if phase == "start":
        _GC_START[:] = [time.thread_time()]
    elif _GC_START:
        generation = info["generation"]
        _GC["seconds"][generation] += time.thread_time() - _GC_START[0]
        _GC["passes"][generation] += 1


def pytest_configure(config: pytest.Config) -> None:
    """Starts timing the garbage collector's passes in the test process."""
    gc.callbacks.append(_timed_pass)


def machine_cpu() -> float | None:
    """Returns the CPU seconds every core has spent busy since boot, or None off Linux."""
    if not _STAT.exists():
        return None
    ticks = [int(t) for t in _STAT.read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Records the CPU seconds of one test (setup, call and teardown) in this process and on the machine."""
    machine, own = machine_cpu(), time.process_time()
    try:
        return (yield)
    finally:
        after = machine_cpu()
        spent = time.process_time() - own
        _ROWS.append((item.nodeid, spent, after - machine if machine is not None and after is not None else spent))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Writes the rows to the file the benchmark names, when it runs this plugin."""
    out = os.environ.get(_OUT)
    if out:
        Path(out).write_text(json.dumps({"rows": _ROWS, "gc": _GC}), encoding="utf-8")


def test_command() -> list[str]:
    """Returns the README's test command (``bench_tests.test_command``) without pytest-xdist's ``-n``;
    raises ``SystemExit`` when the README gives none."""
    words = bench_tests.test_command()
    if "-n" in words:  # pytest-xdist's workers would share the test process's part
        at = words.index("-n")
        del words[at:at + 2]
    return words


def _collector_line(collector: dict[str, list[Any]]) -> str:
    """Returns the line of the garbage collector's CPU seconds in the test process, by generation."""
    parts = [f"{passes} of generation {generation}: {seconds:.1f} s" for generation, (passes, seconds)
             in enumerate(zip(collector["passes"], collector["seconds"], strict=True))]
    return f"the garbage collector's passes in the test process: {sum(collector['seconds']):.1f} CPU-s ({', '.join(parts)})"


def summary(rows: list[tuple[str, float, float]], top: int, collector: dict[str, list[Any]]) -> list[str]:
    """Returns the printed lines: totals, the garbage collector's part (``collector``: seconds and
    passes by generation), then the ``top`` files and tests by CPU seconds."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for node, own, machine in rows:
        entry = files[node.split("::", 1)[0]]
        entry[0] += own
        entry[1] += max(machine - own, 0.0)
        entry[2] += 1
    own_all = sum(r[1] for r in rows)
    other_all = sum(max(r[2] - r[1], 0.0) for r in rows)
    lines = [f"{len(rows)} tests: {own_all + other_all:.1f} CPU-s, {own_all:.1f} in the test process, "
             f"{other_all:.1f} in the processes the tests started",
             _collector_line(collector),
             "", f"{'cpu s':>7} {'test':>7} {'others':>7} {'tests':>5}  file"]
    ranked = sorted(files.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for name, (own, other, count) in ranked[:top]:
        lines.append(f"{own + other:>7.1f} {own:>7.1f} {other:>7.1f} {int(count):>5}  {name}")
    rest = ranked[top:]
    if rest:
        lines.append(f"{sum(v[0] + v[1] for _, v in rest):>7.1f} {'':>7} {'':>7} "
                     f"{sum(int(v[2]) for _, v in rest):>5}  the other {len(rest)} files")
    lines += ["", f"{'cpu s':>7} {'test':>7} {'others':>7}  test"]
    for node, own, machine in sorted(rows, key=lambda r: -max(r[1], r[2]))[:top]:
        lines.append(f"{max(own, machine):>7.2f} {own:>7.2f} {max(machine - own, 0.0):>7.2f}  {node}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=25, help="rows of files and of tests (default 25)")
    parser.add_argument("pytest_args", nargs="*", help="further arguments for pytest, after --")
    args = parser.parse_args()
    command = [*test_command(), "-p", "no:xdist", "-p", "profile_tests", *args.pytest_args]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rows.json"
        os.environ[_OUT] = str(out)  # the command inherits both
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                                 os.environ.get("PYTHONPATH")]))
        wall, cpu, last = bench_tests.timed(command)
        if not out.exists():
            raise SystemExit(f"the tests wrote no profile: {last}")
        written: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    shown = " ".join("python" if w == sys.executable else w for w in command)
    print(f"{shown}\n{os.cpu_count()} cores; {wall:.0f} s wall, {cpu:.1f} CPU-s of the command and the processes "
          f"it waited for; {last}")
    rows = [(n, float(o), float(m)) for n, o, m in written["rows"]]
    print("\n".join(summary(rows, args.top, written["gc"])))


if __name__ == "__main__":
    main()
