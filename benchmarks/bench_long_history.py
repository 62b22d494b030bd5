"""Long histories: loading, calling and checking one scenario of 10^3 to 10^5 messages, as ratios.

For each size it writes one scenario to a YAML and a JSON spec file and prints:
  load/yaml   loading the YAML spec (parse, validation, truth checks) over the C YAML parse of the
              same file (``yaml.load`` with ``CSafeLoader``); goal <= 1.5
  /nogc       the same over that parse with the cyclic GC paused, as the loader parses
  load/json   loading the JSON spec over ``json.loads`` of the same file
  call/json   the guarded reference call (input copy, compaction, idempotence call) over
              ``json.loads`` of the history
  checks/json every check of the scenario on that observation over ``json.loads``; goal <= 10
  peak/data   peak memory of loading and checking over the memory of the parsed history; goal <= 4

Times are CPU seconds of this process (``time.process_time``), so other work on the machine does
not stretch them. Run: ``python benchmarks/bench_long_history.py`` (``--max-exp 4`` for a quicker pass).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["CONFORMANCE_CACHE_DIR"] = "off"  # each load is timed in full, never read from the spec cache

from benchmarks.bench_compaction import history_of  # noqa: E402 - after the sys.path line above
from conformance import RunOptions, load_file, resolve  # noqa: E402 - after the sys.path line above
from conformance._gc import gc_paused  # noqa: E402 - after the sys.path line above
from conformance.engine.runner import check_scenario, observe  # noqa: E402 - after the sys.path line above
from conformance.engine.transcript import find_live_start  # noqa: E402 - after the sys.path line above

OPTIONS = RunOptions(in_process=True, time_limit=600.0)


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Returns the best CPU time of ``repeat`` calls of ``fn`` and the last value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        started = time.process_time()
        value = fn()
        best = min(best, time.process_time() - started)
    return best, value


def cold_checks(target: Any, scenario: Any, obs: Any) -> Any:
    """Returns ``check_scenario`` with no fact of an earlier timing remembered (each call's facts are
    its own: ``conformance.engine._memo.shared_facts`` opens a block per observation)."""
    return check_scenario(target, scenario, OPTIONS, obs)


def peak(fn: Callable[[], Any]) -> int:
    """Returns the peak of memory allocated while ``fn`` runs (tracemalloc), in bytes."""
    gc.collect()
    tracemalloc.start()
    try:
        value = fn()
        _, top = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del value
    return top


def spec_of(n: int) -> dict[str, Any]:
    """Returns a spec document holding one scenario of about ``n`` messages."""
    history = history_of(n)
    return {"format_version": 1, "scenarios": [{
        "id": f"long.history-{n}", "description": f"a history of {len(history)} messages", "family": "long",
        "params": {"keep_turns": 10}, "history": history,
        "truth": {"live_start": find_live_start(history)}}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-exp", type=int, default=5, help="largest history is 10**MAX_EXP messages")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many timings")
    args = parser.parse_args()
    target = resolve("conformance_reference:compact")
    print(f"{'messages':>9} {'MB':>6} {'yaml s':>8} {'load/yaml':>9} {'/nogc':>6} {'json s':>7} {'load/json':>9} "
          f"{'call/json':>9} {'checks/json':>11} {'peak/data':>9}")
    with tempfile.TemporaryDirectory() as folder:
        warm = Path(folder) / "warm.json"
        warm.write_text(json.dumps(spec_of(10)), encoding="utf-8")
        warmed = load_file(warm).scenarios[0]  # compiles the validator once, as any run does first
        check_scenario(target, warmed, OPTIONS, observe(target, warmed, OPTIONS))
        for exp in range(3, args.max_exp + 1):
            repeat = args.repeat if exp < 5 else 1
            doc = spec_of(10 ** exp)
            n = len(doc["scenarios"][0]["history"])
            yaml_path, json_path = Path(folder) / "long.yaml", Path(folder) / "long.json"
            yaml_path.write_text(yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False), encoding="utf-8")
            json_path.write_text(json.dumps(doc), encoding="utf-8")
            del doc
            yaml_text, json_text = yaml_path.read_text(encoding="utf-8"), json_path.read_text(encoding="utf-8")
            history_text = json.dumps(json.loads(json_text)["scenarios"][0]["history"])
            t_yaml, _ = timed(lambda: yaml.load(yaml_text, Loader=yaml.CSafeLoader), repeat)
            with gc_paused():
                t_yaml_nogc, _ = timed(lambda: yaml.load(yaml_text, Loader=yaml.CSafeLoader), repeat)
            t_load, loaded = timed(lambda: load_file(yaml_path), repeat)
            assert not loaded.errors, loaded.errors[:1]
            t_json, _ = timed(lambda: json.loads(json_text), repeat)
            t_load_json, from_json = timed(lambda: load_file(json_path), repeat)
            assert not from_json.errors, from_json.errors[:1]
            t_history, _ = timed(lambda: json.loads(history_text), repeat)
            scenario = loaded.scenarios[0]
            t_call, obs = timed(lambda: observe(target, scenario, OPTIONS), repeat)
            t_checks, results = timed(lambda: cold_checks(target, scenario, obs), repeat)
            assert all(r.outcome in ("pass", "skip") for r in results), [r for r in results if r.outcome != "pass"][:1]
            data = peak(lambda: json.loads(history_text))
            used = peak(lambda: check_scenario(target, scenario, OPTIONS, observe(
                target, load_file(json_path).scenarios[0], OPTIONS)))
            print(f"{n:>9} {len(yaml_text) / 1e6:>6.1f} {t_yaml:>8.3f} {t_load / t_yaml:>9.2f} "
                  f"{t_load / t_yaml_nogc:>6.2f} {t_json:>7.3f} "
                  f"{t_load_json / t_json:>9.2f} {t_call / t_history:>9.1f} {t_checks / t_history:>11.1f} "
                  f"{used / data:>9.1f}")


if __name__ == "__main__":
    main()
