"""The guard's overhead per interaction, next to the time the SDK itself spends on the same call.

Each SDK (anthropic, openai) calls through ``httpx2.MockTransport`` serving a recorded answer: plain,
through ``conformance.guard.Transport`` judging inline (the default), and through it judging on its
background thread (``background=True``). The difference per call is the guard's overhead (parsing
the request body, decoding the response, judging). The SDK's own time is the plain call: building
and sending the request and parsing the response into its types, with no network. Times are CPU
seconds, which other work on the machine does not stretch: of the caller's thread
(``time.thread_time``) and of the whole process, the guard's thread included (``time.process_time``,
each background round waiting until every call it made is judged). Rounds of the four clients are
interleaved and the best of ``--repeat`` rounds is kept, so a shared machine's noise hits all alike.
Bodies: a real recorded interaction, and one with a history of about 200 KB. Where the inline time
goes is measured in the same rounds by two more clients whose guard stops early: handing each call
to a judge that does nothing (the transport: teeing, the call's bytes and headers), and decoding
the bodies as the guard does after its one scan of the request (the decoding); the judging is the
rest.

    python benchmarks/bench_guard.py [--repeat 9]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL = 0.05  # the goal: the guard's overhead under 5% of the SDK's own time on the call
MODES = ("plain", "transport", "decoding", "inline", "background")
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


def _rounds(client: Any, call: Callable[[Any], Any], rounds: int, after: Callable[[], None]) -> tuple[float, float]:
    """Returns CPU seconds per call (of the caller's thread, of the whole process) over ``rounds``
    calls, ``after()`` (waiting for the guard's thread) included."""
    thread, process = time.thread_time(), time.process_time()
    for _ in range(rounds):
        call(client)
    after()
    return (time.thread_time() - thread) / rounds, (time.process_time() - process) / rounds


class _Stopping:
    """A guard that stops early: ``decode`` False hands each call on and does nothing; True decodes
    the bodies as ``conformance.guard.Guard`` does (after its one scan of the request) and stops."""

    policies: list[Callable[[Any], Any]] = []

    def __init__(self, decode: bool) -> None:
        self.decode = decode

    def judge(self, url: str, method: str, request: bytes, response: bytes, status: int | None,
              content_type: str = "", encoding: str = "") -> None:
        """Returns nothing; decodes the bodies when ``decode`` (raises what decoding raises)."""
        from urllib.parse import urlsplit

        from conformance import _json
        from conformance.guard import judge as guarding

        if self.decode and not guarding._plain_messages(urlsplit(url).path, request):
            _json.loads(request)
            guarding._answer(response, encoding, "event-stream" in content_type)


def measure(sdk: str, body: dict[str, Any], answer: bytes, rounds: int, repeat: int = 9) -> dict[str, tuple[float, float]]:
    """Returns, per mode (``MODES``), the best CPU seconds per call of one SDK call answered by
    ``answer``: (caller's thread, whole process)."""
    import httpx2

    from conformance.guard import Transport

    def served(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=answer, headers={"content-type": "application/json"})

    def make(mode: str) -> tuple[Any, Callable[[], None]]:
        inner = httpx2.MockTransport(served)
        guard: Transport | None = None
        if mode in ("transport", "decoding"):
            guard = Transport(inner, guard=_Stopping(decode=mode == "decoding"))
        elif mode != "plain":
            guard = Transport(inner, policy=lambda j: None, background=mode == "background")
        client = httpx2.Client(transport=guard or inner)
        after = guard.flush if guard is not None else (lambda: None)
        if sdk == "anthropic":
            import anthropic

            return anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=client), after
        import openai

        return openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=client), after

    def call(client: Any) -> Any:
        if sdk == "anthropic":
            return client.beta.messages.create(**body, betas=[BETA])
        return client.responses.create(**body)

    clients = {mode: make(mode) for mode in MODES}
    for client, after in clients.values():  # warm: imports, first-call set-up, the guard's thread
        call(client), after()
    best = {mode: (float("inf"), float("inf")) for mode in MODES}
    for _ in range(repeat):  # interleaved: a shared machine's noise hits every mode alike
        for mode, (client, after) in clients.items():
            thread, process = _rounds(client, call, rounds, after)
            best[mode] = (min(best[mode][0], thread), min(best[mode][1], process))
    return best


def report(repeat: int = 9) -> list[str]:
    """Returns the lines of the guard's overhead table and the goal's line."""
    cases = [("anthropic", "real-sized (3 KB history)", *_anthropic_case(3_000), 200),
             ("anthropic", "large (200 KB history)", *_anthropic_case(200_000), 40),
             ("anthropic", "large, no context management", *_anthropic_case(200_000, managed=False), 40),
             ("openai", "recorded compaction_trigger call", *_openai_case(), 200)]
    lines = [f"guard overhead per interaction (mock transport, no network; CPU microseconds per call, best of {repeat}, "
             f"interleaved; load average {os.getloadavg()[0]:.1f} at start):",
             "  inline: judged on the caller's thread (the default); background: background=True, the caller's thread",
             "  only queues the call, and the total counts the guard's thread too (the CPU the machine spends on it)",
             f"  {'SDK':<10}{'body':<34}{'SDK call':>9}{'inline':>8}{'share':>7}"
             f"{'caller':>8}{'share':>7}{'total':>8}{'share':>7}"]
    shares: dict[str, list[float]] = {"inline": [], "caller": [], "total": []}
    parts = ["  where the inline time goes (CPU microseconds per call; differences between clients whose guard stops",
             "  early): transport: each call handed to a judge that does nothing; decoding: the scan of the request and",
             "  the bodies decoded as the guard does; judging: the rest (the judges, the index of earlier calls, policies)",
             f"  {'SDK':<10}{'body':<34}{'transport':>10}{'decoding':>9}{'judging':>8}"]
    for sdk, label, body, answer, rounds in cases:
        best = measure(sdk, body, answer, rounds, repeat)
        plain = best["plain"][1]
        found = {"inline": best["inline"][1] - plain, "caller": best["background"][0] - best["plain"][0],
                 "total": best["background"][1] - plain}
        row = f"  {sdk:<10}{label:<34}{plain * 1e6:>9.0f}"
        for name, extra in found.items():
            shares[name].append(extra / plain)
            row += f"{extra * 1e6:>8.0f}{extra / plain:>7.1%}"
        lines.append(row)
        transport, decoding = best["transport"][1], best["decoding"][1]
        parts.append(f"  {sdk:<10}{label:<34}{(transport - plain) * 1e6:>10.0f}{(decoding - transport) * 1e6:>9.0f}"
                     f"{(best['inline'][1] - decoding) * 1e6:>8.0f}")
    under = {name: sum(s < GOAL for s in found) for name, found in shares.items()}
    lines.append(f"goal: overhead under {GOAL:.0%} of the SDK call, compared on the caller's thread with background=True: "
                 f"{under['caller']} of {len(cases)} rows under it; judged inline: {under['inline']} of {len(cases)}; "
                 f"total CPU with background=True: {under['total']} of {len(cases)}")
    return lines + parts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="rounds of each mode; the best is kept")
    print("\n".join(report(parser.parse_args().repeat)))
