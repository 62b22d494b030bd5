"""langfuse: what the Langfuse SDK exports for an agent's calls, into an ``InMemorySpanExporter``
given as ``Langfuse(span_exporter=...)`` (base URL 127.0.0.1, nothing sent). OpenAI: the
``langfuse.openai`` drop-in client on Responses calls; Anthropic: ``@observe(as_type="generation")``
around ``client.messages.create``, as Langfuse documents for SDKs it does not wrap. Each with the
defaults and with ``Langfuse(mask=f)``, a mask that drops reasoning. The calls go through the SDKs'
own mock transports; the payload is every finished span's attributes."""

from __future__ import annotations

import types
from typing import Any

from .anthropic_replay import replay as replay_anthropic
from .anthropic_replay import span_attributes
from .base import Component
from .openai_replay import answer
from .openai_replay import replay as replay_openai
from ..canaries import CREDENTIAL

_CLIENTS: dict[str, tuple[Any, Any]] = {}
_REASONING = ("reasoning", "thinking", "redacted_thinking")


def drop_reasoning(*, data: Any, **_: Any) -> Any:
    """Returns ``data`` without reasoning items and thinking blocks, at any depth (a Langfuse
    ``mask``); objects are read through ``model_dump`` first."""
    if hasattr(data, "model_dump"):
        data = data.model_dump(mode="json")
    if isinstance(data, dict):
        return {k: drop_reasoning(data=v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [drop_reasoning(data=v) for v in data
                if not (isinstance(v, dict) and v.get("type") in _REASONING)
                and getattr(v, "type", None) not in _REASONING]
    return data


def _client(masked: bool) -> tuple[Any, str]:
    """Returns this process's Langfuse client of the setting and its public key (made on first use)."""
    key = "pk-lf-egress-mask" if masked else "pk-lf-egress"
    if key not in _CLIENTS:
        from langfuse import Langfuse
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        exporter = InMemorySpanExporter()
        client = Langfuse(public_key=key, secret_key="sk-lf-egress", base_url="http://127.0.0.1:9",
                          span_exporter=exporter, tracer_provider=TracerProvider(),
                          mask=drop_reasoning if masked else None)
        _CLIENTS[key] = (client, exporter)
    client, exporter = _CLIENTS[key]
    exporter.clear()
    return client, key


def _openai(items: list[dict[str, Any]], masked: bool, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    import httpx2
    from langfuse import openai as dropin

    client, key = _client(masked)

    def make(replies: list[dict[str, Any]]) -> Any:
        def handler(request: Any) -> Any:
            return answer(replies.pop(0))

        made = dropin.OpenAI(api_key=CREDENTIAL.value, base_url="http://127.0.0.1:9/v1", max_retries=0,
                             http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
        create = made.responses.create
        made.responses = types.SimpleNamespace(create=lambda **kw: create(**kw, langfuse_public_key=key))
        return made

    replay_openai(items, streamed=stream is not None, make=make)
    client.flush()
    return span_attributes(_CLIENTS[key][1])


def _anthropic(history: list[dict[str, Any]], masked: bool, stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    from langfuse import observe

    client, key = _client(masked)

    def wrap(anthropic_client: Any) -> Any:
        @observe(as_type="generation", name="anthropic.messages.create")
        def create(**kwargs: Any) -> Any:
            return anthropic_client.messages.create(**kwargs)

        def traced(**kwargs: Any) -> Any:
            return create(**kwargs, langfuse_public_key=key)

        return types.SimpleNamespace(messages=types.SimpleNamespace(create=traced))

    replay_anthropic(history, streamed=stream is not None, wrap=wrap)
    client.flush()
    return span_attributes(_CLIENTS[key][1])


def openai_default(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of the ``langfuse.openai`` drop-in, ``Langfuse()`` defaults."""
    return _openai(items, masked=False, stream=stream)


def openai_masked(items: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of the ``langfuse.openai`` drop-in with ``Langfuse(mask=drop_reasoning)``."""
    return _openai(items, masked=True, stream=stream)


def anthropic_default(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the spans of ``@observe(as_type="generation")`` around ``messages.create``, defaults."""
    return _anthropic(history, masked=False, stream=stream)


def anthropic_masked(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Returns the same spans with ``Langfuse(mask=drop_reasoning)``."""
    return _anthropic(history, masked=True, stream=stream)


_LIB = "langfuse"
_MOD = "conformance.egress.adapters.langfuse_tracer"
_STOPS = "no reasoning flag: Langfuse(mask=f) with a mask f that drops reasoning items and thinking blocks"
_MASK = "Langfuse(mask=f), f dropping reasoning items and thinking blocks"
COMPONENTS = [
    Component(f"{_LIB}.openai.OpenAI", _LIB, "langfuse.openai.OpenAI (drop-in)", "Langfuse() defaults", "trace",
              "openai-responses", f"{_MOD}:openai_default", "langfuse", stops=_STOPS),
    Component(f"{_LIB}.openai.OpenAI.mask", _LIB, "langfuse.openai.OpenAI (drop-in)", _MASK, "trace",
              "openai-responses", f"{_MOD}:openai_masked", "langfuse", stops=_STOPS),
    Component(f"{_LIB}.observe.anthropic", _LIB, "@observe(as_type='generation') around messages.create",
              "Langfuse() defaults", "trace", "anthropic", f"{_MOD}:anthropic_default", "langfuse", stops=_STOPS),
    Component(f"{_LIB}.observe.anthropic.mask", _LIB, "@observe(as_type='generation') around messages.create",
              _MASK, "trace", "anthropic", f"{_MOD}:anthropic_masked", "langfuse", stops=_STOPS),
]
