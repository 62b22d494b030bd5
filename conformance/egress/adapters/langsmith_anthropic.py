"""langsmith: the runs its ``wrap_anthropic`` client posts for an agent's calls, inside
``tracing_context(enabled=True)``, with the ``Client`` settings shown. The calls go through the
Anthropic SDK's own mock transport; LangSmith's ``Client`` gets a ``requests.Session`` that answers
every request locally, and the payload is every request body it was handed (JSON decoded)."""

from __future__ import annotations

import json
import warnings
from typing import Any

from .anthropic_replay import replay
from .base import Component

_REASONING = ("thinking", "redacted_thinking")


def without_reasoning(value: Any) -> Any:
    """Returns ``value`` with every ``thinking`` and ``redacted_thinking`` block removed, at any depth
    (the shape of a ``hide_inputs`` / ``hide_outputs`` callable)."""
    if isinstance(value, dict):
        return {k: without_reasoning(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_reasoning(v) for v in value
                if not (isinstance(v, dict) and v.get("type") in _REASONING)]
    return value


def _posted(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None, **settings: Any) -> list[Any]:
    import requests
    from langsmith import Client, tracing_context

    with warnings.catch_warnings():  # langsmith.wrappers warns on import about a module it moved
        warnings.simplefilter("ignore", DeprecationWarning)
        from langsmith.wrappers import wrap_anthropic

    bodies: list[Any] = []

    class LocalSession(requests.Session):
        def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]  # takes what Session.request takes, by *args and **kwargs
            body = kwargs.get("data") if kwargs.get("data") is not None else kwargs.get("json")
            if isinstance(body, (bytes, str)):
                try:
                    body = json.loads(body)
                except ValueError:
                    body = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            bodies.append(body)
            response = requests.Response()
            response.status_code, response._content, response.url = 200, b"{}", url
            return response

    client = Client(api_url="http://127.0.0.1:9", api_key="offline", session=LocalSession(), info={},
                    auto_batch_tracing=False, **settings)
    with tracing_context(enabled=True, client=client, project_name="egress"):
        replay(history, streamed=stream is not None, wrap=wrap_anthropic)
    client.flush()
    return bodies


def default(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[Any]:
    """Returns the posted run bodies with ``Client()`` defaults."""
    return _posted(history, stream=stream)


def hide_all(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[Any]:
    """Returns the posted run bodies with ``Client(hide_inputs=True, hide_outputs=True)``."""
    return _posted(history, hide_inputs=True, hide_outputs=True, stream=stream)


def hide_reasoning(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> list[Any]:
    """Returns the posted run bodies with ``hide_inputs`` and ``hide_outputs`` callables that drop
    reasoning blocks."""
    return _posted(history, hide_inputs=without_reasoning, hide_outputs=without_reasoning, stream=stream)


_NAME = "langsmith"
_MODULE = "langsmith.wrappers"
_STOPS = ("no reasoning flag: Client(hide_inputs=f, hide_outputs=f) with a callable f that drops thinking "
          "and redacted_thinking blocks")
COMPONENTS = [
    Component(f"{_NAME}.wrap_anthropic", _NAME, "wrap_anthropic", "Client() defaults", "trace", "anthropic",
              "conformance.egress.adapters.langsmith_anthropic:default", _MODULE, stops=_STOPS),
    Component(f"{_NAME}.wrap_anthropic.hide_reasoning", _NAME, "wrap_anthropic",
              "Client(hide_inputs=f, hide_outputs=f), f dropping thinking and redacted_thinking blocks", "trace",
              "anthropic", "conformance.egress.adapters.langsmith_anthropic:hide_reasoning", _MODULE, stops=_STOPS),
    Component(f"{_NAME}.wrap_anthropic.hide_all", _NAME, "wrap_anthropic", "Client(hide_inputs=True, hide_outputs=True)",
              "trace", "anthropic", "conformance.egress.adapters.langsmith_anthropic:hide_all", _MODULE,
              stops="none: it drops the answer with the reasoning"),
]
