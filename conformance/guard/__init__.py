"""The analyze judge live in the client: an httpx2 transport both SDKs accept.

    import anthropic, httpx2
    from conformance.guard import Transport

    client = anthropic.Anthropic(http_client=httpx2.Client(transport=Transport(policy="raise")))

Each interaction is judged as it passes (``judge``), streamed responses included, with every byte
handed on as it arrives (``transport``: the stream is teed, and judged when it ends); a verdict that
reached a task in flight (or is inconsistent) is reported by the policies of ``policies``: log,
raise after the response, a callback, an OpenTelemetry span event or metric. No body is kept after
its judgement, and nothing it reports carries reasoning text, message text or credentials.
``Transport(background=True)`` judges on a thread of its own (``worker``), off the caller's path.
"""

from __future__ import annotations

from .judge import Guard
from .policies import GuardAlert
from .transport import AsyncTransport, Transport

__all__ = ["AsyncTransport", "Guard", "GuardAlert", "Transport"]
