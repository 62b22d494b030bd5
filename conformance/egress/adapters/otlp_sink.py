"""A local OTLP/HTTP trace receiver: an ASGI app served on 127.0.0.1 (``local_server.mount``) that
keeps every ``ExportTraceServiceRequest`` posted to ``/v1/traces``, for a library whose real
exporter is OTLP; ``spans()`` decodes what arrived to each span's attributes."""

from __future__ import annotations

import gzip
from typing import Any

from .local_server import mount

_BODIES: list[bytes] = []
_URL: list[str] = []


async def _receiver(scope: dict[str, Any], receive: Any, send: Any) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    headers = dict(scope.get("headers") or [])
    _BODIES.append(gzip.decompress(body) if headers.get(b"content-encoding") == b"gzip" else body)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/x-protobuf")]})
    await send({"type": "http.response.body", "body": b""})


def endpoint() -> str:
    """Returns the receiver's traces URL (``.../v1/traces``), serving it on first use."""
    if not _URL:
        _URL.append(mount(_receiver) + "/v1/traces")
    return _URL[0]


def clear() -> None:
    """Forgets what arrived so far."""
    _BODIES.clear()


def spans() -> list[dict[str, Any]]:
    """Returns every span received since ``clear()``: its name and its attributes (values as sent)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    out: list[dict[str, Any]] = []
    for body in _BODIES:
        request = MessageToDict(ExportTraceServiceRequest.FromString(body))
        for resource in request.get("resourceSpans", []):
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    attributes = {a["key"]: next(iter(a.get("value", {}).values()), None)
                                  for a in span.get("attributes", [])}
                    out.append({"name": span.get("name"), "attributes": attributes})
    return out
