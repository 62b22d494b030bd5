"""Streaming egress targets: async iterators and streaming HTTP responses from an app on 127.0.0.1
are read to their end as a browser reads them; each protocol's events are read by their own schema
and a leak is named by event index and field; a text-only stream passes."""

from __future__ import annotations

import json

import pytest

from conformance.egress import streams
from conformance.egress.canaries import Canary, find
from conformance.egress.run import run
from conformance.egress.surfaces import surface
from conformance.engine.target import from_callable

from . import zoo

THOUGHT = Canary("t", "reasoning-text", "Ada Quill at 41 Larch Row is probably lying and owes 7731 EUR.")
ANSWER = Canary("a", "answer", "Your refund of 12 EUR was sent to the card ending 4242 today.")


def _interleaved(protocol: str) -> str:
    """An SSE body whose reasoning and text deltas alternate, 7 characters each."""
    out = []
    for i in range(0, len(THOUGHT.value), 7):
        if protocol == streams.AG_UI:
            out += [{"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": THOUGHT.value[i:i + 7]},
                    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": ANSWER.value[i:i + 7]}]
        else:
            out += [{"type": "reasoning-delta", "id": "r", "delta": THOUGHT.value[i:i + 7]},
                    {"type": "text-delta", "id": "x", "delta": ANSWER.value[i:i + 7]}]
    return "".join(f"data: {json.dumps(e)}\n\n" for e in out)


@pytest.mark.parametrize("protocol", [streams.AG_UI, streams.VERCEL_UI])
def test_interleaved_deltas_are_joined_per_event_type_and_named_by_event(protocol) -> None:
    body = _interleaved(protocol)
    assert streams.events(body)[0] == protocol
    found = {f.canary: f for f in find({"status": 200, "body": body}, [THOUGHT, ANSWER])}
    assert found["t"].whole and found["a"].whole
    assert found["t"].where.startswith(f"{protocol} events 0..") and found["t"].where.endswith(".delta (joined)")
    assert "REASONING" in found["t"].where.upper() or "THINKING" in found["t"].where


def test_the_vercel_data_stream_parts_are_read_by_their_codes() -> None:
    body = "".join(f"g:{json.dumps(THOUGHT.value[i:i + 7])}\n" for i in range(0, len(THOUGHT.value), 7))
    protocol, parts = streams.events(body)
    assert protocol == streams.VERCEL_DATA and {p["type"] for p in parts} == {"reasoning"}
    found = find(body, [THOUGHT])
    assert found and found[0].whole and "(reasoning)" in found[0].where


def test_a_single_event_is_named_by_index_type_and_field() -> None:
    body = "event: content_block_start\ndata: {\"index\": 0, \"content_block\": {\"type\": \"thinking\", " \
           f"\"thinking\": {json.dumps(THOUGHT.value)}}}}}\n\n" + "event: ping\ndata: {}\n\n"
    found = find(body, [THOUGHT])
    assert found[0].where == f"{streams.ANTHROPIC} event 0 (content_block_start) .content_block.thinking"


def test_a_text_that_is_no_stream_is_read_as_before() -> None:
    assert streams.events("just a log line") is None
    assert streams.events([{"a": 1}]) is None


@pytest.mark.slow
@pytest.mark.parametrize(("serializer", "caught"), [
    (zoo.ag_ui_http_with_thinking, {"egress.no-reasoning-text"}),
    (zoo.data_stream_http_with_reasoning, {"egress.no-reasoning-text"}),
    (zoo.async_events_with_thinking, {"egress.no-reasoning-text"}),
    (zoo.ag_ui_http_text_only, set()),
    (zoo.async_events_text_only, set()),
], ids=lambda v: getattr(v, "__name__", None))
def test_streaming_targets_are_read_to_their_end_and_judged(conversations, serializer, caught) -> None:
    mine = [c for c in conversations if c.format == "anthropic" and c.of(frozenset({"answer"}))]
    report = run([from_callable(serializer)], mine, surface("browser-stream"), time_limit=10)
    failing = {r.invariant for r in report.results if r.level == "MUST" and r.outcome in ("fail", "error")}
    assert failing == caught
    assert {r.invariant for r in report.results if r.outcome == "pass"} >= {"egress.answer-kept"}
    leaks = [r for r in report.results if r.outcome == "fail"]
    assert all(" event" in r.message and "(" in r.message for r in leaks)
    assert all(c.value[:20] not in r.message for r in report.results for c in mine[0].canaries)


@pytest.mark.slow
def test_the_headers_of_a_streaming_response_are_read_too(conversations) -> None:
    mine = [c for c in conversations if c.format == "anthropic" and c.of(frozenset({"answer"}))
            and "thinking" in json.dumps(c.messages)][:2]
    report = run([from_callable(zoo.ag_ui_http_reasoning_in_a_header)], mine, surface("browser-stream"), time_limit=10)
    failing = {r.invariant for r in report.results if r.level == "MUST" and r.outcome in ("fail", "error")}
    assert failing == {"egress.no-reasoning-ciphertext"}
