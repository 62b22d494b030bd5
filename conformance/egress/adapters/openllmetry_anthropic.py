"""opentelemetry-instrumentation-anthropic (OpenLLMetry, by Traceloop): what its
``AnthropicInstrumentor`` records for an agent's calls, as span attributes (the default) or, with
``use_attributes=False``, as log events; content capture set by ``TRACELOOP_TRACE_CONTENT`` as shown.
The calls go through the SDK's own mock transport; the payload is every finished span's attributes
from an ``InMemorySpanExporter``, or every log record's body and attributes from an
``InMemoryLogRecordExporter``."""

from __future__ import annotations

from typing import Any

from .anthropic_replay import environment, replay, span_attributes
from .base import Component


def _spans(history: list[dict[str, Any]], content: str, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = AnthropicInstrumentor()
    with environment(TRACELOOP_TRACE_CONTENT=content):
        instrumentor.instrument(tracer_provider=provider)
        try:
            replay(history, streamed=stream is not None)
        finally:
            instrumentor.uninstrument()
    return span_attributes(exporter)


def _events(history: list[dict[str, Any]], content: str, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider

    exporter = InMemoryLogRecordExporter()
    logs = LoggerProvider()
    logs.add_log_record_processor(SimpleLogRecordProcessor(exporter))
    instrumentor = AnthropicInstrumentor(use_attributes=False)
    with environment(TRACELOOP_TRACE_CONTENT=content):
        instrumentor.instrument(tracer_provider=TracerProvider(), logger_provider=logs)
        try:
            replay(history, streamed=stream is not None)
        finally:
            instrumentor.uninstrument()
    records = []
    for item in exporter.get_finished_logs():
        record = getattr(item, "log_record", item)
        records.append({"event_name": getattr(record, "event_name", None), "body": record.body,
                        "attributes": dict(record.attributes or {})})
    return records


def spans(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the span attributes with ``TRACELOOP_TRACE_CONTENT=true`` (its default)."""
    return _spans(history, "true", stream=stream)


def spans_no_content(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the span attributes with ``TRACELOOP_TRACE_CONTENT=false``."""
    return _spans(history, "false", stream=stream)


def events(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the log events of ``use_attributes=False`` with ``TRACELOOP_TRACE_CONTENT=true``."""
    return _events(history, "true", stream=stream)


_NAME = "opentelemetry-instrumentation-anthropic"
_MODULE = "opentelemetry.instrumentation.anthropic"
_STOPS = "no reasoning-only setting or hook: TRACELOOP_TRACE_CONTENT=false drops the answer too"
COMPONENTS = [
    Component(f"{_NAME}.spans", _NAME, "AnthropicInstrumentor", "TRACELOOP_TRACE_CONTENT=true (the default)",
              "trace", "anthropic", "conformance.egress.adapters.openllmetry_anthropic:spans", _MODULE, stops=_STOPS),
    Component(f"{_NAME}.events", _NAME, "AnthropicInstrumentor",
              "use_attributes=False, TRACELOOP_TRACE_CONTENT=true (the default)", "log", "anthropic",
              "conformance.egress.adapters.openllmetry_anthropic:events", _MODULE, stops=_STOPS),
    Component(f"{_NAME}.no_content", _NAME, "AnthropicInstrumentor", "TRACELOOP_TRACE_CONTENT=false", "trace",
              "anthropic", "conformance.egress.adapters.openllmetry_anthropic:spans_no_content", _MODULE,
              stops="none: it drops the answer with the reasoning"),
]
