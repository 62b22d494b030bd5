"""opentelemetry-instrumentation-genai-anthropic (the official OpenTelemetry GenAI instrumentation):
the spans its ``AnthropicInstrumentor`` records for an agent's calls, with message content capture
set by ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` as shown. The calls go through the
SDK's own mock transport; the payload is every finished span's attributes from an
``InMemorySpanExporter``."""

from __future__ import annotations

import json
from typing import Any

from .anthropic_replay import environment, replay, span_attributes
from .base import Component


class DropReasoningHook:
    """A ``CompletionHook`` that removes ``ReasoningPart`` from the message objects it is handed, as
    the convention's hook may; in 1.3b0 the span attributes are already set when it runs."""

    def on_completion(self, *, inputs: list[Any], outputs: list[Any], **_: Any) -> None:
        """Drops every ``ReasoningPart`` from ``inputs`` and ``outputs`` in place; returns None."""
        from opentelemetry.util.genai.types import ReasoningPart

        for message in [*inputs, *outputs]:
            message.parts[:] = [p for p in message.parts if not isinstance(p, ReasoningPart)]


class RewriteSpanHook:
    """A ``CompletionHook`` that sets the span's ``gen_ai.input.messages`` and
    ``gen_ai.output.messages`` again without their ``reasoning`` parts (the span is still open)."""

    def on_completion(self, *, span: Any = None, **_: Any) -> None:
        """Rewrites the two attributes on ``span``; returns None."""
        if span is None or not span.is_recording():
            return
        for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
            value = (getattr(span, "attributes", None) or {}).get(key)
            if not isinstance(value, str):
                continue
            messages = json.loads(value)
            for message in messages:
                message["parts"] = [p for p in message.get("parts", []) if p.get("type") != "reasoning"]
            span.set_attribute(key, json.dumps(messages))


def _traced(history: list[dict[str, Any]], capture: str, hook: Any = None, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from opentelemetry.instrumentation.genai.anthropic import AnthropicInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = AnthropicInstrumentor()
    with environment(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=capture):
        instrumentor.instrument(tracer_provider=provider, completion_hook=hook)
        try:
            replay(history, streamed=stream is not None)
        finally:
            instrumentor.uninstrument()
    return span_attributes(exporter)


def span_only(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with content capture ``SPAN_ONLY``."""
    return _traced(history, "SPAN_ONLY", stream=stream)


def span_only_hook(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with content capture ``SPAN_ONLY`` and a completion hook that drops
    reasoning parts."""
    return _traced(history, "SPAN_ONLY", DropReasoningHook(), stream=stream)


def span_only_rewrite(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with content capture ``SPAN_ONLY`` and a completion hook that rewrites the
    span's message attributes without reasoning parts."""
    return _traced(history, "SPAN_ONLY", RewriteSpanHook(), stream=stream)


def no_content(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans with content capture ``NO_CONTENT`` (the default)."""
    return _traced(history, "NO_CONTENT", stream=stream)


_NAME = "opentelemetry-instrumentation-genai-anthropic"
_MODULE = "opentelemetry.instrumentation.genai.anthropic"
_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_HOOK = ("no reasoning-only setting: a completion_hook that sets gen_ai.input.messages and "
         "gen_ai.output.messages on the span again without reasoning parts")
COMPONENTS = [
    Component(f"{_NAME}.span_only", _NAME, "AnthropicInstrumentor", f"{_ENV}=SPAN_ONLY", "trace", "anthropic",
              "conformance.egress.adapters.otel_genai_anthropic:span_only", _MODULE, stops=_HOOK),
    Component(f"{_NAME}.span_only_hook", _NAME, "AnthropicInstrumentor",
              f"{_ENV}=SPAN_ONLY, completion_hook removing ReasoningPart from its messages", "trace", "anthropic",
              "conformance.egress.adapters.otel_genai_anthropic:span_only_hook", _MODULE,
              stops=_HOOK + " (removing them from the hook's message objects comes too late: the span is already set)"),
    Component(f"{_NAME}.span_only_rewrite", _NAME, "AnthropicInstrumentor",
              f"{_ENV}=SPAN_ONLY, completion_hook rewriting the span's gen_ai.*.messages", "trace", "anthropic",
              "conformance.egress.adapters.otel_genai_anthropic:span_only_rewrite", _MODULE, stops=_HOOK),
    Component(f"{_NAME}.no_content", _NAME, "AnthropicInstrumentor", f"{_ENV}=NO_CONTENT (default)", "trace",
              "anthropic", "conformance.egress.adapters.otel_genai_anthropic:no_content", _MODULE,
              stops="none: it drops the answer with the reasoning"),
]
