"""The OpenAI side of the tracing instrumentations, on Responses calls: OpenLLMetry's
``opentelemetry-instrumentation-openai`` ``OpenAIInstrumentor`` (content capture by
``TRACELOOP_TRACE_CONTENT``, on by default) and OpenInference's ``openinference-instrumentation-openai``
``OpenAIInstrumentor`` (``TraceConfig``). The calls go through the SDK's own mock transport; the
payload is every finished span's attributes from an ``InMemorySpanExporter``."""

from __future__ import annotations

from typing import Any

from .anthropic_replay import environment, span_attributes
from .base import Component
from .openai_replay import replay


def _traced(items: list[dict[str, Any]], instrumentor: Any, stream: list[dict[str, Any]] | None = None, **settings: Any) -> list[dict[str, Any]]:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor.instrument(tracer_provider=provider, **settings)
    try:
        replay(items, streamed=stream is not None)
    finally:
        instrumentor.uninstrument()
    return span_attributes(exporter)


_OPENLLMETRY: list[Any] = []


def _openllmetry(items: list[dict[str, Any]], content: str, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of OpenLLMetry's ``OpenAIInstrumentor``, instrumented once per process
    into one in-memory exporter, cleared before each conversation."""
    if not _OPENLLMETRY:
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        OpenAIInstrumentor().instrument(tracer_provider=provider)
        _OPENLLMETRY.append(exporter)
    exporter = _OPENLLMETRY[0]
    exporter.clear()
    with environment(TRACELOOP_TRACE_CONTENT=content):
        replay(items, streamed=stream is not None)
    return span_attributes(exporter)


def openllmetry(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of OpenLLMetry's ``OpenAIInstrumentor`` with ``TRACELOOP_TRACE_CONTENT=true``
    (its default)."""
    return _openllmetry(items, "true", stream=stream)


def openllmetry_no_content(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of OpenLLMetry's ``OpenAIInstrumentor`` with ``TRACELOOP_TRACE_CONTENT=false``."""
    return _openllmetry(items, "false", stream=stream)


def openinference(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of OpenInference's ``OpenAIInstrumentor`` with ``TraceConfig()``."""
    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    return _traced(items, OpenAIInstrumentor(), config=TraceConfig(), stream=stream)


def openinference_hide_text(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with ``TraceConfig(hide_input_text=True, hide_output_text=True)``."""
    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.openai import OpenAIInstrumentor

    return _traced(items, OpenAIInstrumentor(), config=TraceConfig(hide_input_text=True, hide_output_text=True), stream=stream)


_LL = "opentelemetry-instrumentation-openai"
_OI = "openinference-instrumentation-openai"
_MOD = "conformance.egress.adapters.openai_instrumentations"
_LL_STOPS = "no reasoning-only setting or hook: TRACELOOP_TRACE_CONTENT=false drops the answer too"
_OI_STOPS = "no reasoning-only setting: TraceConfig(hide_inputs=True, hide_outputs=True) drops the answer too"
COMPONENTS = [
    Component(f"{_LL}.spans", _LL, "OpenAIInstrumentor", "TRACELOOP_TRACE_CONTENT=true (the default)", "trace",
              "openai-responses", f"{_MOD}:openllmetry", "opentelemetry.instrumentation.openai", stops=_LL_STOPS),
    Component(f"{_LL}.no_content", _LL, "OpenAIInstrumentor", "TRACELOOP_TRACE_CONTENT=false", "trace",
              "openai-responses", f"{_MOD}:openllmetry_no_content", "opentelemetry.instrumentation.openai",
              stops="none: it drops the answer with the reasoning"),
    Component(f"{_OI}.TraceConfig", _OI, "OpenAIInstrumentor", "TraceConfig()", "trace", "openai-responses",
              f"{_MOD}:openinference", "openinference.instrumentation.openai", stops=_OI_STOPS),
    Component(f"{_OI}.TraceConfig.hide_text", _OI, "OpenAIInstrumentor",
              "TraceConfig(hide_input_text=True, hide_output_text=True)", "trace", "openai-responses",
              f"{_MOD}:openinference_hide_text", "openinference.instrumentation.openai", stops=_OI_STOPS),
]
