"""How ``conformance analyze`` scales: throughput, peak memory and the ratio to the JSON-parse floor.

Writes JSON-lines logs of 10^3, 10^4, ... interactions drawn from the real recordings of
``tests/provider/real`` (their interactions sampled with replacement, so the body sizes follow the
real distribution; every one of them uses context management), the same with nine in ten calls
stripped of it ("mixed", as most traffic is), side by side, logs of large bodies (a real compaction
request's history grown to about 200 KB, as gateways log it), and a gateway's log ("gateway": each
real recording a conversation, held by many users at once with texts and ids of their own, their
calls interleaved). For each size it prints the bytes, the time of the floor (every line through
``json.loads``), analyze on one core and on all cores (interactions/s, MB/s; per core from CPU
seconds, which other work on the machine does not stretch, counted once the judges are imported:
start-up has a line of its own), the ratio to the floor, and analyze's peak memory (each run in its
own process). Then the guard's overhead per interaction next to the SDK's own time.

    python benchmarks/bench_analyze.py              # 10^3 to 10^5 interactions
    python benchmarks/bench_analyze.py --max 1000   # a quick run
    python benchmarks/bench_analyze.py --max 1000000
    python benchmarks/bench_analyze.py --max 1000 --keep logs/   # keep the logs, e.g. to profile analyze on them
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REAL = ROOT / "tests" / "provider" / "real"


def _line(url: str, request: Any, response: Any, status: int = 200) -> str:
    return json.dumps({"request": {"method": "POST", "url": url, "json": request},
                       "response": {"status": status, "json": response}})


def real_lines() -> list[str]:
    """Returns every real recorded interaction as a JSON line (the pool the logs are drawn from)."""
    from conformance.provider.recordings import read_recording

    return [_line(i.url, i.request, i.response, i.status or 200)
            for path in sorted(REAL.rglob("*.yaml")) for i in read_recording(path)
            if i.error is None and isinstance(i.request, dict) and isinstance(i.response, dict)]


def _plain(request: dict[str, Any]) -> dict[str, Any]:
    """Returns the request without its context management: no edits, compaction, truncation or chain."""
    body = {k: v for k, v in request.items()
            if k not in ("context_management", "compaction", "truncation", "previous_response_id")}
    if isinstance(body.get("input"), list):
        body["input"] = [i for i in body["input"] if not (isinstance(i, dict) and "compaction" in str(i.get("type")))]
    if isinstance(body.get("messages"), list):
        body["messages"] = [{**m, "content": [b for b in m["content"] if not (isinstance(b, dict) and
                                                                            b.get("type") == "compaction")]}
                            if isinstance(m, dict) and isinstance(m.get("content"), list) else m
                            for m in body["messages"]]
    return body


def mixed_lines(managed: int = 1, plain: int = 9) -> list[str]:
    """Returns the real interactions, each ``managed`` times as recorded and ``plain`` times without
    context management: traffic in which one call in ten uses it."""
    from conformance.provider.recordings import read_recording

    found = []
    for path in sorted(REAL.rglob("*.yaml")):
        for i in read_recording(path):
            if i.error is None and isinstance(i.request, dict) and isinstance(i.response, dict):
                found += [_line(i.url, i.request, i.response, i.status or 200)] * managed
                found += [_line(i.url, _plain(i.request), i.response, i.status or 200)] * plain
    return found


def large_lines(target: int = 200_000) -> list[str]:
    """Returns real Messages interactions whose histories are grown, turn by settled turn, to about ``target`` bytes."""
    from conformance.provider.recordings import read_recording

    found = []
    for path in sorted((REAL / "anthropic").glob("*.yaml")):
        for item in read_recording(path):
            if item.error or not isinstance(item.request, dict) or not isinstance(item.response, dict):
                continue
            request = dict(item.request)
            messages = list(request.get("messages") or [])
            filler: list[dict[str, Any]] = []
            n = 0
            while len(json.dumps(filler)) < target:
                filler += [{"role": "user", "content": f"earlier request {n}: " + "lorem ipsum " * 40},
                           {"role": "assistant", "content": [{"type": "text", "text": "done. " * 60}]}]
                n += 1
            request["messages"] = filler + messages
            found.append(_line(item.url, request, item.response, item.status or 200))
    return found


def write_log(path: Path, pool: list[str], count: int, seed: int = 7) -> int:
    """Writes ``count`` interactions sampled from ``pool``; returns the file's size in bytes."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for _ in range(count):
            out.write(rng.choice(pool) + "\n")
    return path.stat().st_size


# The fields whose values tell one conversation from another: what a client or the service writes
# (texts, prompts, tool arguments and outputs, ids, signatures, compaction summaries), never a type,
# role, model or setting (``reasoning.summary`` is a setting: summary texts are ``text`` parts)
_OWN = frozenset({"text", "content", "system", "instructions", "input", "output", "arguments", "id",
                  "previous_response_id", "signature", "data", "thinking", "encrypted_content", "tool_use_id",
                  "call_id"})

Call = tuple[str, Any, Any, int]  # a recorded call: url, request, response, status


def _as_conversation(value: Any, tag: str, key: str = "") -> Any:
    """Returns ``value`` with ``tag`` appended to each non-empty string held under an ``_OWN`` key
    (directly or in a list there; a mapping's own keys decide below it): the same conversation
    held by another user, whose texts and ids are its own."""
    if isinstance(value, dict):
        return {k: _as_conversation(v, tag, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_conversation(v, tag, key) for v in value]
    return value + tag if isinstance(value, str) and key in _OWN and value else value


def conversations() -> list[list[Call]]:
    """Returns each real recording's interactions in order, ``(url, request, response, status)``:
    the conversations a gateway log is made of."""
    from conformance.provider.recordings import read_recording

    found = []
    for path in sorted(REAL.rglob("*.yaml")):
        calls = [(i.url, i.request, i.response, i.status or 200) for i in read_recording(path)
                 if i.error is None and isinstance(i.request, dict) and isinstance(i.response, dict)]
        if calls:
            found.append(calls)
    return found


def write_gateway_log(path: Path, templates: list[list[Call]], count: int,
                      at_once: int = 64, seed: int = 7) -> int:
    """Writes ``count`` interactions as a gateway logs them: ``at_once`` conversations in progress,
    each a real recording's calls in order with texts and ids of its own (``_as_conversation``),
    their calls interleaved at random and a new conversation opened as one ends; returns the
    file's size in bytes."""
    rng = random.Random(seed)
    opened = 0
    live: list[list[str]] = []
    with path.open("w", encoding="utf-8") as out:
        for _ in range(count):
            while len(live) < at_once:
                tag = f" #{opened}"
                live.append([_line(url, _as_conversation(request, tag), _as_conversation(response, tag), status)
                             for url, request, response, status in rng.choice(templates)][::-1])
                opened += 1
            calls = live[rng.randrange(len(live))]
            out.write(calls.pop() + "\n")
            if not calls:  # (its last call written: the conversation ends)
                live.remove(calls)
    return path.stat().st_size


CHILD = r"""
import json, resource, sys, time
mode, path, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
from pathlib import Path
from conformance.provider.analyze.run import FileEnd, analyze_stream
if mode != "floor":  # the judges' modules are imported before the clock starts, as analyze's are:
    from conformance.provider.analyze.registry import judges  # start-up is the start-up line's
    judges()
started = time.perf_counter()
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu0 = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime
n = 0
if mode == "floor":
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                json.loads(line)
                n += 1
else:
    for event in analyze_stream([Path(path)], jobs=jobs):
        if not isinstance(event, FileEnd):
            n += 1
seconds = time.perf_counter() - started
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime - cpu0
print(json.dumps({"seconds": seconds, "cpu": cpu, "interactions": n, "peak_kb": max(me.ru_maxrss, workers.ru_maxrss)}))
"""


_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _child(mode: str, path: Path, jobs: int) -> list[str]:
    """Returns the command line of one measured run (``CHILD``) in a fresh process."""
    return [sys.executable, "-c", CHILD, mode, str(path), str(jobs)]


def measure(mode: str, path: Path, jobs: int = 1) -> dict[str, Any]:
    """Returns seconds, interactions and peak memory (KB) of one run in a fresh process."""
    out = subprocess.run(_child(mode, path, jobs), capture_output=True, text=True, env=_ENV, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def side_by_side(path: Path, cores: int) -> float:
    """Returns the wall seconds of the slowest of ``cores`` runs of one core's analyze on ``path``
    started together, each in a process of its own: what the machine gives work that shares
    nothing when every core is busy (a core's neighbour slows it, on a virtual machine's
    hyperthreads above all)."""
    runs = [subprocess.Popen(_child("analyze", path, 1), stdout=subprocess.PIPE, text=True, env=_ENV)
            for _ in range(cores)]
    return max(json.loads(run.communicate()[0].strip().splitlines()[-1])["seconds"] for run in runs)


def best_of(path: Path, repeat: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Returns the floor's and one core's analyze run on ``path`` with the least CPU seconds of
    ``repeat`` each, run in turn (a busy moment of the machine only ever adds time), and one core's
    run with the least wall seconds (what the speed-up of all cores is measured against)."""
    floors, ones = [], []
    for _ in range(max(1, repeat)):
        floors.append(measure("floor", path))
        ones.append(measure("analyze", path, 1))
    return (min(floors, key=lambda run: run["cpu"]), min(ones, key=lambda run: run["cpu"]),
            min(ones, key=lambda run: run["seconds"]))


def parsers(pool: list[str], rounds: int = 3) -> list[str]:
    """Returns lines comparing the JSON parsers on the pool's lines (MB/s, best of ``rounds``)."""
    data = [line.encode() for line in pool] * max(1, 20_000_000 // sum(len(line) for line in pool))
    size = sum(len(d) for d in data)
    candidates: list[tuple[str, Any]] = [("json.loads", json.loads)]
    for name, load in (("orjson.loads", "orjson:loads"), ("msgspec.json.decode", "msgspec.json:decode"),
                       ("simdjson.loads", "simdjson:loads")):
        module, attr = load.split(":")
        try:
            candidates.append((name, getattr(__import__(module, fromlist=[attr]), attr)))
        except ImportError:
            continue
    lines, floor = [], 0.0
    for name, load in candidates:
        best = min(_timed(load, data) for _ in range(rounds))
        floor = floor or best
        lines.append(f"  {name:<22} {size / 1e6 / best:8.1f} MB/s  {floor / best:5.2f} x json.loads")
    return lines


def _timed(load: Any, data: list[bytes]) -> float:
    started = time.perf_counter()
    for d in data:
        load(d)
    return time.perf_counter() - started


def startup(rounds: int = 5) -> list[str]:
    """Returns the lines comparing the start-up of ``conformance analyze`` on one small recording with
    ``python -c "import anthropic"`` (wall seconds, best of ``rounds`` each, interleaved)."""
    small = REAL / "anthropic" / "test_anthropic_memory_tool.yaml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    commands = {"conformance analyze (one small file)": [sys.executable, "-m", "conformance", "analyze", str(small)],
                'python -c "import anthropic"': [sys.executable, "-c", "import anthropic"]}
    best = {name: float("inf") for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, env=env, check=False)
            best[name] = min(best[name], time.perf_counter() - started)
    analyze, sdk = best.values()
    return [f"start-up, best of {rounds}: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in best.items())
            + f"; ratio {analyze / sdk:.2f} (goal: within 1.2)"]


def speedups(largest: dict[str, tuple[int, dict[str, Any], dict[str, Any], float]], cores: int) -> list[str]:
    """Returns one line per kind of body: at its largest log, the wall and CPU seconds of ``--jobs 1``
    and of ``--jobs cores`` (each the run of least wall time on the same file), the speed-up in
    wall time, and the machine's own ceiling: ``cores`` times one core's wall time over that of
    ``cores`` runs of ``--jobs 1`` side by side (the slowest of them, the least of the rounds)."""
    lines = []
    for label, (count, one, every, together) in largest.items():
        lines.append(f"{label}: all cores at {count} interactions: --jobs 1 {one['seconds']:.2f} s wall, "
                     f"{one['cpu']:.2f} s CPU; --jobs {cores} {every['seconds']:.2f} s wall, {every['cpu']:.2f} s CPU; "
                     f"speed-up {one['seconds'] / every['seconds']:.2f} x (wall); the machine's ceiling "
                     f"{cores * one['seconds'] / together:.2f} x ({cores} runs of --jobs 1 side by side: "
                     f"{together:.2f} s)")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Writes the logs, runs the measurements and prints the table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=100_000, help="largest log, in interactions (default 10^5)")
    parser.add_argument("--min", type=int, default=1_000, help="smallest log (default 10^3)")
    parser.add_argument("--large-max", type=int, default=10_000, help="largest log of large bodies (default 10^4)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the floor and of one core's analyze at each size, interleaved (the least CPU "
                             "of each is kept), and of all cores' (the least wall time is kept; default 3)")
    parser.add_argument("--no-guard", action="store_true", help="skip the guard's overhead")
    parser.add_argument("--keep", metavar="DIR", help="write the logs to DIR and keep them (default: a temporary folder)")
    args = parser.parse_args(argv)
    from conformance import _json
    from conformance.provider.analyze.run import default_jobs

    cores = default_jobs()
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {cores} core(s) usable, Python "
          f"{platform.python_version()}, parser {_json.PARSER}, load average {os.getloadavg()[0]:.1f} at start")
    pool, large, mixed, gateway = real_lines(), large_lines(), mixed_lines(), conversations()
    print(f"pool: {len(pool)} real interactions, {min(map(len, pool))}-{max(map(len, pool))} bytes "
          f"(mean {sum(map(len, pool)) // len(pool)}); large: {len(large)} of about "
          f"{sum(map(len, large)) // len(large)} bytes; mixed: the real ones, one in ten with its context management; "
          f"gateway: the {len(gateway)} real recordings as conversations of users of their own, 64 at a time, interleaved")
    print("JSON parsers on the pool's lines (one core):")
    print("\n".join(parsers(pool)))
    print()
    print(f"per core: CPU seconds of the process (and its workers), which other work on the machine does not "
          f"stretch, the least of {args.repeat} runs of the floor and of analyze in turn;\nall cores: wall seconds of "
          f"--jobs {cores}, the least of {args.repeat} runs (stretched by other work: see the load average), and its "
          f"CPU seconds")
    header = (f"{'bodies':<7}{'interactions':>13}{'MB':>8}{'floor cpu':>10}{'1 core cpu':>11}{'int/s':>7}{'MB/s':>7}"
              f"{'x floor':>8}{'peak MB':>8}{f'{cores} cores wall':>13}{'cpu':>7}{'int/s':>7}{'MB/s':>7}{'peak MB':>8}")
    print(header)
    peaks: dict[str, list[float]] = {}
    ratios: dict[str, float] = {}
    largest: dict[str, tuple[int, dict[str, Any], dict[str, Any], float]] = {}
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or scratch
        # (label, what writes a log of ``count`` interactions to a path, the largest count)
        writers: tuple[tuple[str, Callable[..., int], int], ...] = (
            ("real", partial(write_log, pool=pool), args.max), ("mixed", partial(write_log, pool=mixed), args.max),
            ("large", partial(write_log, pool=large), min(args.max, args.large_max)),
            ("gateway", partial(write_gateway_log, templates=gateway), args.max))
        for label, writer, top in writers:
            count = args.min
            while count <= top:
                path = Path(folder) / f"{label}-{count}.jsonl"
                size = writer(path, count=count)
                floor, one, one_wall = best_of(path, args.repeat)
                every = min((measure("analyze", path, cores) for _ in range(max(1, args.repeat))),
                            key=lambda run: run["seconds"])
                mb = size / 1e6
                print(f"{label:<7}{count:>13}{mb:>8.1f}{floor['cpu']:>10.2f}{one['cpu']:>11.2f}"
                      f"{count / one['cpu']:>7.0f}{mb / one['cpu']:>7.1f}"
                      f"{one['cpu'] / floor['cpu']:>8.2f}{one['peak_kb'] / 1024:>8.0f}"
                      f"{every['seconds']:>13.2f}{every['cpu']:>7.2f}{count / every['seconds']:>7.0f}"
                      f"{mb / every['seconds']:>7.1f}{every['peak_kb'] / 1024:>8.0f}", flush=True)
                peaks.setdefault(label, []).append(one["peak_kb"])
                ratios[label] = one["cpu"] / floor["cpu"]
                if count * 10 > top:  # (the largest size: the machine's ceiling beside the speed-up)
                    largest[label] = (count, one_wall, every,
                                      min(side_by_side(path, cores) for _ in range(max(1, args.repeat))))
                if not args.keep:
                    path.unlink()
                count *= 10
    print(f"load average {os.getloadavg()[0]:.1f} after analyze")
    for label, found in peaks.items():
        print(f"{label}: one core's peak memory at the largest size / at the smallest: {found[-1] / found[0]:.2f} "
              f"(goal: within 1.2); x floor at the largest size: {ratios[label]:.2f} (goal: within 3)")
    print("\n".join(speedups(largest, cores)))
    print("\n".join(startup()))
    if not args.no_guard:
        print()
        from benchmarks.bench_guard import report

        print("\n".join(report()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
