"""The guard's overhead per interaction, next to the time the SDK itself spends on the same call.

Each SDK (anthropic, openai) calls through ``httpx2.MockTransport`` serving a recorded answer: plain,
through ``conformance.guard.Transport`` judging inline (the default), and through it judging on its
background thread (``background=True``). The SDK's own time is the plain call: building and sending
the request and parsing the response into its types, with no network. The guard's time is timed
where it runs, not as the difference of two calls' totals (which a noisy machine can make
negative): its transport's time minus the inner transport's on the caller's thread, and its judge's
time on whichever thread judges. Times are CPU seconds of the thread (``time.thread_time``), which
other work on the machine does not stretch; the clients' rounds are interleaved in an order turned
each round, the collector runs between rounds, and each figure is the median of ``--repeat`` rounds.
Bodies: conversations that grow by a turn each call from a history of about 3 KB and 200 KB (each
round a conversation of its own, so its first call is the guard's first sight of it and the rest
resend what came before: the guard decodes each conversation's resent prefix once), a new
conversation every call (nothing resent), a 200 KB history without context management, and a real
recorded OpenAI call. Of the inline time, the decoding is the guard's scan of the request and
decoding of the bodies, timed alone on the same bytes the same way (a conversation's requests in
order); the judging is the rest of its judge's time, and the transport what is left (teeing, the
call's bytes and headers).

A mock transport leaves out what a real exchange costs the SDK (writing the request to a socket,
reading and parsing the answer's bytes), and the guard's judge then runs with its code and data still
in the processor's caches. So the last lines time one conversation over HTTP to a server on
127.0.0.1 (a process of its own serving the recorded answer), plain and through the guard's transport
judging inline: there the judge runs while the SDK reads the answer, after the caller's thread waited
on the socket, and its time is counted on that thread.

    python benchmarks/bench_guard.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOAL = 0.05  # the goal: the guard's overhead at most 5% of the SDK's own time on the call
MODES = ("plain", "inline", "background")  # the clients measured side by side
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


def _conversation_case(size: int) -> tuple[Callable[[int, int], list[dict[str, Any]]], bytes]:
    """Returns ``bodies(round, calls)``: the requests of one conversation of ``calls`` calls, growing
    from a history of ``size`` bytes by a tool call and its result each call (a conversation per
    round, told apart by its first message), and the answer."""
    body, answer = _anthropic_case(size)
    history = body["messages"]

    def bodies(n: int, calls: int) -> list[dict[str, Any]]:
        messages = [{"role": "user", "content": f"conversation {n}: " + "lorem ipsum " * 40}, *history[1:]]
        found = []
        for k in range(calls):
            found.append({**body, "messages": list(messages)})
            messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"c{k}", "name": "read",
                                                            "input": {"p": f"c{k}"}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"c{k}",
                                                       "content": "y" * 400}]}]
        return found

    return bodies, answer


def _fixed(body: dict[str, Any]) -> Callable[[int, int], list[dict[str, Any]]]:
    """Returns ``bodies(round, calls)`` sending ``body`` on every call."""
    return lambda n, calls: [body] * calls


def _fresh(size: int) -> Callable[[int, int], list[dict[str, Any]]]:
    """Returns ``bodies(round, calls)``: every call the first of a conversation of its own (nothing resent)."""
    body, _ = _anthropic_case(size)

    def bodies(n: int, calls: int) -> list[dict[str, Any]]:
        return [{**body, "messages": [{"role": "user", "content": f"conversation {n}.{k}"}, *body["messages"][1:]]}
                for k in range(calls)]

    return bodies


def _openai_case() -> tuple[dict[str, Any], bytes]:
    import yaml

    last = yaml.safe_load((ROOT / "cassettes" / "emulator-openai" / "openai-trigger.mid-task.yaml").read_text())
    interaction = last["interactions"][-1]
    body = interaction["response"]["body"]
    return json.loads(interaction["request"]["body"]), (body["string"] if isinstance(body, dict) else body).encode()


class _Clock:
    """CPU seconds of the calling thread spent inside the calls ``wrap`` times, summed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls: list[tuple[Any, ...]] = []  # the arguments of each call since the last reset

    def wrap(self, call: Callable[..., Any]) -> Callable[..., Any]:
        """Returns ``call`` timed on whichever thread runs it (its arguments kept in ``last``)."""

        def timed(*args: Any) -> Any:
            self.calls.append(args)
            started = time.thread_time()
            try:
                return call(*args)
            finally:
                self.seconds += time.thread_time() - started

        return timed


def _stopping(exchanges: list[tuple[Any, ...]]) -> None:
    """Decodes the exchanges' bodies in order as ``conformance.guard.Guard`` does after its one scan
    of each request (a conversation's resent prefix decoded once), and stops (the share of the
    judging that is decoding)."""
    from urllib.parse import urlsplit

    from conformance.guard import Guard
    from conformance.guard import judge as guarding
    from conformance.guard.prefix import Conversations

    decoder, guard = Conversations(), Guard()
    for url, _method, request, response, status, *rest in exchanges:
        if guard.passes_unparsed(urlsplit(url).path, request, response, status) is None:
            decoder.decode(request)
            guarding._answer(response, rest[1] if len(rest) > 1 else "", "event-stream" in (rest[0] if rest else ""))


def measure(sdk: str, bodies: Callable[[int, int], list[dict[str, Any]]], answer: bytes, rounds: int,
            repeat: int = 15) -> dict[str, float]:
    """Returns CPU seconds per call, each the median over ``repeat`` interleaved rounds of ``rounds``
    calls: ``sdk`` (the plain client's call), the guard's own time on the caller's thread judging
    inline (``inline``) and with ``background=True`` (``caller``), that plus the guard thread's
    (``total``), and of the inline time the judging (``judging``) and the decoding (``decoding``).
    The guard's time is timed where it runs (the transport minus the inner transport it calls, the
    judge on its thread), not as a difference of two calls' totals."""
    import httpx2

    from conformance.guard import Guard, Transport

    def served(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=answer, headers={"content-type": "application/json"})

    def make(mode: str) -> tuple[Any, Callable[[], None], dict[str, _Clock]]:
        inner = httpx2.MockTransport(served)
        clocks = {"outer": _Clock(), "inner": _Clock(), "judge": _Clock()}
        transport: Any = inner
        after: Callable[[], None] = lambda: None  # noqa: E731
        if mode != "plain":
            guard = Guard(policy=lambda j: None)
            guard.judge = clocks["judge"].wrap(guard.judge)  # type: ignore[method-assign]
            transport = Transport(inner, guard=guard, background=mode == "background")
            transport.handle_request = clocks["outer"].wrap(transport.handle_request)
            inner.handle_request = clocks["inner"].wrap(inner.handle_request)  # type: ignore[method-assign]
            after = transport.flush
        client = httpx2.Client(transport=transport)
        if sdk == "anthropic":
            import anthropic

            return anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=client), after, clocks
        import openai

        return openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=client), after, clocks

    def call(client: Any, body: dict[str, Any]) -> Any:
        if sdk == "anthropic":
            return client.beta.messages.create(**body, betas=[BETA])
        return client.responses.create(**body)

    clients = {mode: make(mode) for mode in MODES}
    for client, after, _ in clients.values():  # warm: imports, first-call set-up, the guard's thread
        call(client, bodies(-1, 1)[0]), after()
    samples: dict[str, list[float]] = {name: [] for name in ("sdk", "inline", "caller", "total", "judging", "decoding")}
    for n in range(repeat):  # interleaved, in an order turned each round: noise hits every client alike
        sent = bodies(n, rounds)  # (the same calls for every client)
        for mode in MODES[n % len(MODES):] + MODES[:n % len(MODES)]:
            client, after, clocks = clients[mode]
            for clock in clocks.values():
                clock.seconds = 0.0
                clock.calls = []
            gc.collect()
            gc.disable()  # (when a collection falls would differ from one client to the next)
            try:
                started = time.thread_time()
                for body in sent:
                    call(client, body)
                after()
                spent = time.thread_time() - started
            finally:
                gc.enable()
            own = (clocks["outer"].seconds - clocks["inner"].seconds) / rounds
            if mode == "plain":
                samples["sdk"].append(spent / rounds)
            elif mode == "inline":
                samples["inline"].append(own)
                samples["judging"].append(clocks["judge"].seconds / rounds)
            else:
                samples["caller"].append(own)
                samples["total"].append(own + clocks["judge"].seconds / rounds)
        exchanges = clients["inline"][2]["judge"].calls
        started = time.thread_time()
        _stopping(exchanges)
        samples["decoding"].append((time.thread_time() - started) / rounds)
    return {name: statistics.median(values) for name, values in samples.items()}


SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
answer = sys.stdin.buffer.read()
class Served(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Served)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def over_http(bodies: Callable[[int, int], list[dict[str, Any]]], answer: bytes, rounds: int,
              repeat: int = 15) -> dict[str, float]:
    """Returns CPU seconds per call of the caller's thread, each the median over ``repeat``
    interleaved rounds: the anthropic SDK's plain call over HTTP to a server on 127.0.0.1 (``sdk``),
    and the guard's own time when it judges inline (``inline``: its transport minus the inner one,
    plus its judge, which runs while the SDK reads the answer)."""
    import subprocess

    import anthropic
    import httpx2

    from conformance.guard import Guard, Transport

    server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(answer)
        server.stdin.close()
        url = f"http://127.0.0.1:{int(server.stdout.readline())}"
        clocks = {"outer": _Clock(), "inner": _Clock(), "judge": _Clock()}
        guard = Guard(policy=lambda j: None)
        guard.judge = clocks["judge"].wrap(guard.judge)  # type: ignore[method-assign]
        inner = httpx2.HTTPTransport()
        transport = Transport(inner, guard=guard)
        transport.handle_request = clocks["outer"].wrap(transport.handle_request)  # type: ignore[method-assign]
        inner.handle_request = clocks["inner"].wrap(inner.handle_request)  # type: ignore[method-assign]
        clients = {"plain": anthropic.Anthropic(api_key="k", base_url=url, http_client=httpx2.Client()),
                   "inline": anthropic.Anthropic(api_key="k", base_url=url,
                                                 http_client=httpx2.Client(transport=transport))}
        for client in clients.values():
            client.beta.messages.create(**bodies(-1, 1)[0], betas=[BETA])
        samples: dict[str, list[float]] = {"sdk": [], "inline": []}
        for n in range(repeat):
            sent = bodies(n, rounds)
            for mode in (("plain", "inline") if n % 2 == 0 else ("inline", "plain")):
                for clock in clocks.values():
                    clock.seconds = 0.0
                    clock.calls = []
                gc.collect()
                gc.disable()
                try:
                    started = time.thread_time()
                    for body in sent:
                        clients[mode].beta.messages.create(**body, betas=[BETA])
                    spent = time.thread_time() - started
                finally:
                    gc.enable()
                if mode == "plain":
                    samples["sdk"].append(spent / rounds)
                else:
                    samples["inline"].append((clocks["outer"].seconds - clocks["inner"].seconds
                                              + clocks["judge"].seconds) / rounds)
        for client in clients.values():
            client.close()
    finally:
        server.kill()
        server.wait()
    return {name: statistics.median(values) for name, values in samples.items()}


def report(repeat: int = 15) -> list[str]:
    """Returns the lines of the guard's overhead table and the goal's line."""
    openai_body, openai_answer = _openai_case()
    large_body, large_answer = _anthropic_case(200_000, managed=False)
    cases = [("anthropic", "conversation from 3 KB, +1 turn a call", *_conversation_case(3_000), 100),
             ("anthropic", "conversation from 200 KB, +1 turn a call", *_conversation_case(200_000), 20),
             ("anthropic", "new conversation every call (3 KB)", _fresh(3_000), _anthropic_case(3_000)[1], 100),
             ("anthropic", "large, no context management", _fixed(large_body), large_answer, 20),
             ("openai", "recorded compaction_trigger call", _fixed(openai_body), openai_answer, 100)]
    lines = [f"guard overhead per interaction (mock transport, no network; CPU microseconds per call, median of {repeat} "
             f"interleaved rounds; load average {os.getloadavg()[0]:.1f} at start):",
             "  inline: judged on the caller's thread (the default); background: background=True, the caller's thread",
             "  only queues the call, and the total counts the guard's thread too (the CPU the machine spends on it)",
             f"  {'SDK':<10}{'body':<42}{'SDK call':>9}{'inline':>8}{'share':>7}"
             f"{'caller':>8}{'share':>7}{'total':>8}{'share':>7}"]
    shares: dict[str, list[float]] = {"inline": [], "caller": [], "total": []}
    parts = ["  where the inline time goes (CPU microseconds per call): transport: the guard's transport outside its",
             "  judge (teeing, the call's bytes and headers); decoding: the scan of the request and the bodies decoded",
             "  as the guard does, timed alone on the same bytes; judging: the rest (the judges, the index of earlier",
             "  calls, policies)",
             f"  {'SDK':<10}{'body':<42}{'transport':>10}{'decoding':>9}{'judging':>8}"]
    for sdk, label, bodies, answer, rounds in cases:
        found = measure(sdk, bodies, answer, rounds, repeat)
        plain = found["sdk"]
        row = f"  {sdk:<10}{label:<42}{plain * 1e6:>9.0f}"
        for name in shares:
            shares[name].append(found[name] / plain)
            row += f"{found[name] * 1e6:>8.0f}{found[name] / plain:>7.1%}"
        lines.append(row)
        parts.append(f"  {sdk:<10}{label:<42}{(found['inline'] - found['judging']) * 1e6:>10.0f}"
                     f"{found['decoding'] * 1e6:>9.0f}{(found['judging'] - found['decoding']) * 1e6:>8.0f}")
    bodies, answer = _conversation_case(3_000)
    http = over_http(bodies, answer, 50, repeat)
    beside = ["  over HTTP to a server on 127.0.0.1 (the guard's inline time: its transport and its judge, which runs",
              "  while the SDK reads the answer)",
              f"  {'SDK':<10}{'body':<42}{'SDK call':>9}{'inline':>8}{'share':>7}",
              f"  {'anthropic':<10}{'conversation from 3 KB, +1 turn a call':<42}{http['sdk'] * 1e6:>9.0f}"
              f"{http['inline'] * 1e6:>8.0f}{http['inline'] / http['sdk']:>7.1%}"]
    under = {name: sum(s <= GOAL for s in found) for name, found in shares.items()}
    lines.append(f"goal: the guard's overhead at most {GOAL:.0%} of the SDK call. Judged inline: {under['inline']} of "
                 f"{len(cases)} rows within it; on the caller's thread with background=True: {under['caller']} of "
                 f"{len(cases)}; total CPU with background=True: {under['total']} of {len(cases)}")
    return lines + parts + beside


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="interleaved rounds of each mode (default 15); the median difference is kept")
    print("\n".join(report(parser.parse_args().repeat)))
