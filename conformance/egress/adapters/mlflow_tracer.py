"""mlflow-tracing: the traces ``mlflow.anthropic.autolog()`` and ``mlflow.openai.autolog()`` record
for an agent's calls, sent by MLflow's own OTLP exporter (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
``http/protobuf``) to a receiver on 127.0.0.1; with the defaults, and with
``mlflow.tracing.configure(span_processors=[f])``, a processor that drops reasoning from each span's
inputs and outputs. The calls go through the SDKs' own mock transports; the payload is every span
the receiver got (its attributes)."""

from __future__ import annotations

import os
from typing import Any

from . import otlp_sink
from .anthropic_replay import replay as replay_anthropic
from .base import Component
from .openai_replay import replay as replay_openai

_REASONING = ("reasoning", "thinking", "redacted_thinking")
_READY: list[bool] = []


def without_reasoning(value: Any) -> Any:
    """Returns ``value`` without reasoning items and thinking blocks, at any depth."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {k: without_reasoning(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_reasoning(v) for v in value if not (isinstance(v, dict) and v.get("type") in _REASONING)]
    return value


def drop_reasoning(span: Any) -> None:
    """A span processor for ``mlflow.tracing.configure``: sets the span's inputs and outputs again
    without reasoning; returns None."""
    span.set_inputs(without_reasoning(span.inputs))
    span.set_outputs(without_reasoning(span.outputs))


def _ready() -> None:
    """Points MLflow's OTLP exporter at the local receiver, turns its telemetry off and autolog on
    (once per process)."""
    if not _READY:
        os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = otlp_sink.endpoint()
        os.environ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "http/protobuf"
        os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"  # MLflow's usage telemetry would leave the machine
        import mlflow

        mlflow.anthropic.autolog()
        mlflow.openai.autolog()
        _READY.append(True)
    otlp_sink.clear()


def _traced(run: Any, masked: bool) -> list[dict[str, Any]]:
    import mlflow

    _ready()
    if masked:
        with mlflow.tracing.configure(span_processors=[drop_reasoning]):
            run()
    else:
        run()
    mlflow.tracing.get_bridged_tracer_provider().force_flush()
    return otlp_sink.spans()


def anthropic_default(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``mlflow.anthropic.autolog()``, defaults."""
    return _traced(lambda: replay_anthropic(history, streamed=stream is not None), masked=False)


def anthropic_masked(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``mlflow.anthropic.autolog()`` with the reasoning-dropping span processor."""
    return _traced(lambda: replay_anthropic(history, streamed=stream is not None), masked=True)


def openai_default(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``mlflow.openai.autolog()`` on Responses calls, defaults."""
    return _traced(lambda: replay_openai(items, streamed=stream is not None), masked=False)


def openai_masked(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``mlflow.openai.autolog()`` with the reasoning-dropping span processor."""
    return _traced(lambda: replay_openai(items, streamed=stream is not None), masked=True)


_LIB = "mlflow-tracing"
_MOD = "conformance.egress.adapters.mlflow_tracer"
_STOPS = ("no reasoning flag: mlflow.tracing.configure(span_processors=[f]) with f setting the span's "
          "inputs and outputs again without reasoning")
_MASK = "mlflow.tracing.configure(span_processors=[f]), f dropping reasoning from inputs and outputs"
COMPONENTS = [
    Component(f"{_LIB}.anthropic.autolog", _LIB, "mlflow.anthropic.autolog", "defaults, OTLP export to 127.0.0.1",
              "trace", "anthropic", f"{_MOD}:anthropic_default", "mlflow", stops=_STOPS),
    Component(f"{_LIB}.anthropic.autolog.span_processor", _LIB, "mlflow.anthropic.autolog", _MASK, "trace",
              "anthropic", f"{_MOD}:anthropic_masked", "mlflow", stops=_STOPS),
    Component(f"{_LIB}.openai.autolog", _LIB, "mlflow.openai.autolog", "defaults, OTLP export to 127.0.0.1",
              "trace", "openai-responses", f"{_MOD}:openai_default", "mlflow", stops=_STOPS),
    Component(f"{_LIB}.openai.autolog.span_processor", _LIB, "mlflow.openai.autolog", _MASK, "trace",
              "openai-responses", f"{_MOD}:openai_masked", "mlflow", stops=_STOPS),
]
