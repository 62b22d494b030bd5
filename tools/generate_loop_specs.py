#!/usr/bin/env python3
"""Writes ``specs/loop-scripts.yaml``: conversations to play as the agent loop, where the provider's
prefix check of replayed thinking (the ``thinking.*`` invariants) meets what real agents send.

Each history is the conversation the model produced: settled tasks, then a task in flight of many
steps. The harness calls the target before every assistant turn; every thinking block a request
sends back must follow what preceded it when the model produced it. The families: long tasks (more
steps than any window), several tasks, empty-text thinking (Claude Fable 5.1's default, the
signature carrying the reasoning) alone and mixed with text, redacted thinking, a mid-conversation
``system`` message after a request, parallel and server tools in one turn, a client-written summary
opening the history, and budgets: one the task fits beside the cut its first call made, one it
outgrows (the reference refuses rather than re-trim settled history under it).

Each history is put together from settled tasks and one last task, so the boundary is known by
construction, and so is where every task begins (``truth.tasks``: the truth of each call of the
loop, where every one-call invariant is checked too); the reference output is the documented rule of ``specs/README.md`` applied to that
structure (``scenario`` of ``generate_blind_spot_specs``). Nothing here imports the harness or the
reference.

Deterministic: ``python tools/generate_loop_specs.py`` (optionally the output folder) rewrites the
file byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_blind_spot_specs import scenario  # noqa: E402 - after the sys.path line above
from generate_specs import (assistant, estimate_tokens, json_flow, redacted, render, signature, srvtoolu, text,  # noqa: E402
                            tool_result, tool_use, toolu, user)

Message = dict[str, Any]
Scenario = dict[str, Any]
FAMILY = "loop-scripts"


def empty_thinking(seed: str) -> dict[str, Any]:
    """Returns a thinking block as Claude Fable 5.1 sends it by default: no text, the signature holds it."""
    return {"type": "thinking", "thinking": "", "signature": signature(seed)}


def said_thinking(seed: str, words: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": words, "signature": signature(seed)}


def qa(seed: str, question: str, answer: str, *, empty: bool = True, pad: int = 0) -> list[Message]:
    """Returns a settled question and answer whose answer reasoned first (``pad`` characters more text)."""
    think = empty_thinking(seed) if empty else said_thinking(seed, f"Answer directly. ({seed})")
    return [user(question), assistant([think, text(answer + (" " + "Details follow." * (pad // 15) if pad else ""))])]


def settled(seed: str, n: int, **kwargs: Any) -> list[list[Message]]:
    """Returns ``n`` settled tasks."""
    topics = ("the ETL target", "open invoices", "who is on call", "the disk alert", "the cron jobs", "the TLS expiry")
    return [qa(f"{seed}:s{k}", f"What about {topics[k % len(topics)]}?", f"Answer {k}: all in order.", **kwargs)
            for k in range(n)]


def steps(seed: str, n: int, think: Any = "empty") -> list[Message]:
    """Returns ``n`` tool steps; ``think(k)`` gives step k's reasoning block(s), or ``empty`` /
    ``mixed`` (every other one with text) / ``redacted``."""
    out: list[Message] = []
    for k in range(n):
        if think == "empty":
            reasoning = [empty_thinking(f"{seed}:t{k}")]
        elif think == "mixed":
            reasoning = [empty_thinking(f"{seed}:t{k}") if k % 2 else said_thinking(f"{seed}:t{k}", f"Step {k}.")]
        elif think == "redacted":
            reasoning = [redacted(f"{seed}:r{k}")] if k % 2 else [empty_thinking(f"{seed}:t{k}")]
        else:
            reasoning = think(k)
        use = toolu(f"{seed}:{k}")
        out += [assistant([*reasoning, tool_use(use, "run_command", {"command": f"step {k}"})]),
                user([tool_result(use, f"step {k} ok")])]
    return out


def _filed(built: Scenario) -> Scenario:
    """Returns a scenario built by the blind-spots builder, named and filed under this family."""
    sid = built["id"].split(".", 1)[1]
    return {**built, "id": f"{FAMILY}.{sid}", "family": FAMILY}


def scripts() -> list[Scenario]:
    out: list[Scenario] = []

    def add(sid: str, description: str, features: list[str], history_settled: list[list[Message]],
            last: list[Message], keep: int, **kwargs: Any) -> None:
        out.append(_filed(scenario(sid, description, ["thinking", "tool-use", *features], history_settled, last,
                                   keep, declare_tasks=True, **kwargs)))

    seed = "five-tasks-six-steps-empty"
    add("empty-thinking-five-tasks-six-steps", "four settled tasks and a 6-step task in flight, every thinking "
        "block empty-text (the signature holds it), window 4", ["empty-thinking"], settled(seed, 4),
        [user("Rotate the API keys.")] + steps(seed, 6), 4)
    seed = "mixed-empty"
    add("mixed-empty-and-text-thinking-in-flight", "a 6-step task in flight whose steps alternate empty-text and "
        "written thinking, after three settled tasks, window 3", ["empty-thinking"], settled(seed, 3, empty=False),
        [user("Migrate the queue workers.")] + steps(seed, 6, "mixed"), 3)
    seed = "redacted-long"
    add("redacted-thinking-twelve-steps-window-2", "a 12-step task in flight, every other step's reasoning "
        "redacted, after three settled tasks, window 2", ["redacted-thinking", "empty-thinking"], settled(seed, 3),
        [user("Audit the firewall rules.")] + steps(seed, 12, "redacted"), 2)
    seed = "system-after-request"
    task = [user("Deploy the hotfix."), {"role": "system", "content": "The deploy window closes at 18:00 UTC."}]
    add("system-message-after-the-request-in-flight", "a mid-conversation system message after the request of a "
        "4-step task in flight and in a settled task, window 3", ["system-message"],
        settled(seed, 2) + [[user("Check the staging build."), {"role": "system", "content": "Staging is frozen."},
                             assistant([empty_thinking(f"{seed}:st"), text("Staging build 812 is green.")])]],
        task + steps(seed, 4), 3)
    seed = "parallel-server"
    uses = [toolu(f"{seed}:a"), toolu(f"{seed}:b")]
    search = srvtoolu(f"{seed}:web")
    turn = [assistant([empty_thinking(f"{seed}:t0"),
                       {"type": "server_tool_use", "id": search, "name": "web_search", "input": {"query": "CVE-2026-1"}},
                       {"type": "web_search_tool_result", "tool_use_id": search, "content": []},
                       tool_use(uses[0], "read_file", {"path": "a.lock"}), tool_use(uses[1], "read_file", {"path": "b.lock"})]),
            user([tool_result(uses[0], "a 1.2"), tool_result(uses[1], "b 3.4")])]
    add("parallel-and-server-tools-in-flight", "a task in flight whose turns hold a web search with its result and "
        "two parallel calls, then three steps, window 3", ["parallel", "server-tool"], settled(seed, 3),
        [user("Are we exposed to the new CVE?")] + turn + steps(seed, 3), 3)
    seed = "summary-first"
    summary = [user("[Summary of earlier work] The user set up the billing service; tests pass."),
               assistant([empty_thinking(f"{seed}:ack"), text("Understood.")])]
    add("client-summary-opens-the-history", "a client-written summary and its answer open the history, then two "
        "settled tasks and a 5-step task in flight, window 2", ["summary"], [summary] + settled(seed, 2),
        [user("Add the refund endpoint.")] + steps(seed, 5), 2)

    seed = "budget-fits"
    big = settled(seed, 4, pad=1500)  # each settled task larger than the task's steps: the cut is clear
    live = [user("Restart the workers.")] + steps(seed, 2)
    kept = [m for task in big[-2:] for m in task]
    add("budget-cut-at-the-first-call-holds", "a budget drops the two oldest settled tasks at a task's first call; its "
        "2 steps still fit beside the rest", ["budget", "empty-thinking"], big, live, 20,
        budget=estimate_tokens(kept) + estimate_tokens(live) + 8)
    seed = "budget-outgrown"
    big = settled(seed, 4, pad=600)
    live = [user("Reindex the search cluster.")] + steps(seed, 8)
    add("budget-outgrown-by-the-task-in-flight", "an 8-step task in flight outgrows the budget its first call met by "
        "dropping settled tasks: the reference refuses", ["budget", "empty-thinking"], big, live, 20,
        budget=estimate_tokens(live) + 40)  # it alone fits; beside the settled tasks its first call kept, not
    return out


HEADER = __doc__.split("\n\n")[0].removeprefix("Writes ``specs/loop-scripts.yaml``: ").strip() + """
Generated by tools/generate_loop_specs.py; do not edit by hand."""


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "loop-scripts.yaml").write_text(render(scripts(), HEADER, dump=json_flow), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
