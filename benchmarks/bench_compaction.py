"""Speed of the reference compactor, as ratios: compaction time over ``json.loads`` time of the same
history, for histories of 10^3 to 10^6 messages (``bench_run.py`` times ``conformance run``).

Times are CPU seconds of this process (``time.process_time``), so other work on the machine does
not stretch them; the goal is a ratio within 0.1 at 10^5 messages, and linear growth.

Run: ``python benchmarks/bench_compaction.py`` (add ``--max-exp 5`` for a quicker pass).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from conformance_reference import compact  # noqa: E402 - after the sys.path line above


def history_of(n_messages: int, live_steps: int = 6) -> list[dict]:
    """Returns a history of about ``n_messages``: settled four-message tool tasks, then a live task."""
    out: list[dict] = []
    k = 0
    while len(out) < n_messages - (1 + 2 * live_steps):
        out += [
            {"role": "user", "content": f"request {k}"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": f"plan {k}", "signature": f"sig{k}"},
                {"type": "tool_use", "id": f"toolu_{k}", "name": "read", "input": {"path": f"/f{k}"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": "x" * 40}]},
            {"role": "assistant", "content": [{"type": "text", "text": f"answer {k}"}]},
        ]
        k += 1
    out.append({"role": "user", "content": "the task in flight"})
    for s in range(live_steps):
        out += [{"role": "assistant", "content": [
                    {"type": "thinking", "thinking": f"step {s}", "signature": f"ls{s}"},
                    {"type": "tool_use", "id": f"toolu_live_{s}", "name": "read", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_live_{s}", "content": "y"}]}]
    return out


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Returns the best CPU time of ``repeat`` calls of ``fn``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-exp", type=int, default=6, help="largest history is 10**MAX_EXP messages")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    print(f"{'messages':>10} {'json.loads s':>13} {'compact s':>11} {'ratio':>8} {'compact/msg ns':>15}")
    previous = None
    for exp in range(3, args.max_exp + 1):
        n = 10 ** exp
        text = json.dumps(history_of(n))
        history = json.loads(text)
        t_parse = best_of(lambda: json.loads(text), args.repeat)
        t_compact = best_of(lambda: compact(history, keep_turns=10), args.repeat)
        growth = "" if previous is None else f"  (x{t_compact / previous:.1f} for x10 messages)"
        print(f"{len(history):>10} {t_parse:>13.5f} {t_compact:>11.6f} {t_compact / t_parse:>8.4f} "
              f"{t_compact / len(history) * 1e9:>15.2f}{growth}")
        previous = t_compact


if __name__ == "__main__":
    main()
