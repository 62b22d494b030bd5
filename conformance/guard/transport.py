"""The httpx2 transports: the response stream is teed, each chunk handed on the moment it arrives,
and the exchange is judged when the stream ends (after the last byte, so none is delayed).

``Transport(inner)`` wraps any ``httpx2.BaseTransport`` (``httpx2.HTTPTransport()`` by default),
``AsyncTransport(inner)`` any ``httpx2.AsyncBaseTransport``; the other arguments are ``Guard``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2

from .judge import Guard, watched
from .policies import LOG


class _Tee(httpx2.SyncByteStream):
    """Hands on the inner stream's chunks as they come, keeps a copy, and judges at the end."""

    def __init__(self, inner: httpx2.SyncByteStream, done: Any) -> None:
        self.inner, self.done = inner, done
        self.chunks: list[bytes] = []

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.chunks.append(chunk)
            yield chunk
        chunks, self.chunks = self.chunks, []
        self.done(b"".join(chunks))

    def close(self) -> None:
        self.chunks = []
        self.inner.close()


class _AsyncTee(httpx2.AsyncByteStream):
    """The asynchronous ``_Tee``."""

    def __init__(self, inner: httpx2.AsyncByteStream, done: Any) -> None:
        self.inner, self.done = inner, done
        self.chunks: list[bytes] = []

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.chunks.append(chunk)
            yield chunk
        chunks, self.chunks = self.chunks, []
        self.done(b"".join(chunks))

    async def aclose(self) -> None:
        self.chunks = []
        await self.inner.aclose()


def _watch(guard: Guard, request: httpx2.Request, response: httpx2.Response, tee: type) -> None:
    """Tees the response's stream to the judge; a response the inner transport already read whole
    (a mock's, a cache's) is judged at once, from its decoded content."""
    body, url, method = request.content, str(request.url), request.method
    kind = response.headers.get("content-type", "")
    try:
        content = response.content
    except httpx2.ResponseNotRead:
        encoding = response.headers.get("content-encoding", "")
        response.stream = tee(response.stream, lambda raw: _safely(guard.judge, url, method, body, raw,
                                                                       response.status_code, kind, encoding))
        return
    _safely(guard.judge, url, method, body, content, response.status_code, kind)


def _safely(judge: Any, *args: Any) -> None:
    """Runs the judgement; a bug in it is logged, never raised into the SDK (which would resend the
    call): only ``GuardAlert``, a ``BaseException``, reaches the caller."""
    try:
        judge(*args)
    except Exception as exc:  # noqa: BLE001 - a judge's bug must not break the caller's call
        LOG.warning("the guard could not judge a call (%s); the call goes on", type(exc).__name__)


class Transport(httpx2.BaseTransport):
    """An httpx2 transport that judges every Messages and Responses call passing through it."""

    def __init__(self, transport: httpx2.BaseTransport | None = None, **options: Any) -> None:
        self.inner = transport if transport is not None else httpx2.HTTPTransport()
        self.guard = options.pop("guard", None) or Guard(**options)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Returns the inner transport's response, its stream teed to the judge when the call is watched."""
        if watched(request.url.path):
            request.read()  # the SDKs send bytes; a streamed upload is read once, here
        response = self.inner.handle_request(request)
        if watched(request.url.path):
            _watch(self.guard, request, response, _Tee)
        return response

    def close(self) -> None:
        """Closes the inner transport."""
        self.inner.close()


class AsyncTransport(httpx2.AsyncBaseTransport):
    """The asynchronous ``Transport``, for ``httpx2.AsyncClient`` (``anthropic.AsyncAnthropic``, ``openai.AsyncOpenAI``)."""

    def __init__(self, transport: httpx2.AsyncBaseTransport | None = None, **options: Any) -> None:
        self.inner = transport if transport is not None else httpx2.AsyncHTTPTransport()
        self.guard = options.pop("guard", None) or Guard(**options)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Returns the inner transport's response, its stream teed to the judge when the call is watched."""
        if watched(request.url.path):
            await request.aread()
        response = await self.inner.handle_async_request(request)
        if watched(request.url.path):
            _watch(self.guard, request, response, _AsyncTee)
        return response

    async def aclose(self) -> None:
        """Closes the inner transport."""
        await self.inner.aclose()
