"""The ``otel-event`` policy through the real SDK clients (over a mock inner transport): the alert
lands on a span of the caller's trace that records, exported by the OpenTelemetry SDK's in-memory
exporter: the SDK's span of the call when its tracer records, else the caller's span (whole,
streamed, on the guard's thread, after a retry, async); an alert no span can record is logged with
the reason, not dropped."""

from __future__ import annotations

import asyncio
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


@pytest.mark.slow
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


def _retried(first: httpx2.Response, then: bytes) -> Any:
    """Returns a handler answering ``first`` once (an answer the SDK retries), then ``then`` whole."""
    answers = [first]

    def handle(req: httpx2.Request) -> httpx2.Response:
        return answers.pop() if answers else httpx2.Response(200, content=then, headers={"content-type": JSON})

    return handle


@pytest.mark.parametrize("how", ["whole", "streamed", "background", "retried", "async"])
def test_without_a_recording_tracer_in_the_anthropic_sdk_the_event_is_on_the_callers_span(exported: Any,
                                                                                          how: str) -> None:
    # The SDK's tracer is the global one, not set up: its span of the call is a stand-in that hides
    # the caller's span while the SDK sends the request and reads the answer.
    import anthropic

    provider, exporter = exported
    body = json.dumps(REACHED).encode()
    if how == "async":
        from conformance.guard import AsyncTransport

        inner: Any = httpx2.MockTransport(Served((body, JSON)))
        aclient = anthropic.AsyncAnthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.AsyncClient(
            transport=AsyncTransport(inner, policy="otel-event")))
        with provider.get_tracer("test").start_as_current_span("caller") as caller:
            asyncio.run(aclient.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA]))
    else:
        served: Any = Served((messages_stream(REACHED) if how == "streamed" else body, EVENTS if how == "streamed" else JSON))
        if how == "retried":
            served = _retried(httpx2.Response(529, json={"type": "error", "error": {"type": "overloaded_error"}}), body)
        transport = Transport(httpx2.MockTransport(served), policy="otel-event", background=how == "background")
        client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9", http_client=httpx2.Client(
            transport=transport), max_retries=1 if how == "retried" else 0)
        if how == "retried":
            client = client.with_options(timeout=5.0)
            client._sleep_for_retry = lambda **_: None  # type: ignore[method-assign]  # (no wait between tries)
        with provider.get_tracer("test").start_as_current_span("caller") as caller:
            answer = client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA],
                                                 stream=how == "streamed")
            if how == "streamed":
                list(answer)  # read by the caller once the SDK returned: its span is current again
    assert _events(caller) == [(ALERT, "reached-live-task")]
    assert [s.name for s in exporter.get_finished_spans()] == ["caller"]  # the SDK's span: a stand-in, not exported


@pytest.mark.slow
def test_two_callers_spans_one_after_the_other_each_get_their_own_alert(exported: Any) -> None:
    provider, _ = exported
    client = _anthropic(Served((json.dumps(REACHED).encode(), JSON), (json.dumps(REACHED).encode(), JSON)))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("first") as first:
        client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    with tracer.start_as_current_span("second") as second:
        client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert _events(first) == _events(second) == [(ALERT, "reached-live-task")]


def test_an_alert_no_span_records_is_logged_with_why(caplog: pytest.LogCaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    monkeypatch.setattr(policies, "_told", False)  # (said once a process)
    client = _anthropic(Served((json.dumps(REACHED).encode(), JSON)))  # the SDK's tracer: the global, no-op one
    with caplog.at_level(logging.WARNING, logger="conformance.guard"):
        with TracerProvider(sampler=ALWAYS_OFF).get_tracer("test").start_as_current_span("caller") as caller:
            client.beta.messages.create(**request(HISTORY, tool_edit(keep=1)), betas=[BETA])
    assert not caller.is_recording() and caller.get_span_context().is_valid  # (sampled out: it has an id, no record)
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
