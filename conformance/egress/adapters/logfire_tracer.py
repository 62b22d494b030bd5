"""logfire: the spans ``logfire.instrument_anthropic`` and ``logfire.instrument_openai`` record for an
agent's calls, with ``logfire.configure(send_to_logfire=False)`` and an ``InMemorySpanExporter`` as
an additional span processor (nothing leaves the process). The calls go through the SDKs' own
mock transports; the payload is every finished span's attributes."""

from __future__ import annotations

from typing import Any

from .anthropic_replay import replay as replay_anthropic
from .anthropic_replay import span_attributes
from .base import Component
from .openai_replay import replay as replay_openai

_EXPORTER: list[Any] = []


def _exporter() -> Any:
    """Returns this process's in-memory exporter, configuring logfire on first use."""
    if not _EXPORTER:
        import logfire
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        logfire.configure(send_to_logfire=False, console=False, metrics=False, inspect_arguments=False,
                          additional_span_processors=[SimpleSpanProcessor(exporter)])
        _EXPORTER.append(exporter)
    _EXPORTER[0].clear()
    return _EXPORTER[0]


def _anthropic(history: list[dict[str, Any]], version: int, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    import logfire

    exporter = _exporter()
    replay_anthropic(history, streamed=stream is not None, wrap=lambda client: (logfire.instrument_anthropic(client, version=version), client)[1])
    return span_attributes(exporter)


def anthropic_v2(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``instrument_anthropic`` with its defaults (``version=2``)."""
    return _anthropic(history, 2, stream=stream)


def anthropic_v1(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``instrument_anthropic(version=1)``."""
    return _anthropic(history, 1, stream=stream)


def openai_v2(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``instrument_openai`` with its defaults (``version=2``) on Responses calls."""
    import logfire

    exporter = _exporter()
    replay_openai(items, streamed=stream is not None, wrap=lambda client: (logfire.instrument_openai(client), client)[1])
    return span_attributes(exporter)


_LIB = "logfire"
_MOD = "conformance.egress.adapters.logfire_tracer"
_STOPS = "none in the library: gen_ai.*.messages are never scrubbed (a span processor of your own must drop them)"
COMPONENTS = [
    Component(f"{_LIB}.instrument_anthropic", _LIB, "instrument_anthropic", "version=2 (default), send_to_logfire=False",
              "trace", "anthropic", f"{_MOD}:anthropic_v2", "logfire", stops=_STOPS),
    Component(f"{_LIB}.instrument_anthropic.v1", _LIB, "instrument_anthropic", "version=1, send_to_logfire=False",
              "trace", "anthropic", f"{_MOD}:anthropic_v1", "logfire", stops=_STOPS),
    Component(f"{_LIB}.instrument_openai", _LIB, "instrument_openai", "version=2 (default), send_to_logfire=False",
              "trace", "openai-responses", f"{_MOD}:openai_v2", "logfire", stops=_STOPS),
]
