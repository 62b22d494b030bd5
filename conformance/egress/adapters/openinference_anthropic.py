"""openinference-instrumentation-anthropic: the spans its ``AnthropicInstrumentor`` records, with
``TraceConfig`` as shown, for an agent's calls. Each assistant message of the conversation is one
``client.messages.create`` call, the messages before it the request, served by the SDK's own mock
transport; the payload is every finished span's attributes from an ``InMemorySpanExporter``."""

from __future__ import annotations

from typing import Any

from .anthropic_replay import replay
from .base import Component


def _traced(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None, **config: bool) -> list[dict[str, Any]]:
    """Returns the attributes of every span the instrumentor recorded for ``history``'s calls."""
    from openinference.instrumentation import TraceConfig
    from openinference.instrumentation.anthropic import AnthropicInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = AnthropicInstrumentor()
    instrumentor.instrument(tracer_provider=provider, config=TraceConfig(**config))
    try:
        replay(history, streamed=stream is not None)
    finally:
        instrumentor.uninstrument()
    return [dict(span.attributes or {}) for span in exporter.get_finished_spans()]


def default(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with ``TraceConfig()``."""
    return _traced(history, stream=stream)


def hide_text(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with ``TraceConfig(hide_input_text=True, hide_output_text=True)``."""
    return _traced(history, hide_input_text=True, hide_output_text=True, stream=stream)


def hide_all(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with ``TraceConfig(hide_inputs=True, hide_outputs=True)``."""
    return _traced(history, hide_inputs=True, hide_outputs=True, stream=stream)


_NAME = "openinference-instrumentation-anthropic"
_STOPS = "no reasoning-only setting: TraceConfig(hide_inputs=True, hide_outputs=True) drops the answer too"
COMPONENTS = [
    Component(f"{_NAME}.default", _NAME, "AnthropicInstrumentor", "TraceConfig()", "trace", "anthropic",
              "conformance.egress.adapters.openinference_anthropic:default", "openinference.instrumentation.anthropic",
              stops=_STOPS),
    Component(f"{_NAME}.hide_text", _NAME, "AnthropicInstrumentor",
              "TraceConfig(hide_input_text=True, hide_output_text=True)", "trace", "anthropic",
              "conformance.egress.adapters.openinference_anthropic:hide_text", "openinference.instrumentation.anthropic",
              stops=_STOPS),
    Component(f"{_NAME}.hide_all", _NAME, "AnthropicInstrumentor", "TraceConfig(hide_inputs=True, hide_outputs=True)",
              "trace", "anthropic", "conformance.egress.adapters.openinference_anthropic:hide_all",
              "openinference.instrumentation.anthropic", stops="none: it drops the answer with the reasoning"),
]
