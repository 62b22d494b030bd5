"""The httpx2 transports: the response stream is teed, each chunk handed on the moment it arrives,
and the exchange is judged when the stream ends: an event stream as the event that ends it is
complete (``_Ends``), before the chunk that completes it is handed on, so that a caller who stops
reading there (a bare ``break``, the stream never closed) gets a ``GuardAlert`` in its own frame and
its next call is judged after this one; any other stream after its last byte, or when it is closed.
No byte waits for more than the judging.

``Transport(inner)`` wraps any ``httpx2.BaseTransport`` (``httpx2.HTTPTransport()`` by default),
``AsyncTransport(inner)`` any ``httpx2.AsyncBaseTransport``; the other arguments are ``Guard``'s.
With ``background=True`` the judging runs on a thread of its own (``worker``): the caller only
queues the exchange, except under a ``raise`` or ``otel-event`` policy, where it waits for the
verdict when the response ends; callbacks and the other policies then run on that thread.
"""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2

from ..provider.recordings import BodyError
from ..provider.recordings.bodies import inflate, unpacker
from .judge import Guard
from .policies import LOG, GuardAlert, in_caller
from .worker import Worker


_TYPED = re.compile(rb'"type"\s*:\s*$')  # what comes before an end's name where it is an event's type


class _Ends:
    """Tells, from an event stream's chunks as they pass (decompressed by ``unpack``, when given), when
    the event that ends it is complete: an event whose ``type`` is one of ``ends`` (as its bytes name
    it, quoted: ``Watch.ends``) and the blank line after it. Each chunk is searched once, with the few
    bytes before it that a name or a blank line may start in."""

    def __init__(self, ends: tuple[bytes, ...], unpack: Callable[[bytes], bytes] | None) -> None:
        self.ends, self.unpack = ends, unpack
        self.keep = max(len(end) for end in ends) + 16  # (an end's name, and its "type": key)
        self.tail = b""
        self.named = False  # an end event's type has passed; its blank line has not yet

    def complete(self, chunk: bytes) -> bool:
        """Returns whether ``chunk`` completes the stream's end event; raises ``BodyError`` when a
        compressed chunk does not decompress."""
        text = self.tail + (self.unpack(chunk) if self.unpack is not None else chunk)
        if not self.named:
            after = self._named(text)
            if after < 0:
                self.tail = text[-self.keep:]
                return False
            self.named, text = True, text[after:]
        if text.find(b"\n\n") >= 0 or text.find(b"\r\n\r\n") >= 0:
            return True
        self.tail = text[-3:]
        return False

    def _named(self, text: bytes) -> int:
        """Returns where an end's name as an event's ``type`` ends in ``text``, or -1."""
        for end in self.ends:
            at = text.find(end)
            while at >= 0:
                if _TYPED.search(text, max(at - 16, 0), at):
                    return at + len(end)
                at = text.find(end, at + 1)
        return -1


def _ends(ends: tuple[bytes, ...], response: httpx2.Response) -> _Ends | None:
    """Returns the watch for the end event of a response that is an event stream, identity-encoded
    or in an encoding ``unpacker`` decompresses; else None (judged when the stream ends)."""
    if not ends or "event-stream" not in response.headers.get("content-type", ""):
        return None
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding in ("", "identity"):
        return _Ends(ends, None)
    unpack = unpacker(encoding)
    return _Ends(ends, unpack) if unpack is not None else None


class _Kept:
    """A copy of a response stream's chunks as they pass, judged once: as its end event is complete
    (``_Ends``), at its end, or on what came of it when the caller closes it early or the stream
    breaks off."""

    def __init__(self, inner: Any, done: Any, ending: _Ends | None = None) -> None:
        self.inner, self.done, self.ending = inner, done, ending
        self.chunks: list[bytes] = []
        self.whole = False  # the inner stream was read to its end

    def keep(self, chunk: bytes) -> None:
        """Keeps a copy of ``chunk`` until the stream is judged, and judges it (``end``) when the chunk
        completes its end event: before the chunk is handed on, so a caller who stops reading at
        that event has its verdict, and a ``GuardAlert``, first."""
        if self.done is None:
            return
        self.chunks.append(chunk)
        if self.ending is None:
            return
        try:
            complete = self.ending.complete(chunk)
        except BodyError:  # (judged when the stream ends, as an encoding it cannot follow)
            self.ending = None
            return
        if complete:
            self.ending = None
            self.end()

    def end(self) -> None:
        """Judges what came of the stream, once, saying whether it was all of it. While an exception
        of the caller's unwinds (a ``stream()`` block left by a raise), a ``GuardAlert`` is logged
        rather than raised in its place."""
        done, self.done = self.done, None
        chunks, self.chunks = self.chunks, []
        if done is None:
            return
        unwinding = sys.exc_info()[1]
        try:
            done(b"".join(chunks), self.whole)
        except GuardAlert as alert:
            if unwinding is None or isinstance(unwinding, GeneratorExit):
                raise
            LOG.warning("guard alert while the caller's %s unwinds: %s", type(unwinding).__name__, alert)


class _Tee(_Kept, httpx2.SyncByteStream):
    """Hands on the inner stream's chunks as they come, keeping a copy (``_Kept``)."""

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self.inner:
                self.keep(chunk)
                yield chunk
            self.whole = True
        finally:  # (read to the end, broken off, or left by the caller)
            self.end()

    def close(self) -> None:
        try:
            self.end()
        finally:
            self.inner.close()


class _AsyncTee(_Kept, httpx2.AsyncByteStream):
    """The asynchronous ``_Tee``."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.inner:
                self.keep(chunk)
                yield chunk
            self.whole = True
        finally:
            self.end()

    async def aclose(self) -> None:
        try:
            self.end()
        finally:
            await self.inner.aclose()


def _plain(request: httpx2.Request) -> bytes:
    """Returns the request's body as sent before its ``content-encoding`` (a compressing client or
    gateway), or as it is where it does not decompress (the judge then says it is not JSON)."""
    encoding = request.headers.get("content-encoding", "")
    if not encoding or encoding.lower() == "identity":
        return request.content
    try:
        return inflate(request.content, encoding)
    except BodyError:
        return request.content


def _watch(run: Callable[..., None], request: httpx2.Request, response: httpx2.Response, tee: type,
           ends: tuple[bytes, ...]) -> None:
    """Tees the response's stream to ``run`` (the judge's arguments), judged as the event that ends
    it (one of ``ends``) is complete, or at its end; a response the inner transport already read
    whole (a mock's, a cache's) is handed on at once, from its decoded content."""
    body, url, method = _plain(request), str(request.url), request.method
    kind = response.headers.get("content-type", "")
    try:
        content = response.content
    except httpx2.ResponseNotRead:
        encoding = response.headers.get("content-encoding", "")
        response.stream = tee(response.stream, lambda raw, whole: run(url, method, body, raw, response.status_code,
                                                                      kind, encoding, whole), _ends(ends, response))
        return
    run(url, method, body, content, response.status_code, kind)


class _Judging:
    """What both transports share: the guard, and where it judges (inline, or on a ``Worker``)."""

    def __init__(self, options: dict[str, Any]) -> None:
        background = bool(options.pop("background", False))
        self.guard: Guard = options.pop("guard", None) or Guard(**options)
        self.worker = Worker(self.guard.judge) if background else None
        self._waits = in_caller(self.guard.policies)

    def run(self, *args: Any) -> None:
        """Judges one exchange (url, method, request bytes, response bytes, status, content type[,
        encoding, whether the body is whole]) inline, or queues it for the worker (waiting for the verdict when a policy must
        act in the caller's thread); raises only ``GuardAlert``."""
        if self.worker is None:
            _safely(self.guard.judge, *args)
        else:
            self.worker.submit(args, wait=self._waits, weight=len(args[2]) + len(args[3]))

    def flush(self) -> None:
        """Returns once every exchange handed on so far is judged (at once when judging inline)."""
        if self.worker is not None:
            self.worker.flush()

    def stop(self) -> None:
        """Judges what is queued and ends the worker's thread."""
        if self.worker is not None:
            self.worker.close()


def _safely(judge: Any, *args: Any) -> None:
    """Runs the judgement; a bug in it is logged, never raised into the SDK (which would resend the
    call): only ``GuardAlert``, a ``BaseException``, reaches the caller."""
    try:
        judge(*args)
    except Exception as exc:  # noqa: BLE001 - a judge's bug must not break the caller's call
        LOG.warning("the guard could not judge a call (%s); the call goes on", type(exc).__name__)


class Transport(_Judging, httpx2.BaseTransport):
    """An httpx2 transport that judges every call passing through it to a path the judges read (``Watch``)."""

    def __init__(self, transport: httpx2.BaseTransport | None = None, **options: Any) -> None:
        self.inner = transport if transport is not None else httpx2.HTTPTransport()
        super().__init__(options)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Returns the inner transport's response, its stream teed to the judge when the call is watched."""
        judged = self.guard.watches(request.url.path)
        if judged:
            request.read()  # the SDKs send bytes; a streamed upload is read once, here
        response = self.inner.handle_request(request)
        if judged:
            _watch(self.run, request, response, _Tee, self.guard.ends)
        return response

    def close(self) -> None:
        """Judges what is queued, then closes the inner transport."""
        self.stop()
        self.inner.close()


class AsyncTransport(_Judging, httpx2.AsyncBaseTransport):
    """The asynchronous ``Transport``, for ``httpx2.AsyncClient`` (``anthropic.AsyncAnthropic``, ``openai.AsyncOpenAI``)."""

    def __init__(self, transport: httpx2.AsyncBaseTransport | None = None, **options: Any) -> None:
        self.inner = transport if transport is not None else httpx2.AsyncHTTPTransport()
        super().__init__(options)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Returns the inner transport's response, its stream teed to the judge when the call is watched."""
        judged = self.guard.watches(request.url.path)
        if judged:
            await request.aread()
        response = await self.inner.handle_async_request(request)
        if judged:
            _watch(self.run, request, response, _AsyncTee, self.guard.ends)
        return response

    async def aclose(self) -> None:
        """Judges what is queued, then closes the inner transport."""
        self.stop()
        await self.inner.aclose()
