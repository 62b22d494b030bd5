"""The guard's overhead per interaction, next to the time the SDK itself spends on the same call.

Each SDK (anthropic, openai) calls through ``httpx2.MockTransport`` serving a recorded answer, once
plain and once with ``conformance.guard.Transport`` around the mock; the difference per call is the
guard's overhead (parsing the request body, decoding the response, judging). The SDK's own time is
the plain call: building and sending the request and parsing the response into its types, with no
network. Times are CPU seconds of the process, which other work on the machine does not stretch. Bodies: a real recorded interaction, and one with a history of about 200 KB.

    python benchmarks/bench_guard.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BETA = "context-management-2025-06-27"


def _history(target: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    n = 0
    while len(json.dumps(found)) < target:
        found += [{"role": "user", "content": f"earlier request {n}: " + "lorem ipsum " * 40},
                  {"role": "assistant", "content": [{"type": "text", "text": "done. " * 60}]}]
        n += 1
    return found


def _anthropic_case(size: int, managed: bool = True) -> tuple[dict[str, Any], bytes]:
    tail = [{"role": "user", "content": [{"type": "text", "text": "task B"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "b1", "name": "read", "input": {"p": "b1"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "x" * 400}]}]
    body = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": [*_history(size), *tail],
            "context_management": {"edits": [{"type": "clear_tool_uses_20250919",
                                              "keep": {"type": "tool_uses", "value": 1}}]}}
    if not managed:
        del body["context_management"]
    answer = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
              "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok " * 200}],
              "context_management": {"applied_edits": []}, "usage": {"input_tokens": 100, "output_tokens": 5}}
    return body, json.dumps(answer).encode()


def _openai_case() -> tuple[dict[str, Any], bytes]:
    import yaml

    last = yaml.safe_load((ROOT / "cassettes" / "emulator-openai" / "openai-trigger.mid-task.yaml").read_text())
    interaction = last["interactions"][-1]
    body = interaction["response"]["body"]
    return json.loads(interaction["request"]["body"]), (body["string"] if isinstance(body, dict) else body).encode()


def _rounds(client: Any, call: Any, rounds: int) -> float:
    started = time.process_time()  # CPU seconds of this process: other work on the machine does not stretch them
    for _ in range(rounds):
        call(client)
    return (time.process_time() - started) / rounds


def measure(sdk: str, body: dict[str, Any], answer: bytes, rounds: int) -> tuple[float, float]:
    """Returns seconds per call (plain, guarded) of one SDK call answered by ``answer``."""
    import httpx2

    from conformance.guard import Transport

    def served(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=answer, headers={"content-type": "application/json"})

    def make(guarded: bool) -> Any:
        inner = httpx2.MockTransport(served)
        transport = Transport(inner, policy=lambda j: None) if guarded else inner
        client = httpx2.Client(transport=transport)
        if sdk == "anthropic":
            import anthropic

            return anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=client)
        import openai

        return openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=client)

    def call(client: Any) -> Any:
        if sdk == "anthropic":
            return client.beta.messages.create(**body, betas=[BETA])
        return client.responses.create(**body)

    plain, guarded = make(False), make(True)
    call(plain), call(guarded)  # warm: imports, first-call set-up
    times: dict[bool, float] = {False: float("inf"), True: float("inf")}
    for _ in range(5):  # interleaved, best of five each: a shared machine's noise hits both alike
        times[False] = min(times[False], _rounds(plain, call, rounds))
        times[True] = min(times[True], _rounds(guarded, call, rounds))
    return times[False], times[True]


def report() -> list[str]:
    """Returns the lines of the guard's overhead table."""
    cases = [("anthropic", "real-sized (3 KB history)", *_anthropic_case(3_000), 200),
             ("anthropic", "large (200 KB history)", *_anthropic_case(200_000), 40),
             ("anthropic", "large, no context management", *_anthropic_case(200_000, managed=False), 40),
             ("openai", "recorded compaction_trigger call", *_openai_case(), 200)]
    lines = ["guard overhead per interaction (mock transport, no network; CPU microseconds, best of 5, interleaved):",
             f"  {'SDK':<10}{'body':<34}{'SDK call us':>12}{'guarded us':>12}{'overhead us':>12}{'share':>8}"]
    for sdk, label, body, answer, rounds in cases:
        plain, guarded = measure(sdk, body, answer, rounds)
        lines.append(f"  {sdk:<10}{label:<34}{plain * 1e6:>12.0f}{guarded * 1e6:>12.0f}"
                     f"{(guarded - plain) * 1e6:>12.0f}{(guarded - plain) / plain:>8.1%}")
    return lines


if __name__ == "__main__":
    print("\n".join(report()))
