"""Judge the interactions a client makes, one by one, with the judges ``analyze`` uses.

``Guard.judge(url, method, request bytes, response bytes, ...)`` decodes the bodies (an event stream
reassembled; of a request that continues a conversation, only what follows the prefix the previous
request sent: ``prefix``), asks the judges for a verdict with the chains of the client's earlier
calls in a windowed index, and runs the policies on an alert. Bodies are dropped once judged (the
decoded prefix of the last ``conversations`` conversations kept, within a bound of bytes).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

from .. import _json
from ..provider.analyze.earlier import DEFAULT_WINDOW, Earlier
from ..provider.analyze.judging import judge_one, noted, notes_of
from ..provider.analyze.model import (CANNOT_TELL, FAILING, INCONSISTENT, NO_EDIT, NOT_JUDGED, SETTLED, Judgement,
                                      start)
from ..provider.base import Watch
from ..provider.recordings import BodyError, Interaction
from ..provider.recordings.bodies import decode, unpacker
from .policies import LOG, GuardAlert, Policy, resolve
from .prefix import BUDGET, CONVERSATIONS, Conversations
from .scanned import Scanned, clean_of

TAIL = 4096  # the bytes at a request's end where the SDKs write what comes after the history


class _Plain:
    """One judge's calls that may pass unparsed (its ``Watch``): the conversations' clean requests
    scanned once (``Scanned``), and the answer's words that make a call worth judging all the same."""

    def __init__(self, provider: str, watch: Watch, conversations: int, budget: int) -> None:
        self.provider, self.watch = provider, watch
        self.scanned = Scanned(watch.words, conversations, budget) if conversations > 0 else None
        self.reported = re.compile(b"|".join(re.escape(w) for w in watch.reported)) if watch.reported else None

    def passes(self, path: str, request: bytes, response: bytes, status: int | None) -> bool:
        """Returns whether a call plainly has nothing to judge: to a ``plain`` path, its request names
        none of the words nor writes a letter as an escape (``clean_of``; a conversation's resent
        bytes are not scanned again), and its answer is no
        rejection and names none of the reported words (one scan of the answer's bytes)."""
        watch = self.watch
        if not path.rstrip("/").endswith(watch.plain):
            return False
        if watch.tail_word and request.find(watch.tail_word, len(request) - TAIL) >= 0:
            return False
        clean = self.scanned.clean(request) if self.scanned is not None else clean_of(request, watch.words)
        if not clean or (status is not None and status >= 400):
            return False
        return self.reported is None or self.reported.search(response) is None


def _answer(raw: bytes, encoding: str, streamed: bool) -> Any:
    """Returns the decoded response body: plain JSON by the fast codec, anything else (an event
    stream, a compressed body) by the recordings' decoder; raises ``BodyError``."""
    if not streamed and not encoding and raw[:1] in (b"{", b"["):
        try:
            return _json.loads(raw)
        except ValueError:
            pass  # the decoder says what is wrong with it
    return decode(raw, encoding)


# verdicts the rest of a stream could contradict (what never came may be what makes a report add up)
UNSURE_WHEN_CUT = frozenset({NO_EDIT, SETTLED, NOT_JUDGED, INCONSISTENT})


def partial_stream(raw: bytes, encoding: str) -> tuple[bytes, str]:
    """Returns what a stream left before its end holds, as an identity-encoded body: decompressed as
    far as it came (gzip, deflate, br, zstd: ``unpacker``), cut after its last complete event; else
    ``raw`` and ``encoding`` as they were (the decoder then says what is wrong with them)."""
    if encoding.strip().lower() not in ("", "identity"):
        unpack = unpacker(encoding)
        if unpack is None:
            return raw, encoding
        try:
            raw = unpack(raw)
        except BodyError:
            return raw, encoding
    end = max(raw.rfind(b"\n\n"), raw.rfind(b"\r\n\r\n"))
    return (raw[:end] + b"\n\n" if end >= 0 else b""), ""


class Guard:
    """The judging half of the transports: the judges, the client's index of earlier calls, the policies."""

    def __init__(self, policy: Policy | Sequence[Policy] = "log", *, alert_on: Collection[str] = FAILING,
                 window: int = DEFAULT_WINDOW, judges: Sequence[Any] | None = None,
                 on_judgement: Callable[[Judgement], Any] | None = None, conversations: int = CONVERSATIONS,
                 prefix_bytes: int = BUDGET) -> None:
        """``conversations``: how many conversations' resent prefixes are kept decoded (0: each
        request is decoded whole), and as many of the requests passed unparsed kept scanned (0:
        each scanned whole), each within ``prefix_bytes`` bytes of requests in all."""
        from ..provider.analyze.registry import judges as registered

        self.policies = resolve(policy)
        self.alert_on = frozenset(alert_on)
        self.available = list(judges) if judges is not None else registered()
        self._notes = notes_of(self.available)
        self.on_judgement = on_judgement
        self.earlier = Earlier(window)
        self.conversations = Conversations(conversations, prefix_bytes) if conversations > 0 else None
        watches = [(judge.provider, watch) for judge in self.available
                   if isinstance(watch := getattr(judge, "watch", None), Watch)]
        self.paths = tuple(path for _, watch in watches for path in watch.paths)
        self.unread = tuple(path for _, watch in watches for path in watch.unread)
        self.ends = tuple(end for _, watch in watches for end in watch.ends)
        self.items = tuple(path for _, watch in watches for path in watch.items)
        self._plain = [_Plain(provider, watch, conversations, prefix_bytes) for provider, watch in watches
                       if watch.plain and watch.words]
        self.count = 0
        self._lock = threading.Lock()
        self._told_unread = False

    def watches(self, path: str) -> bool:
        """Returns whether a request path is one the judges read (their ``Watch.paths``, or one
        segment past their ``Watch.items``); a call to a path a judge names and cannot read
        (``Watch.unread``) is logged once, as not judged."""
        path = path.rstrip("/")
        if self.unread and path.endswith(self.unread) and not self._told_unread:
            self._told_unread = True
            LOG.warning("the guard cannot read calls to %s: they are not judged",
                        next(end for end in self.unread if path.endswith(end)))
        return path.endswith(self.paths) or bool(self.items) and path.rpartition("/")[0].endswith(self.items)

    def passes_unparsed(self, path: str, request: bytes, response: bytes, status: int | None) -> str | None:
        """Returns the provider of a call that plainly has nothing to judge (``Watch``: it passes
        without a byte parsed), else None."""
        for plain in self._plain:
            if plain.passes(path, request, response, status):
                return plain.provider
        return None

    def judge(self, url: str, method: str, request: bytes, response: bytes, status: int | None,
              content_type: str = "", encoding: str = "", whole: bool = True) -> Judgement:
        """Returns the verdict on one exchange and runs the policies when it is an alert; raises
        ``GuardAlert`` under the ``raise`` policy (after the response was read whole or closed, or as its end event came).

        A body that is not ``whole`` (a stream the caller left or that broke off) is judged on its
        complete events (``partial_stream``); a verdict that what never came could contradict
        (no edit, settled only, nothing to judge) is then cannot-tell."""
        if not whole:
            response, encoding = partial_stream(response, encoding)
            whole = not encoding and any(end in response for end in self.ends)  # (left after its last event)
        with self._lock:
            item = Interaction("guard", self.count, method=method, url=url, status=status)
            self.count += 1
            plain = self.passes_unparsed(item.endpoint, request, response, status)
            if plain is not None:
                self.earlier.advance()
                found = start(item, plain, NOT_JUDGED)
                found.evidence.append("no context management in the request")
                return self._report(found)
            self.earlier.resent = None
            try:
                if not request:
                    item.request = None
                elif self.conversations is None:
                    item.request = _json.loads(request)
                else:
                    item.request, self.earlier.resent = self.conversations.decode(request)
            except ValueError:
                item.error = "request body: not JSON"
            try:
                item.streamed = "event-stream" in content_type
                item.response = _answer(response, encoding, item.streamed)
            except BodyError as exc:
                item.error = f"response body: {exc}"
            found = noted(item, self.earlier, self._notes, judge_one(item, self.earlier, self.available))
            self.earlier.resent = None
            self.earlier.advance()
        if not whole and found.verdict in UNSURE_WHEN_CUT:
            found.verdict = CANNOT_TELL
            found.evidence.append("the stream was closed before its end: what the service reports at the end "
                                  "(applied edits, compaction) never came, so what it did cannot be told")
        return self._report(found)

    def _report(self, found: Judgement) -> Judgement:
        """Returns ``found`` after the callback and, for an alert, the policies (``GuardAlert`` raised
        last). A callback or policy that raises anything else is logged and passed over: an exception
        raised while the SDK reads a response makes it send the call again."""
        calls = [self.on_judgement] if self.on_judgement is not None else []
        if found.verdict in self.alert_on:
            calls += self.policies
        raised: GuardAlert | None = None
        for call in calls:
            try:
                call(found)
            except GuardAlert as exc:  # raised last, so every other policy still reports
                raised = exc
            except Exception as exc:  # noqa: BLE001 - a broken callback must not resend the call
                LOG.warning("a guard policy raised %s; the call goes on", type(exc).__name__)
        if raised is not None:
            raise raised
        return found
