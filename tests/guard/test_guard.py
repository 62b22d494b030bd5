"""``conformance.guard``: both SDKs, streamed and not, sync and async, through the guard transport over
a mock transport that serves recorded answers; a call whose context management reached a task in
flight alerts (log, raise after the response, callback, OpenTelemetry) and a settled one does not."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

from conformance.guard import AsyncTransport, GuardAlert, Transport
from conformance.provider.analyze.model import Judgement

if TYPE_CHECKING:  # the SDKs are imported where a test builds a client, not at collection
    import anthropic
    import openai

from ..provider.test_analyze import HISTORY, REASONING, cleared, final, message, request, result, tool_edit, user
from .._yaml import load_yaml

ROOT = Path(__file__).resolve().parents[2]
OPENAI = ROOT / "cassettes" / "emulator-openai"
BETA = "context-management-2025-06-27"


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def messages_stream(body: dict[str, Any]) -> bytes:
    """Returns the Messages event stream that reassembles into ``body``."""
    start = {**body, "content": [], "stop_reason": None}
    start.pop("context_management", None)
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for n, block in enumerate(body["content"]):
        events += [{"type": "content_block_start", "index": n, "content_block": {**block, "text": ""}},
                   {"type": "content_block_delta", "index": n, "delta": {"type": "text_delta", "text": block["text"]}},
                   {"type": "content_block_stop", "index": n}]
    events += [{"type": "message_delta", "delta": {"stop_reason": body["stop_reason"]}, "usage": body["usage"],
                "context_management": body["context_management"]}, {"type": "message_stop"}]
    return sse(events)


def responses_stream(body: dict[str, Any]) -> bytes:
    """Returns the Responses event stream whose terminal event carries ``body``."""
    return sse([{"type": "response.created", "sequence_number": 0, "response": {**body, "output": [],
                                                                                 "status": "in_progress"}},
                {"type": "response.completed", "sequence_number": 1, "response": body}])


class Chunks(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body that arrives in pieces, as from the network (a plain ``content=`` body is read at once)."""

    def __init__(self, body: bytes | list[bytes], size: int = 97) -> None:
        self.parts = body if isinstance(body, list) else [body[i:i + size] for i in range(0, len(body), size)]
        self.handed: list[bytes] = []

    def __iter__(self) -> Any:
        for part in self.parts:
            self.handed.append(part)
            yield part

    async def __aiter__(self) -> Any:
        for part in self.parts:
            self.handed.append(part)
            yield part


def packed_events(stream: bytes, encoding: str) -> list[bytes]:
    """Returns an event stream compressed in ``encoding`` (gzip, deflate, br, zstd) as a streaming
    server sends it: one piece per event, each flushed so that it decompresses as it comes."""
    import zlib

    import brotli
    import zstandard

    events = [event + b"\n\n" for event in stream.split(b"\n\n") if event]
    if encoding in ("gzip", "deflate"):
        deflating = zlib.compressobj(wbits=31 if encoding == "gzip" else 15)
        return [deflating.compress(event) + deflating.flush(zlib.Z_SYNC_FLUSH) for event in events] + [deflating.flush()]
    if encoding == "br":
        packing = brotli.Compressor()
        return [packing.process(event) + packing.flush() for event in events] + [packing.finish()]
    zstd = zstandard.ZstdCompressor().compressobj()
    return [zstd.compress(event) + zstd.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) for event in events] + [zstd.flush()]


class Served:
    """A mock transport's handler: answers each call with the next recorded (body, content type),
    streamed in chunks unless ``whole``."""

    def __init__(self, *answers: tuple[bytes, str], whole: bool = False) -> None:
        self.answers = list(answers)
        self.whole = whole
        self.seen: list[str] = []

    def __call__(self, req: httpx2.Request) -> httpx2.Response:
        self.seen.append(req.url.path)
        body, kind = self.answers.pop(0)
        if self.whole:
            return httpx2.Response(200, content=body, headers={"content-type": kind})
        return httpx2.Response(200, stream=Chunks(body), headers={"content-type": kind})


def _anthropic(served: Served, **guard: Any) -> anthropic.Anthropic:
    import anthropic

    transport = Transport(httpx2.MockTransport(served), **guard)
    return anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.Client(transport=transport))


def _openai(served: Served, **guard: Any) -> openai.OpenAI:
    import openai

    transport = Transport(httpx2.MockTransport(served), **guard)
    return openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=httpx2.Client(transport=transport))


REACHED = message(applied=[cleared(1, 4000)])  # clears b1, the tool result of the task in flight
SETTLED = message(applied=[cleared(2, 3000)])  # clears a1 and a2, both settled
JSON = "application/json"
EVENTS = "text/event-stream"


def recorded(name: str) -> tuple[dict[str, Any], str, str]:
    """Returns the request body, the raw response body and its content type of a shipped cassette's last call."""
    last = load_yaml((OPENAI / f"{name}.yaml").read_text())["interactions"][-1]
    body = last["response"]["body"]
    return json.loads(last["request"]["body"]), body["string"] if isinstance(body, dict) else body, \
        last["response"]["headers"]["content-type"][0]


def test_anthropic_not_streamed_raises_after_a_reached_response_and_passes_a_settled_one() -> None:
    served = Served((json.dumps(REACHED).encode(), JSON), (json.dumps(SETTLED).encode(), JSON))
    seen: list[Judgement] = []
    client = _anthropic(served, policy=["raise", seen.append])
    body = request(HISTORY, tool_edit(keep=1))
    with pytest.raises(GuardAlert) as alert:
        client.beta.messages.create(**body, betas=[BETA])
    assert alert.value.judgement.verdict == "reached-live-task" and "result of b1" in str(alert.value)
    answer = client.beta.messages.create(**body, betas=[BETA])
    assert answer.content[0].text == "ok" and [j.verdict for j in seen] == ["reached-live-task"]
    assert served.seen == ["/v1/messages", "/v1/messages"]


def test_anthropic_streamed_hands_on_every_event_then_alerts(caplog: pytest.LogCaptureFixture) -> None:
    served = Served((messages_stream(REACHED), EVENTS), (messages_stream(SETTLED), EVENTS))
    client = _anthropic(served, policy="log")
    body = request(HISTORY, tool_edit(keep=1))
    with caplog.at_level(logging.WARNING, logger="conformance.guard"):
        events = [e.type for e in client.beta.messages.create(**body, betas=[BETA], stream=True)]
        assert events[0] == "message_start" and events[-1] == "message_stop"
        assert [r.message for r in caplog.records] and "reached-live-task" in caplog.records[0].getMessage()
        caplog.clear()
        list(client.beta.messages.create(**body, betas=[BETA], stream=True))
        assert caplog.records == []


@pytest.mark.slow
def test_openai_not_streamed_and_streamed(caplog: pytest.LogCaptureFixture) -> None:
    reached_request, reached_body, kind = recorded("openai-trigger.mid-task")
    settled_request, settled_body, settled_kind = recorded("openai-threshold.settled-stream")
    assert settled_kind.startswith(EVENTS) and kind == JSON
    served = Served((reached_body.encode(), JSON), (responses_stream(json.loads(reached_body)), EVENTS),
                    (settled_body.encode(), EVENTS))
    seen: list[Judgement] = []
    client = _openai(served, policy=seen.append)
    answer = client.responses.create(**reached_request)
    assert answer.id and [j.verdict for j in seen] == ["reached-live-task"]
    streamed = [e.type for e in client.responses.create(**reached_request, stream=True)]
    assert streamed[-1] == "response.completed" and [j.verdict for j in seen][-1] == "reached-live-task"
    assert len(seen) == 2
    list(client.responses.create(**settled_request))
    assert len(seen) == 2  # the settled stream does not alert


def test_async_clients_are_judged_too() -> None:
    import anthropic

    seen: list[Judgement] = []

    async def run() -> None:
        transport = AsyncTransport(httpx2.MockTransport(Served((messages_stream(REACHED), EVENTS))), policy=seen.append)
        client = anthropic.AsyncAnthropic(api_key="k", base_url="http://127.0.0.1:9",
                                          http_client=httpx2.AsyncClient(transport=transport))
        stream = await client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True)
        assert [e.type async for e in stream][-1] == "message_stop"

    asyncio.run(run())
    assert [j.verdict for j in seen] == ["reached-live-task"]


def test_opentelemetry_event_and_metric() -> None:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider

    from conformance.guard import Guard, policies

    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    policies._counter = provider.get_meter("conformance.guard").create_counter(policies.METRIC)
    try:
        client = _anthropic(Served((json.dumps(REACHED).encode(), JSON), (json.dumps(SETTLED).encode(), JSON)),
                            policy="otel-metric")
        for _ in range(2):
            client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
        points = [p for m in reader.get_metrics_data().resource_metrics for s in m.scope_metrics
                  for metric in s.metrics for p in metric.data.data_points]
        assert [(p.value, p.attributes["conformance.verdict"]) for p in points] == [(1, "reached-live-task")]
    finally:
        policies._counter = None
    guard = Guard("otel-event")
    with TracerProvider().get_tracer("test").start_as_current_span("call") as span:
        guard.judge("https://api.anthropic.com/v1/messages", "POST", json.dumps(request(HISTORY, tool_edit())).encode(),
                    json.dumps(REACHED).encode(), 200, JSON)
        guard.judge("https://api.anthropic.com/v1/messages", "POST", json.dumps(request(HISTORY, tool_edit())).encode(),
                    json.dumps(SETTLED).encode(), 200, JSON)
    assert [(e.name, e.attributes["conformance.verdict"]) for e in span.events] == [
        ("conformance.guard.alert", "reached-live-task")]


def test_no_reasoning_text_reaches_a_log_or_an_alert(caplog: pytest.LogCaptureFixture) -> None:
    history = [user("task A"), final("A done", thinking=REASONING), user("task B"),
               {"role": "assistant", "content": [{"type": "thinking", "thinking": REASONING, "signature": "s"},
                                                 {"type": "tool_use", "id": "b1", "name": "read", "input": {}}]},
               result("b1", 10)]
    body = request(history, {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
                   thinking={"type": "enabled", "budget_tokens": 1024})
    answer = message({"type": "thinking", "thinking": REASONING, "signature": "s"}, {"type": "text", "text": "ok"},
                     applied=[{"type": "clear_thinking_20251015", "cleared_thinking_turns": 1,
                               "cleared_input_tokens": 12}])
    seen: list[Judgement] = []
    client = _anthropic(Served((json.dumps(answer).encode(), JSON)), policy=["log", seen.append], alert_on={
        "reached-live-task", "inconsistent", "settled-only", "cannot-tell", "no-edit"})
    with caplog.at_level(logging.DEBUG):
        client.beta.messages.create(**body, betas=[BETA])
    assert seen and caplog.records
    ours = [r.getMessage() for r in caplog.records if r.name == "conformance.guard"]
    assert ours
    for text in [*ours, *(json.dumps(j.to_dict()) for j in seen)]:
        assert "PLANTED-REASONING" not in text and "first I will look" not in text


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown guard policy 'page'"):
        Transport(httpx2.MockTransport(Served()), policy="page")


def test_every_byte_is_handed_on_before_the_judgement() -> None:
    import anthropic

    chunks = Chunks(messages_stream(REACHED), size=50)
    seen: list[Judgement] = []
    transport = Transport(httpx2.MockTransport(lambda r: httpx2.Response(200, stream=chunks,
                                                                         headers={"content-type": EVENTS})),
                          policy=seen.append)
    client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.Client(transport=transport))
    stream = client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True)
    events = iter(stream)
    assert next(events).type == "message_start"
    assert seen == [] and len(chunks.handed) < len(chunks.parts)  # the SDK reads on while nothing is judged
    assert [e.type for e in events][-1] == "message_stop"
    assert [j.verdict for j in seen] == ["reached-live-task"] and len(chunks.handed) == len(chunks.parts)


def test_a_call_without_context_management_passes_unjudged_and_a_managed_one_is_not_missed() -> None:
    seen: list[Judgement] = []
    plain = {k: v for k, v in request(HISTORY).items() if k != "context_management"}
    client = _anthropic(Served((json.dumps(message()).encode(), JSON), (json.dumps(REACHED).encode(), JSON)),
                        policy=[], on_judgement=seen.append)
    client.messages.create(**plain)
    client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert [j.verdict for j in seen] == ["not-judged", "reached-live-task"]


def test_a_broken_callback_never_makes_the_sdk_send_a_call_again(caplog: pytest.LogCaptureFixture) -> None:
    def broken(found: Judgement) -> None:
        raise ValueError("callback bug")

    served = Served((json.dumps(REACHED).encode(), JSON), (json.dumps(SETTLED).encode(), JSON))
    client = _anthropic(served, policy=broken)
    with caplog.at_level(logging.WARNING, logger="conformance.guard"):
        answer = client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert answer.content[0].text == "ok" and served.seen == ["/v1/messages"]  # sent once, not retried
    assert "a guard policy raised ValueError" in caplog.text


def test_on_the_background_thread_a_callback_gets_each_verdict_in_order_once_flushed() -> None:
    served = Served(*[(json.dumps(answer).encode(), JSON) for answer in (REACHED, SETTLED, REACHED)])
    seen: list[tuple[str, str]] = []
    client = _anthropic(served, policy=[], background=True,
                        on_judgement=lambda j: seen.append((j.verdict, threading.current_thread().name)))
    for _ in range(3):
        assert client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA]).content[0].text == "ok"
    client._client._transport.flush()  # type: ignore[attr-defined]  # the SDK types its transport as the base class
    assert seen == [("reached-live-task", "conformance-guard"), ("settled-only", "conformance-guard"),
                    ("reached-live-task", "conformance-guard")]


def test_on_the_background_thread_the_raise_policy_still_raises_after_the_response() -> None:
    served = Served((messages_stream(REACHED), EVENTS), (json.dumps(SETTLED).encode(), JSON))
    client = _anthropic(served, policy="raise", background=True)
    body = request(HISTORY, tool_edit(keep=1))
    stream = client.beta.messages.create(**body, betas=[BETA], stream=True)
    with pytest.raises(GuardAlert) as alert:
        list(stream)
    assert alert.value.judgement.verdict == "reached-live-task"
    assert client.beta.messages.create(**body, betas=[BETA]).content[0].text == "ok"
    assert served.seen == ["/v1/messages", "/v1/messages"]  # sent once each, not retried


def test_on_the_background_thread_an_otel_event_policy_is_run_before_the_sdk_returns_in_the_callers_trace() -> None:
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    seen: list[tuple[str, int]] = []

    def current(found: Judgement) -> None:
        seen.append((found.verdict, trace.get_current_span().get_span_context().span_id))

    client = _anthropic(Served((json.dumps(REACHED).encode(), JSON)), policy=["otel-event", current], background=True)
    with TracerProvider().get_tracer("test").start_as_current_span("call") as span:
        client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
        assert seen == [("reached-live-task", span.get_span_context().span_id)]  # judged before the SDK returned


@pytest.mark.slow
def test_a_full_queue_makes_the_caller_wait_and_loses_no_verdict() -> None:
    from conformance.guard.worker import Worker

    order: list[int] = []
    gate = threading.Event()

    def slow(n: int) -> None:
        gate.wait()
        order.append(n)

    worker = Worker(slow, size=2)
    worker.submit((0,))
    worker.submit((1,))  # two handed in and not judged: the queue is full
    waiting = threading.Thread(target=worker.submit, args=((2,),))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and order == []  # blocked until there is room
    gate.set()
    waiting.join()
    worker.close()
    assert order == [0, 1, 2]


def test_the_background_thread_runs_each_judgement_in_the_callers_context() -> None:
    import contextvars

    from conformance.guard.worker import Worker

    tag: contextvars.ContextVar[str] = contextvars.ContextVar("tag", default="none")
    seen: list[str] = []
    worker = Worker(lambda: seen.append(tag.get()))
    for value in ("a", "b"):
        tag.set(value)
        worker.submit(())
    worker.flush()
    worker.close()
    assert seen == ["a", "b"]


@pytest.mark.slow
def test_the_background_thread_batches_small_calls_and_judges_large_bodies_at_once() -> None:
    from conformance.guard.worker import Worker

    judged: list[str] = []
    done = threading.Event()

    def note(name: str) -> None:
        judged.append(name)
        done.set()

    worker = Worker(note, linger=60.0, batch_bytes=1000)
    worker.submit(("small",), weight=10)
    assert not done.wait(0.3) and judged == []  # lingers for more calls to judge in one batch
    worker.submit(("large",), weight=1000)
    assert done.wait(10.0)  # a large body is not kept waiting
    worker.flush()
    assert judged == ["small", "large"]
    worker.close()


def _dropped_live_thinking() -> tuple[dict[str, Any], bytes]:
    """Returns a request whose task in flight (from message 4) holds a thinking block at messages[5],
    and an event stream whose ``message_start`` says the service dropped it (more events follow)."""
    think = {"type": "thinking", "thinking": "t", "signature": "sig"}
    history = [user("task A"), {"role": "assistant", "content": [think, {"type": "text", "text": "done"}]},
               user("task B"), {"role": "assistant", "content": [{"type": "text", "text": "on it"}]}, user("go"),
               {"role": "assistant", "content": [think, {"type": "tool_use", "id": "b1", "name": "read", "input": {}}]},
               result("b1", 10)]
    start = {"type": "message", "id": "m", "role": "assistant", "model": "claude-fable-5-1", "content": [],
             "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1},
             "input_transformations": [{"type": "thinking_dropped", "path": "messages.5.content.0",
                                        "reason": "prefix_binding_mismatch"}]}
    words = [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "word "}}] * 40
    events = [{"type": "message_start", "message": start},
              {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, *words,
              {"type": "content_block_stop", "index": 0},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40}},
              {"type": "message_stop"}]
    body = request(history, thinking={"type": "enabled", "budget_tokens": 1024,
                                      "block_binding": {"prefix_mismatch_behavior": "drop_block"}})
    return body, sse(events)


def test_a_stream_the_caller_leaves_early_is_judged_on_what_came() -> None:
    body, stream = _dropped_live_thinking()
    seen: list[Judgement] = []
    client = _anthropic(Served((stream, EVENTS), (messages_stream(SETTLED), EVENTS)), on_judgement=seen.append)
    events = client.beta.messages.create(**body, stream=True)
    for event in events:
        if event.type == "content_block_delta":
            break  # the caller stops reading: the drop came in message_start, and is judged
    events.close()
    assert [j.verdict for j in seen] == ["live-reasoning-lost"]
    with client.beta.messages.stream(**request(HISTORY, tool_edit(keep=1)), betas=[BETA]) as left:
        next(iter(left))  # left after the first event: the clearing report at the end never came
    assert seen[-1].verdict == "cannot-tell" and "closed before its end" in seen[-1].evidence[-1]


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd"])
def test_a_compressed_stream_left_early_is_read_as_far_as_it_came(encoding: str) -> None:
    body, stream = _dropped_live_thinking()
    seen: list[Judgement] = []
    transport = Transport(httpx2.MockTransport(lambda req: httpx2.Response(
        200, stream=Chunks(packed_events(stream, encoding)), headers={"content-type": EVENTS, "content-encoding": encoding})),
        on_judgement=seen.append)
    with httpx2.Client(transport=transport) as client, \
            client.stream("POST", "http://127.0.0.1:9/v1/messages", json=body) as response:
        next(response.iter_raw())  # the caller reads the first event and leaves: the rest is never read
    assert [j.verdict for j in seen] == ["live-reasoning-lost"]


def test_a_stream_left_with_a_bare_break_at_its_last_event_raises_in_the_callers_loop() -> None:
    seen: list[Judgement] = []
    client = _anthropic(Served((messages_stream(REACHED), EVENTS)), policy="raise", on_judgement=seen.append)
    reached: list[str] = []
    with pytest.raises(GuardAlert):
        for event in client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True):
            reached.append(event.type)
            if event.type == "message_stop":
                break  # the stream is never closed: only the collector would end it
    assert [j.verdict for j in seen] == ["reached-live-task"]
    assert reached[-1] == "message_delta"  # the alert came before the caller could leave at message_stop


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_a_compressed_stream_left_at_its_last_event_raises_in_the_callers_loop(encoding: str) -> None:
    import anthropic

    packed = packed_events(messages_stream(REACHED), encoding)
    transport = Transport(httpx2.MockTransport(lambda req: httpx2.Response(
        200, stream=Chunks(packed), headers={"content-type": EVENTS, "content-encoding": encoding})), policy="raise")
    client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.Client(transport=transport))
    with pytest.raises(GuardAlert):
        for event in client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True):
            if event.type == "message_stop":
                break


def test_an_end_name_that_is_no_events_type_does_not_end_the_stream() -> None:
    seen: list[Judgement] = []
    said = {**REACHED, "content": [{"type": "text", "text": "message_stop"}]}  # the model writes the name
    client = _anthropic(Served((messages_stream(said), EVENTS)), on_judgement=seen.append)
    list(client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True))
    assert [j.verdict for j in seen] == ["reached-live-task"]  # judged with the clearing report that came after it


@pytest.mark.parametrize("seed", range(6))
def test_a_stream_is_judged_as_the_chunk_that_completes_its_end_event_comes_however_it_is_cut(seed: int) -> None:
    import random

    shuffle = random.Random(seed)
    stream = messages_stream({**REACHED, "content": [{"type": "text", "text": "message_stop"}]})  # (a name in a text)
    if seed % 2:
        stream = stream.replace(b"\n", b"\r\n")
    cuts = sorted(shuffle.sample(range(1, len(stream)), [len(stream) - 1, 3, 40][seed % 3]))
    served = Chunks([stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)])])
    handed: list[int] = []  # how many chunks were handed on when the call was judged
    transport = Transport(httpx2.MockTransport(lambda req: httpx2.Response(200, stream=served,
                                                                           headers={"content-type": EVENTS})),
                          on_judgement=lambda found: handed.append(len(served.handed)))
    with httpx2.Client(transport=transport) as client, \
            client.stream("POST", "http://127.0.0.1:9/v1/messages", json=request(HISTORY, tool_edit(keep=1))) as response:
        for n, _ in enumerate(response.iter_raw(), 1):
            assert handed == ([n] if n == len(served.parts) else [])  # judged before the last chunk, not earlier


def _chained_pair() -> tuple[list[dict[str, Any]], list[bytes]]:
    """Returns the requests and response bodies of a streamed Responses call and the compaction chained to it."""
    pairs = load_yaml((OPENAI / "openai-compact.chained-after-results.yaml").read_text())["interactions"]
    bodies = [p["response"]["body"] for p in pairs]
    return [json.loads(p["request"]["body"]) for p in pairs], \
        [(b["string"] if isinstance(b, dict) else b).encode() for b in bodies]


def test_a_stream_left_at_its_last_event_is_judged_before_the_next_call() -> None:
    (first, chained), (streamed, compacted) = _chained_pair()
    seen: list[Judgement] = []
    client = _openai(Served((responses_stream(json.loads(streamed)), EVENTS), (compacted, JSON)),
                     on_judgement=seen.append)
    events = client.responses.create(**first, stream=True)
    for event in events:
        if event.type == "response.completed":
            break  # kept, never closed: the next call goes out while it is open
    client.responses.compact(**chained)
    assert [(j.endpoint, j.verdict) for j in seen] == [("/v1/responses", "not-judged"),
                                                       ("/v1/responses/compact", "reached-live-task")]
    events.close()


def test_an_async_stream_left_at_its_last_event_raises_in_the_callers_loop() -> None:
    import openai

    (first, chained), (streamed, compacted) = _chained_pair()
    seen: list[Judgement] = []

    async def run() -> None:
        transport = AsyncTransport(httpx2.MockTransport(Served((responses_stream(json.loads(streamed)), EVENTS),
                                                               (compacted, JSON))),
                                   policy="raise", on_judgement=seen.append)
        client = openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1",
                                    http_client=httpx2.AsyncClient(transport=transport))
        async for event in await client.responses.create(**first, stream=True):
            if event.type == "response.completed":
                break
        with pytest.raises(GuardAlert):
            await client.responses.compact(**chained)

    asyncio.run(run())
    assert [(j.endpoint, j.verdict) for j in seen] == [("/v1/responses", "not-judged"),
                                                       ("/v1/responses/compact", "reached-live-task")]


def test_an_async_stream_left_early_is_judged() -> None:
    import anthropic

    seen: list[Judgement] = []

    async def run() -> None:
        transport = AsyncTransport(httpx2.MockTransport(Served((messages_stream(REACHED), EVENTS))),
                                   on_judgement=seen.append)
        client = anthropic.AsyncAnthropic(api_key="k", base_url="http://127.0.0.1:9",
                                          http_client=httpx2.AsyncClient(transport=transport))
        async with client.beta.messages.stream(**request(HISTORY, tool_edit(keep=1)), betas=[BETA]) as left:
            async for _ in left.text_stream:
                break

    asyncio.run(run())
    assert [j.verdict for j in seen] == ["cannot-tell"]


def test_a_compressed_request_is_judged_as_sent() -> None:
    import gzip

    seen: list[Judgement] = []
    transport = Transport(httpx2.MockTransport(Served((json.dumps(REACHED).encode(), JSON))), on_judgement=seen.append)
    packed = gzip.compress(json.dumps(request(HISTORY, tool_edit(keep=1))).encode())
    with httpx2.Client(transport=transport) as client:
        client.post("http://127.0.0.1:9/v1/messages", content=packed,
                    headers={"content-encoding": "gzip", "content-type": JSON}).read()
    assert [j.verdict for j in seen] == ["reached-live-task"]


@pytest.mark.parametrize("platform", ["vertex", "vertex-streamed", "bedrock"])
def test_the_messages_api_on_vertex_and_bedrock_is_judged(platform: str) -> None:
    import anthropic

    streamed = platform.endswith("streamed")
    served = Served((messages_stream(REACHED), EVENTS) if streamed else (json.dumps(REACHED).encode(), JSON))
    seen: list[Judgement] = []
    http = httpx2.Client(transport=Transport(httpx2.MockTransport(served), on_judgement=seen.append))
    client: Any
    if platform.startswith("vertex"):
        client = anthropic.AnthropicVertex(region="us-east5", project_id="p", access_token="t",
                                           base_url="http://127.0.0.1:9/v1", http_client=http)
        model = "claude-sonnet-4-6@20260101"
    else:
        client = anthropic.AnthropicBedrock(aws_access_key="AKIAEXAMPLE", aws_secret_key="s", aws_region="us-east-1",
                                            base_url="http://127.0.0.1:9", http_client=http)
        model = "anthropic.claude-sonnet-4-6-v1:0"
    body = {k: v for k, v in request(HISTORY, tool_edit(keep=1)).items() if k != "model"}
    answer = client.beta.messages.create(**body, model=model, betas=[BETA], stream=streamed)
    if streamed:
        list(answer)
    assert [j.verdict for j in seen] == ["reached-live-task"]
    assert served.seen[0].endswith((":streamRawPredict",) if streamed else (":rawPredict", "/invoke"))


def test_a_queued_background_response_cannot_tell() -> None:
    reached_request, reached_body, _ = recorded("openai-trigger.mid-task")
    queued = {**json.loads(reached_body), "status": "queued", "output": []}  # background=True answers at once
    seen: list[Judgement] = []
    client = _openai(Served((json.dumps(queued).encode(), JSON)), on_judgement=seen.append)
    client.responses.create(**reached_request, background=True)
    assert [j.verdict for j in seen] == ["cannot-tell"] and "background mode" in seen[0].evidence[-1]


def test_a_background_response_retrieved_complete_raises_as_in_the_foreground() -> None:
    reached_request, reached_body, _ = recorded("openai-trigger.mid-task")
    done = json.loads(reached_body)
    polls = [{**done, "status": status, "background": True, "output": [] if status != "completed" else done["output"]}
             for status in ("queued", "in_progress", "completed")]
    seen: list[Judgement] = []
    served = Served(*((json.dumps(poll).encode(), JSON) for poll in polls))
    client = _openai(served, policy="raise", on_judgement=seen.append)
    answer = client.responses.create(**reached_request, background=True)
    with pytest.raises(GuardAlert):
        while answer.status in ("queued", "in_progress"):
            answer = client.responses.retrieve(answer.id)
    assert served.seen[1:] == [f"/v1/responses/{done['id']}"] * 2
    assert [j.verdict for j in seen] == ["cannot-tell", "not-judged", "reached-live-task"]


def test_a_stream_left_after_its_last_event_is_whole_and_a_cut_report_cannot_tell() -> None:
    from conformance.guard import Guard

    seen: list[Judgement] = []
    client = _anthropic(Served((messages_stream(SETTLED), EVENTS)), on_judgement=seen.append)
    events = client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True)
    for event in events:
        if event.type == "message_stop":
            break
    events.close()
    assert [j.verdict for j in seen] == ["settled-only"]
    # an on-demand compaction left after its block: the stop_reason and usage that make it add up never came
    start = {"type": "message", "id": "m", "role": "assistant", "model": "claude-sonnet-4-6", "content": [],
             "stop_reason": None, "usage": {"input_tokens": 900, "output_tokens": 1}}
    cut = sse([{"type": "message_start", "message": start},
               {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": "s"}},
               {"type": "content_block_stop", "index": 0}])
    found = Guard("log").judge("https://api.anthropic.com/v1/messages", "POST",
                               json.dumps(request(HISTORY[:6], compaction={})).encode(), cut, 200, EVENTS, "", False)
    assert found.verdict == "cannot-tell"


def test_an_alert_never_takes_the_place_of_the_callers_own_exception(caplog: pytest.LogCaptureFixture) -> None:
    client = _anthropic(Served((messages_stream(REACHED), EVENTS)), policy="raise")
    with caplog.at_level(logging.WARNING, logger="conformance.guard"), pytest.raises(KeyError):
        with client.beta.messages.stream(**request(HISTORY, tool_edit(keep=1)), betas=[BETA]) as left:
            for event in left:
                if event.type == "message_delta":  # (the clearing report has come: it alerts)
                    raise KeyError("the caller's own bug")
    assert any("reached-live-task" in r.getMessage() for r in caplog.records)


def test_a_bedrock_event_stream_is_said_to_go_unjudged_once(caplog: pytest.LogCaptureFixture) -> None:
    from conformance.guard import Guard

    guard = Guard("log")
    with caplog.at_level(logging.WARNING, logger="conformance.guard"):
        assert not guard.watches("/model/anthropic.claude-sonnet-4-6-v1:0/invoke-with-response-stream")
        assert not guard.watches("/model/anthropic.claude-sonnet-4-6-v1:0/invoke-with-response-stream")
    assert len(caplog.records) == 1 and "invoke-with-response-stream: they are not judged" in caplog.records[0].getMessage()
