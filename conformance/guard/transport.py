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

import functools
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


HEAD = 128  # the first bytes of an event where its type is read (an ``event:`` line, then ``data: {"type":``)


@functools.lru_cache(maxsize=8)
def _typed(ends: tuple[bytes, ...]) -> re.Pattern[bytes]:
    """Returns the pattern of an event's ``type`` that is one of ``ends`` (as its bytes name it, quoted)."""
    return re.compile(rb'"type"\s*:\s*(?:' + b"|".join(re.escape(end) for end in ends) + rb")")


class _Ends:
    """Tells, from an event stream's chunks as they pass (decompressed by ``unpack``, when given), when
    the event that ends it is complete: an event whose ``type`` is one of ``ends`` (``Watch.ends``),
    with its blank line. The end event is the last one, so only the last event a chunk completes is
    read, by its first ``HEAD`` bytes: each chunk costs two searches back from its end over its last
    event and one over that event's head, none over its other bytes. The blank line is the one the
    stream's first bytes use (``\\r\\n\\r\\n`` or ``\\n\\n``)."""

    def __init__(self, ends: tuple[bytes, ...], unpack: Callable[[bytes], bytes] | None) -> None:
        self.typed, self.unpack = _typed(ends), unpack
        self.blank = b""  # the stream's blank line, once its first bytes came
        self.head = b""  # the first bytes of the event in progress
        self.tail = b""  # the last bytes of the stream so far (a blank line may start there)

    def complete(self, chunk: bytes) -> bool:
        """Returns whether ``chunk`` completes the stream's end event; raises ``BodyError`` when a
        compressed chunk does not decompress."""
        if self.unpack is not None:
            chunk = self.unpack(chunk)
        if not chunk:
            return False
        blank = self.blank or self._blank(chunk)
        cut = chunk.rfind(blank) if blank else -1
        if cut >= 0:
            cut += len(blank)
        elif blank:  # (a blank line split by the chunks' edge)
            edge = self.tail + chunk[:len(blank) - 1]
            cut = max(edge.rfind(blank) + len(blank) - len(self.tail), -1) if blank in edge else -1
        self.tail = chunk[-3:] if len(chunk) >= 3 else (self.tail + chunk)[-3:]
        if cut <= 0:  # the event in progress goes on (or no line has ended yet)
            if len(self.head) < HEAD:
                self.head += chunk[:HEAD - len(self.head)]
            return False
        start = chunk.rfind(blank, 0, max(cut - 1, 0))  # (where the last event completed here starts)
        event = chunk[start + len(blank):min(start + len(blank) + HEAD, cut)] if start >= 0 \
            else self.head + chunk[:min(HEAD, cut)]
        self.head = chunk[cut:cut + HEAD]
        return self.typed.search(event) is not None

    def _blank(self, chunk: bytes) -> bytes:
        """Returns (and keeps) the blank line of a stream whose first line ends in ``chunk`` (or in
        the bytes before it), or b"" while no line has ended."""
        if chunk.find(b"\n") >= 0:
            self.blank = b"\r\n\r\n" if (self.tail[-1:] + chunk).find(b"\r\n") >= 0 else b"\n\n"
        return self.blank


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
