"""Replay speed of the provider cassettes, and why the body matcher is a hash.

1. Replays every shipped cassette (``cassettes/``) through the SDK, vcrpy (record mode ``none``) and
   the analyzer, several passes, re-reading the YAML each pass; prints interactions per CPU second
   of this process against the target of 500/s, and the wall-clock rate beside it. Replay never
   waits on I/O, so on a shared machine the wall-clock rate mostly measures the other processes
   (the load average is printed too); the CPU rate is the one compared with the target.
2. Records one cassette of N large requests (about 100 KB each) against the local emulator, then
   replays it with vcrpy's stock ``body`` matcher and with the hashed matcher the suite uses. The
   stock matcher compares every stored request with every live one and builds a diff for each miss,
   so its cost grows with N squared.

Run: ``python benchmarks/bench_replay.py`` (``--passes 10 --large 60``; ``--check`` exits 1 below target).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance.provider import cassettes  # noqa: E402 - after the sys.path line above
from conformance.provider.anthropic.emulator import Emulator  # noqa: E402 - after the sys.path line above
from conformance.provider.probes import load_probes  # noqa: E402 - after the sys.path line above
from conformance.provider.anthropic.record import make_client  # noqa: E402 - after the sys.path line above
from conformance.provider.anthropic.semantics import filler  # noqa: E402 - after the sys.path line above
from conformance.provider.verify import cassette_files, verify  # noqa: E402 - after the sys.path line above

TARGET = 500.0


def shipped_rate(passes: int) -> tuple[int, float, float]:
    """Returns (interactions per pass, per CPU second, per wall-clock second) replaying the shipped cassettes."""
    probes, errors = load_probes([ROOT / "specs" / "provider"])
    if errors:
        raise SystemExit("\n".join(map(str, errors)))
    files, _ = cassette_files([ROOT / "cassettes"])
    interactions = sum(len(cassettes.load_cassette(p)["interactions"]) for p in files)
    results = verify(files, probes)  # warm-up: imports, probe padding, SDK client
    bad = [r for r in results if r.outcome != "pass"]
    if bad:
        raise SystemExit(f"shipped cassettes do not verify: {bad[0].message}")
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in range(passes):
        cassettes._LOADED.clear()
        verify(files, probes)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return interactions, passes * interactions / cpu, passes * interactions / elapsed


def _large_requests(count: int, tokens: int) -> list[dict]:
    return [{"model": "claude-sonnet-4-6", "max_tokens": 16,
             "messages": [{"role": "user", "content": f"request {n}: " + filler(tokens, n)}]} for n in range(count)]


def matcher_comparison(count: int, tokens: int) -> dict[str, float]:
    """Returns replay seconds of one ``count``-interaction cassette per matcher (stock ``body`` vs hash)."""
    requests = _large_requests(count, tokens)
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        path = str(Path(scratch) / "large.yaml")
        with Emulator(0) as emulator, make_client("dummy", emulator.url) as client:
            with cassettes.make_vcr("all", "emulator").use_cassette(path):
                for kwargs in requests:
                    client.beta.messages.create(**kwargs)
            base_url = emulator.url
        for name, match_on in (("stock body matcher", ("method", "path", "body")),
                               ("hashed body matcher", cassettes.MATCH_ON)):
            with make_client("dummy", base_url) as client:
                start = time.perf_counter()
                with cassettes.network_blocked(), cassettes.make_vcr("none").use_cassette(path, match_on=match_on):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        for kwargs in requests:
                            client.beta.messages.create(**kwargs)
                timings[name] = time.perf_counter() - start
    return timings


def main(argv: list[str] | None = None) -> int:
    """Prints the replay rate and the matcher comparison; returns 1 with --check when below target."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passes", type=int, default=10, help="replay passes over the shipped cassettes")
    parser.add_argument("--large", type=int, default=60, help="interactions in the large one-cassette comparison")
    parser.add_argument("--tokens", type=int, default=25_000, help="filler tokens per large request (4 bytes each)")
    parser.add_argument("--check", action="store_true", help=f"exit 1 when the rate is below {TARGET:.0f}/s")
    args = parser.parse_args(argv)

    interactions, rate, wall = shipped_rate(args.passes)
    verdict = "meets" if rate >= TARGET else "BELOW"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"shipped cassettes: {interactions} interactions per pass, {args.passes} passes: "
          f"{rate:.0f} interactions per CPU second ({verdict} the {TARGET:.0f}/s target); "
          f"wall clock {wall:.0f}/s at load average {load:.1f} on {os.cpu_count()} CPUs")
    if args.large:
        timings = matcher_comparison(args.large, args.tokens)
        size_kb = args.tokens * 4 // 1000
        for name, seconds in timings.items():
            print(f"one cassette, {args.large} requests of ~{size_kb} KB, {name}: {seconds:.2f} s "
                  f"({args.large / seconds:.0f} interactions/s)")
        stock, hashed = timings["stock body matcher"], timings["hashed body matcher"]
        print(f"hashed matcher is {stock / hashed:.1f}x faster on this cassette")
    return 1 if args.check and rate < TARGET else 0


if __name__ == "__main__":
    sys.exit(main())
