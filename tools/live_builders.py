"""Builders for the scenarios of ``generate_live_specs.py``: settled tasks, tool steps of a task in
flight, images and documents, and ``build``, which declares the truth from how a history was put
together and applies the documented reference rule to state the expected output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_specs import (assistant, estimate_tokens, strip_reasoning, text, thinking, tool_result, tool_use,  # noqa: E402 - after the sys.path line above
                            toolu, user)
from realistic_content import csv_text, pdf_base64, png_base64, pytest_text  # noqa: E402 - after the sys.path line above

Message = dict[str, Any]
KB = 1024
EPHEMERAL = {"type": "ephemeral"}
EPHEMERAL_1H = {"type": "ephemeral", "ttl": "1h"}

# Thinking text a careless rewrite would damage: newlines, runs of spaces, tabs, non-ASCII, emoji.
THINK_WS = ("Plan:\n  1. read the whole log   (not just the tail)\n  2. find the first ERROR\n\n"
            "\tthen compare with the loader: naïve retry?  \n中文注释: 重试次数 = 5 ✓ — ¿por qué? 🔎  ")
THINK_WS_2 = ("\nThe serialization failures line up with batch 381…\n\n    - pool size 4\n    - 5 retries,   "
              "no back-off\n\nFix: exponential back-off (2ⁿ × 100 ms), jitter ±20 %. Ωk.\n")


def is_request(message: Message) -> bool:
    """Returns whether a message opens a task: a user message with no tool result."""
    content = message["content"]
    return message["role"] == "user" and (isinstance(content, str) or all(b["type"] != "tool_result" for b in content))


def build(sid: str, description: str, family: str, features: list[str], settled: list[list[Message]],
          live: list[Message], keep_turns: int, *, unanswered: tuple[str, ...] = (), note: str | None = None,
          comment: str | None = None, budget_tokens: int | None = None) -> dict[str, Any]:
    """Returns one scenario: history, declared truth, and the reference output by the documented rule.

    Without a budget the window must cut settled history; with one, the budget must leave the task in
    flight clear margin (half its characters) and still drop some settled tasks but not all.
    """
    history = [m for task in settled for m in task] + live
    boundary = sum(len(task) for task in settled)
    assert all(is_request(task[0]) for task in settled), sid
    assert not any(b.get("type") == "compaction" for m in history[:boundary] if isinstance(m["content"], list)
                   for b in m["content"]), sid
    first = max(0, boundary - keep_turns)
    assert first > 0 or budget_tokens is not None, f"{sid}: the window must cut settled history"
    kept_from = next((i for i in range(first, boundary) if is_request(history[i])), boundary)
    kept = [m for m in (strip_reasoning(x) for x in history[kept_from:boundary]) if m is not None]
    params: dict[str, Any] = {"keep_turns": keep_turns}
    expect: dict[str, Any] = {}
    if budget_tokens is not None:
        params["budget_tokens"] = budget_tokens
        kept = _fit(sid, kept, live, budget_tokens)
        if estimate_tokens(kept) + estimate_tokens(live) > budget_tokens:
            expect = {"refusal_allowed": True, "raises": "LiveTaskOverBudget"}
        else:  # clear margin for a correct compactor counting tokens its own way: half the live characters
            assert 2 * budget_tokens >= sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":")))
                                            for m in live), sid
    truth: dict[str, Any] = {"live_start": boundary}
    if unanswered:
        truth["unanswered"] = list(unanswered)
    if note:
        truth["note"] = note
    scenario: dict[str, Any] = {"id": sid, "description": description, "family": family,
                                "features": sorted(set(features) | {"inflight"}), "history": history,
                                "params": params, "truth": truth, "expect": expect or {"output": kept + live}}
    if comment:
        scenario["comment"] = comment
    return scenario


def _fit(sid: str, settled: list[Message], live: list[Message], budget: int) -> list[Message]:
    """Returns ``settled`` without its oldest whole tasks until it fits ``budget`` beside the task's
    request (what the task's first call sent after it, by the documented estimate: characters of
    compact JSON over 4). That cut holds for the whole task: the task's thinking is bound to it."""
    first_answer = next((i for i, m in enumerate(live) if m["role"] == "assistant"), len(live))
    request_tokens = estimate_tokens(live[:first_answer])
    before = len(settled)
    while settled and estimate_tokens(settled) + request_tokens > budget:
        cut = 1
        while cut < len(settled) and not is_request(settled[cut]):
            cut += 1
        settled = settled[cut:]
    assert 0 < len(settled) < before, f"{sid}: the budget must drop some settled tasks and keep some"
    return settled


# --- settled tasks -----------------------------------------------------------------------------------


def qa(seed: str, question: Any, answer: str, **answer_extra: Any) -> list[Message]:
    """Returns a settled question and answer; the answer reasoned first."""
    return [user(question), assistant([thinking(f"Short question; answer directly. ({seed})", seed),
                                       text(answer, **answer_extra)])]


def tool_task(seed: str, question: Any, name: str, args: dict[str, Any], result: Any, answer: str,
              **result_extra: Any) -> list[Message]:
    """Returns a settled one-step tool task: request, call, result, answer."""
    use = toolu(seed)
    return [user(question),
            assistant([thinking(f"Call {name} first. ({seed})", seed + ":call"), tool_use(use, name, args)]),
            user([tool_result(use, result, **result_extra)]),
            assistant([thinking(f"The result answers it. ({seed})", seed + ":answer"), text(answer)])]


def history_of_settled(seed: str) -> list[list[Message]]:
    """Returns four settled tasks with media, documents, big and list results, and cache_control."""
    return [
        qa(f"{seed}:s1", "Which database does the ETL write to?", "Postgres 16 on the warehouse host."),
        tool_task(f"{seed}:s2", "How many invoices are still open?", "query_csv", {"path": "exports/invoices.csv"},
                  csv_text(f"{seed}:s2", 3 * KB), "412 invoices are open.", cache_control=EPHEMERAL),
        qa(f"{seed}:s3", [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                       "data": png_base64(f"{seed}:s3")}},
                          text("What does this dashboard tile show?")],
           "Queue depth over the last hour; it peaks at 02:14."),
        tool_task(f"{seed}:s4", "Did last night's tests pass?", "ci_logs", {"run": 8812},
                  [text("run 8812: 1 failed, 1180 passed"), text(pytest_text(f"{seed}:s4", 2 * KB))],
                  "One failure: test_flush_checkpoint_857."),
    ]


def short_settled(seed: str) -> list[list[Message]]:
    """Returns two short settled tasks."""
    return [qa(f"{seed}:a", "What's the on-call rota this week?", "Dana, then Ravi from Thursday."),
            tool_task(f"{seed}:b", "Is the staging deploy green?", "deploy_status", {"env": "staging"},
                      "green: 14/14 checks", "Yes, staging is green.")]


def step(sid: str, k: int, name: str, args: dict[str, Any], result: Any, *, think: str | None = None,
         lead: list[dict[str, Any]] | None = None, use_extra: dict[str, Any] | None = None,
         result_extra: dict[str, Any] | None = None) -> list[Message]:
    """Returns one tool step of a task in flight: the call (after optional thinking and text) and its result."""
    use = toolu(f"{sid}:{k}")
    blocks: list[dict[str, Any]] = []
    if think is not None:
        blocks.append(thinking(think, f"{sid}:think{k}"))
    blocks += lead or []
    blocks.append(tool_use(use, name, args, **(use_extra or {})))
    return [assistant(blocks), user([tool_result(use, result, **(result_extra or {}))])]


def image(seed: str, **extra: Any) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_base64(seed)},
            **extra}


def image_url(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "url", "url": url}, **extra}


def pdf(seed: str, heading: str, **extra: Any) -> dict[str, Any]:
    lines = [f"{heading} - page 1", "1. Scope: every batch job that writes to the warehouse.",
             "2. A job retries a failed batch at most 5 times, with exponential back-off.",
             "3. Back-off starts at 100 ms and doubles; jitter is +/- 20 %.",
             "4. After the fifth failure the job stops and pages the on-call engineer.",
             f"Reference: {seed}"]
    return {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                           "data": pdf_base64(heading, lines)}, **extra}


def pdf_url(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "document", "source": {"type": "url", "url": url}, **extra}


def plain_document(data: str, **extra: Any) -> dict[str, Any]:
    return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": data}, **extra}


def search_result(url: str, title: str, passages: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "search_result", "source": url, "title": title,
            "content": [text(p) for p in passages], **extra}


CITED = {"citations": {"enabled": True}}


def with_unknown_fields(messages: list[Message], seed: str) -> list[Message]:
    """Returns a copy of the messages with a field the API does not define on every block, nested
    blocks of tool results included (as a newer API version or a client library might add)."""
    def mark(block: Any) -> Any:
        if not isinstance(block, dict):
            return block
        marked = {**block, f"x_{block['type']}_meta": {"seen_by": seed, "schema": "2027-03-01", "flags": [0, False]}}
        if isinstance(block.get("content"), list):
            marked["content"] = [mark(b) for b in block["content"]]
        return marked
    return [{**m, "content": [mark(b) for b in m["content"]]} if isinstance(m["content"], list) else dict(m)
            for m in messages]
