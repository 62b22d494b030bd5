"""What each piece of the speed machinery pays: a headline figure with the piece and without it.

Each piece is switched off in the process that runs the command, by a few lines run before the
command line starts (the last field of its ``PIECES`` entry): a name rebound to the plain way
(``contextlib.nullcontext`` for a collector pause, the bare function for a memo, no compiled
validator), or an environment variable (the spec cache).
Both sides run the same way (``python -c`` with the same opening), interleaved round by round in an
order turned each round, and each figure is the median over ``--repeat`` rounds of the CPU seconds of
the command and every process it started (which other work on the machine stretches less than the
wall time), after one warm-up round (which fills the spec cache as any first run does).

The figures are the main job's, as ``benchmarks/bench_run.py`` runs it: ``run --no-provider`` (the
shipped scenarios on the reference) and the first run on a machine (``run --no-provider`` with an
empty spec cache, which reads and checks every spec file); and the loading of
a spec of 10^5 messages (``load/yaml`` of ``benchmarks/bench_long_history.py``, whose goal is a
ratio to the YAML parse). A piece pays when it moves its figure by 10% or more; the last column says
which.

    python benchmarks/machinery.py [--repeat 5] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import atexit
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAYS = 0.10  # a piece stays when it moves its figure by this much or more

# name -> the command line's arguments (or Python code loading the file ``{spec}``), and whether each
# run starts with an empty spec cache
FIGURES: dict[str, tuple[list[str] | str, bool]] = {
    "run --no-provider": (["run", "--no-provider"], False),
    "first run (no spec cache)": (["run", "--no-provider"], True),
    "loading 10^5 messages (YAML)": ("from conformance import load_file\nload_file(__import__('pathlib').Path({spec!r}))",
                                     True),
    # the guard's judge alone, on calls that each open a conversation (3 KB, decoded whole: the
    # costliest row of benchmarks/bench_guard.py), 10^5 calls over 1,000 bodies
    "the guard judging 10^5 calls": (
        "import json\nfrom benchmarks.bench_guard import _anthropic_case, _fresh\nfrom conformance.guard import Guard\n"
        "sent = [json.dumps(b, separators=(',', ':')).encode() for b in _fresh(3000)(0, 1000)]\n"
        "answer = _anthropic_case(3000)[1]\nguard = Guard(policy=lambda judged: None)\n"
        "for _ in range(100):\n    for body in sent:\n"
        "        guard.judge('http://127.0.0.1:9/v1/messages', 'POST', body, answer, 200, 'application/json')",
        False),
}

# name -> (what it is, where it lives, the figure it is measured on, the lines that switch it off;
# "env:NAME=VALUE" sets an environment variable instead)
PIECES = {
    "spec cache": ("validated spec files kept between runs (marshal)", "engine/spec_cache.py", "run --no-provider",
                   "env:CONFORMANCE_CACHE_DIR=off"),
    "compiled validator": ("spec files checked by a compiled JSON Schema first", "engine/_compiled_schema.py",
                           "first run (no spec cache)",
                           "import conformance.engine.spec as m\nm.compiled_check = lambda schema: None"),
    "collector paused while parsing": ("gc off while a spec file's YAML is read", "engine/_yamlsource.py",
                                       "loading 10^5 messages (YAML)",
                                       "import conformance.engine._yamlsource as m, contextlib\nm.gc_paused = contextlib.nullcontext"),
    "facts memo": ("the checks' shared facts of a history computed once", "engine/_memo.py", "run --no-provider",
                   "import conformance.engine.invariants as m\nm.of_history = lambda fact, h: fact(h)\n"
                   "m.of_pair = lambda fact, a, b: fact(a, b)"),
    "is_mapping asks dict first": ("`_json.is_mapping` tries `isinstance(x, dict)` before the Mapping ABC's check",
                                   "_json.py", "the guard judging 10^5 calls",
                                   "import conformance._json as m\n"
                                   "m.is_mapping.__code__ = (lambda value: isinstance(value, Mapping)).__code__"),
    "a target's thread reused": ("a call's thread waits for the next call once its own ended in time",
                                 "engine/clock.py", "run --no-provider",
                                 "import conformance.engine.clock as m\nm.IDLE_CALLERS = 0"),
}

# Pieces that moved their figure by less than a tenth, removed after the commit where they were
# measured (``git worktree add /tmp/m COMMIT && python /tmp/m/benchmarks/machinery.py`` measures them
# again): piece -> (what it was, where it lived, the figure it was measured on, that commit)
REMOVED = {
    "collector paused for the checks": ("gc off while the checks ran", "runner.py", "run --no-provider", "4ae24bb"),
    "collector paused for the replay": ("gc off while the recordings replayed", "provider/__init__.py", "run",
                                        "4ae24bb"),
    "collector paused for imports": ("gc off while a target's module was first imported", "_gc.py (import_paused)",
                                     "run --no-provider", "4ae24bb"),
    "fork server's frozen heap": ("gc.freeze in the fork server before each worker", "worker/_fork_server.py",
                                  "a user's target in workers", "4ae24bb"),
    "vcrpy import hook": ("vcrpy's patch loaded without the HTTP libraries it never patches", "provider/_vcr.py", "run",
                          "4ae24bb"),
    "class-is fast paths": ("`x.__class__ is dict` (list, str...) where isinstance would do, 75 of them",
                            "the judges, the checks, the transcript", "analyze 10^5 real interactions", "d2ad4cc"),
}

OPENING = "import sys\nsys.path.insert(0, {root!r})\n"
CLOSING = "\nimport conformance\nfrom conformance.cli import main\nraise SystemExit(main({args!r}))\n"


@cache
def long_spec() -> str:
    """Returns the path of a YAML spec of one scenario of 10^5 messages, written once (removed at exit)."""
    import yaml

    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_long_history import spec_of

    folder = tempfile.mkdtemp(prefix="machinery-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "long.yaml"
    path.write_text(yaml.safe_dump(spec_of(10**5), sort_keys=False), encoding="utf-8")
    return str(path)


def script(args: list[str] | str, off: str | None) -> tuple[list[str], dict[str, str]]:
    """Returns the command that runs the command line with ``args`` (or the code ``args``, loading
    ``long_spec()``), the piece switched off by ``off`` when given, and the environment changes it needs."""
    env: dict[str, str] = {}
    lines = ""
    if off is not None and off.startswith("env:"):
        name, _, value = off[4:].partition("=")
        env[name] = value
    elif off is not None:
        lines = off
    if isinstance(args, str):
        closing = "\n" + args.format(spec=long_spec()) + "\n"
    else:
        closing = CLOSING.format(args=args)
    code = OPENING.format(root=str(ROOT)) + lines + closing
    return [sys.executable, "-c", code], env


def timed(command: list[str], env: dict[str, str], cold: bool) -> tuple[float, float]:
    """Returns the wall and CPU seconds (the command and every process it started) of one run;
    raises ``SystemExit`` when the command fails to run the suite (an exit code above 1)."""
    environment = {**os.environ, **env}
    with tempfile.TemporaryDirectory() as empty:
        if cold and "CONFORMANCE_CACHE_DIR" not in env:
            environment["CONFORMANCE_CACHE_DIR"] = empty
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode > 1:
        raise SystemExit(f"{command[-1][-120:]!r} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(name: str, repeat: int) -> tuple[float, float]:
    """Returns the median CPU seconds of the piece's figure with it and without it."""
    _, _, figure, off = PIECES[name]
    args, cold = FIGURES[figure]
    sides = {"with": script(args, None), "without": script(args, off)}
    for command, env in sides.values():  # warm-up: imports cached, the spec cache filled
        timed(command, env, cold)
    samples: dict[str, list[float]] = {side: [] for side in sides}
    for n in range(repeat):
        order = list(sides) if n % 2 == 0 else list(reversed(sides))
        for side in order:
            samples[side].append(timed(*sides[side], cold)[1])
    return statistics.median(samples["with"]), statistics.median(samples["without"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="rounds per piece (median)")
    parser.add_argument("--only", nargs="*", default=None, help="measure only these pieces")
    args = parser.parse_args()
    chosen = args.only or list(PIECES)
    unknown = [n for n in chosen if n not in PIECES]
    if unknown:
        raise SystemExit(f"unknown piece(s) {unknown}; known: {list(PIECES)}")
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f} at start; "
          f"CPU seconds, median of {args.repeat} interleaved rounds")
    print(f"{'piece':<34} {'figure':<30} {'with':>6} {'without':>8} {'pays':>7}  verdict")
    for name in chosen:
        with_it, without = measure(name, args.repeat)
        pays = (without - with_it) / with_it
        verdict = "keep" if pays >= PAYS else "remove"
        print(f"{name:<34} {PIECES[name][2]:<30} {with_it:>6.2f} {without:>8.2f} {pays:>+7.0%}  {verdict}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end; a piece pays when it moves its figure by "
          f"{PAYS:.0%} or more")
    if not args.only:
        for commit in dict.fromkeys(entry[3] for entry in REMOVED.values()):
            print(f"removed after commit {commit}, where measured the same way: "
                  + ", ".join(name for name, entry in REMOVED.items() if entry[3] == commit))


if __name__ == "__main__":
    main()
