"""Generated scenarios: seeded random histories whose truth comes from the harness's own analysis.

They widen the shipped scenarios with shapes nobody wrote by hand (``conformance run --generated N``).
"""

from __future__ import annotations

import random
from typing import Any

from .spec import Scenario, Truth
from .transcript import find_live_start, unanswered_tool_uses

_FUTURE_BLOCKS = ({"type": "container_upload", "file_id": "file_01"},
                  {"type": "hologram_20270101", "frames": 3, "payload": {"depth": 2}})


class _Ids:
    def __init__(self, rng: random.Random) -> None:
        self.rng, self.n = rng, 0

    def next(self) -> str:
        self.n += 1
        return f"toolu_{self.n:04d}{self.rng.randrange(16**6):06x}"


def _assistant_step(rng: random.Random, ids: _Ids, thinking: float, parallel: float) -> tuple[dict, dict]:
    calls = [{"type": "tool_use", "id": ids.next(), "name": rng.choice(["read", "grep", "run"]),
              "input": {"arg": rng.randrange(100)}} for _ in range(rng.choice([2, 3]) if rng.random() < parallel else 1)]
    content: list[dict[str, Any]] = []
    if rng.random() < thinking:
        content.append({"type": "thinking", "thinking": f"step {ids.n}", "signature": f"sig{ids.n}"})
    if rng.random() < 0.3:
        content.append({"type": "text", "text": "Checking."})
    content += calls
    results = [{"type": "tool_result", "tool_use_id": c["id"], "content": f"out {c['id']}"} for c in calls]
    rng.shuffle(results)
    return {"role": "assistant", "content": content}, {"role": "user", "content": results}


def random_history(rng: random.Random, max_settled: int = 5, max_live_steps: int = 12) -> list[dict[str, Any]]:
    """Returns a random history: settled tool tasks, then a task in flight (or none)."""
    ids = _Ids(rng)
    history: list[dict[str, Any]] = []
    for task in range(rng.randint(0, max_settled)):
        history.append({"role": "user", "content": f"request {task}"})
        for _ in range(rng.randint(0, 4)):
            history.extend(_assistant_step(rng, ids, 0.7, 0.2))
        answer: list[dict[str, Any]] = []
        if rng.random() < 0.6:
            answer.append({"type": "thinking", "thinking": f"answer {task}", "signature": f"asig{task}"})
        answer.append({"type": "text", "text": f"done {task}"})
        if rng.random() < 0.2:
            answer.append(dict(rng.choice(_FUTURE_BLOCKS)))
        history.append({"role": "assistant", "content": answer})
    if rng.random() < 0.8:
        history.append({"role": "user", "content": "the task in flight"})
        for _ in range(rng.randint(0, max_live_steps)):
            history.extend(_assistant_step(rng, ids, 0.8, 0.3))
        if rng.random() < 0.3 and history[-1]["role"] == "user":
            history.append(_assistant_step(rng, ids, 0.8, 0.3)[0])  # a call still waiting for its result
    return history


def generated_scenarios(count: int, seed: int = 0) -> list[Scenario]:
    """Returns ``count`` generated scenarios (family ``generated``) for a seed; same seed, same cases."""
    rng = random.Random(seed)
    out = []
    for k in range(count):
        history = random_history(rng)
        out.append(Scenario(
            id=f"generated.s{seed}-{k:04d}", description=f"random history {k} of seed {seed}", family="generated",
            history=history, truth=Truth(find_live_start(history), tuple(unanswered_tool_uses(history))),
            features=("generated",), params={"keep_turns": rng.choice([2, 4, 6, 10])}, path="<generated>"))
    return out
