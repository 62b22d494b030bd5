"""The ``otel-event`` policy through the real SDK clients (over a mock inner transport): the alert
lands on a span of the caller's trace that records, exported by the OpenTelemetry SDK's in-memory
exporter, and an alert no span can record is logged with the reason, not dropped."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from conformance.guard import Transport, policies

from ..provider.test_analyze import HISTORY, request, tool_edit
from .test_guard import BETA, EVENTS, JSON, REACHED, Served, messages_stream, recorded

ALERT = "conformance.guard.alert"


@pytest.fixture()
def exported() -> Iterator[tuple[Any, Any]]:
    """Yields a tracer provider of its own (not the global one) and its in-memory exporter."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter


def _anthropic(served: Served, **options: Any) -> Any:
    import anthropic

    transport = Transport(httpx2.MockTransport(served), policy="otel-event")
    return anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.Client(transport=transport),
                               **options)


def _events(span: Any) -> list[tuple[str, str]]:
    return [(e.name, e.attributes["conformance.verdict"]) for e in span.events]


def test_through_the_anthropic_sdk_the_event_is_on_the_calls_span_in_the_callers_trace(exported: Any) -> None:
    provider, exporter = exported
    served = Served((json.dumps(REACHED).encode(), JSON), (messages_stream(REACHED), EVENTS))
    client = _anthropic(served, open_telemetry={"tracer_provider": provider})
    with provider.get_tracer("test").start_as_current_span("caller") as caller:
        client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
        list(client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA], stream=True))
    whole, streamed = [s for s in exporter.get_finished_spans() if s.name != "caller"]  # the SDK's spans
    assert whole.parent.span_id == streamed.parent.span_id == caller.get_span_context().span_id
    assert _events(whole) == [(ALERT, "reached-live-task")]  # read whole while the SDK's span is current
    assert _events(streamed) == [] and _events(caller) == [(ALERT, "reached-live-task")]  # the caller read the stream


def test_an_alert_no_span_records_is_logged_with_why(exported: Any, caplog: pytest.LogCaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    provider, exporter = exported
    monkeypatch.setattr(policies, "_told", False)  # (said once a process)
    client = _anthropic(Served((json.dumps(REACHED).encode(), JSON)))  # the SDK's tracer: the global, no-op one
    with caplog.at_level(logging.WARNING, logger="conformance.guard"):
        with provider.get_tracer("test").start_as_current_span("caller") as caller:
            client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert caller.events == () and [s.name for s in exporter.get_finished_spans()] == ["caller"]
    told = [r.getMessage() for r in caplog.records]
    assert told[0] == policies.NO_SPAN and "reached-live-task" in told[1] and len(told) == 2


def test_with_the_anthropic_sdks_spans_off_the_event_is_on_the_callers_span(exported: Any) -> None:
    provider, _ = exported
    client = _anthropic(Served((json.dumps(REACHED).encode(), JSON)), open_telemetry=False)
    with provider.get_tracer("test").start_as_current_span("caller") as caller:
        client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert _events(caller) == [(ALERT, "reached-live-task")]


def test_through_the_openai_sdk_the_event_is_on_the_callers_span(exported: Any) -> None:
    import openai

    provider, _ = exported
    body, answer, _kind = recorded("openai-trigger.mid-task")
    transport = Transport(httpx2.MockTransport(Served((answer.encode(), JSON))), policy="otel-event")
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1", http_client=httpx2.Client(transport=transport))
    with provider.get_tracer("test").start_as_current_span("caller") as caller:
        client.responses.create(**body)
    assert _events(caller) == [(ALERT, "reached-live-task")]
