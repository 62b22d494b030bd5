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
from ..provider.analyze.model import FAILING, NOT_JUDGED, Judgement, start
from ..provider.recordings import BodyError, Interaction
from ..provider.recordings.bodies import decode
from .policies import LOG, GuardAlert, Policy, resolve
from .prefix import BUDGET, CONVERSATIONS, Conversations
from .scanned import Scanned

# The words a request's bytes are scanned for (a conversation's resent bytes once: ``Scanned``); one
# that names none passes unparsed. A request that sets ``block_binding`` or sends thinking is parsed
# too: a thinking block it sends or gets back is noted, so that when a later call's block is dropped
# for its prefix (or the call is refused for it) the verdict can name what the client changed since,
# as ``analyze`` does on the same recording; the conversation's resent prefix is decoded once.
MANAGED = (b"context_management", b"compaction", b"block_binding", b'"thinking"')
# Paths of the calls whose context management the judges read; any other call passes unjudged.
WATCHED = ("/messages", "/messages/count_tokens", "/responses", "/responses/compact", "/responses/input_tokens")
TAIL = 4096  # the SDKs send ``context_management`` after the history: found here, a managed call needs no scan
# What makes the answer to a call without context management worth judging all the same: the
# service reports a thinking block it dropped or let through with a failed check.
REPORTED = re.compile(rb"thinking_dropped|thinking_mismatch_allowed")


def _plain_messages(path: str, request: bytes, scanned: Scanned | None = None) -> bool:
    """Returns whether a Messages call plainly uses no context management: its bytes name neither
    ``context_management`` nor a ``compaction`` (no answer of it can be a later call's chain) nor
    thinking (its configuration, its ``block_binding`` or a block), so it is passed without parsing a
    byte. ``scanned`` keeps the conversations' clean requests, so that only what follows the bytes a
    request resends is scanned."""
    if not path.rstrip("/").endswith("/messages"):
        return False
    if request.find(b"context_management", len(request) - TAIL) >= 0:
        return False
    if scanned is not None:
        return scanned.clean(request)
    return not any(request.find(word) >= 0 for word in MANAGED)


def _reported(response: bytes, status: int | None) -> bool:
    """Returns whether an answer has something to judge whatever its request holds: a rejection (whose
    message may name a rule of the history the request broke) or a report of a thinking block the
    service dropped or let through with a failed check (one scan of the answer's bytes)."""
    return (status is not None and status >= 400) or REPORTED.search(response) is not None


def _answer(raw: bytes, encoding: str, streamed: bool) -> Any:
    """Returns the decoded response body: plain JSON by the fast codec, anything else (an event
    stream, a compressed body) by the recordings' decoder; raises ``BodyError``."""
    if not streamed and not encoding and raw[:1] in (b"{", b"["):
        try:
            return _json.loads(raw)
        except ValueError:
            pass  # the decoder says what is wrong with it
    return decode(raw, encoding)


def watched(path: str) -> bool:
    """Returns whether a request path is one the judges read (Messages, Responses and their counts)."""
    return path.rstrip("/").endswith(WATCHED)


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
        self.scanned = Scanned(MANAGED, conversations, prefix_bytes) if conversations > 0 else None
        self.count = 0
        self._lock = threading.Lock()

    def judge(self, url: str, method: str, request: bytes, response: bytes, status: int | None,
              content_type: str = "", encoding: str = "") -> Judgement:
        """Returns the verdict on one exchange and runs the policies when it is an alert; raises
        ``GuardAlert`` under the ``raise`` policy (after the response was read whole)."""
        with self._lock:
            item = Interaction("guard", self.count, method=method, url=url, status=status)
            self.count += 1
            if _plain_messages(item.endpoint, request, self.scanned) and not _reported(response, status):
                self.earlier.advance()
                found = start(item, "anthropic", NOT_JUDGED)
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
