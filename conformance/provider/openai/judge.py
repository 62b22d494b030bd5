"""The Responses API judge ``conformance analyze`` finds as ``JUDGE``: any recording of OpenAI traffic
(another project's vcrpy cassettes included) judged by the same structural rules ``verify`` uses.

Per interaction: a ``previous_response_id`` chain is followed through the earlier interactions of
the same recording to rebuild the whole input; a compaction item carried in the input stands for
what precedes it (reached when part of the task in flight lies before it); then the request's own
mechanism (threshold compaction, ``/responses/compact``, a ``compaction_trigger``, ``truncation:
"auto"`` with the ``input_tokens`` counts of its suffixes found earlier in the recording) is judged
by ``rules``. The worst finding is the verdict. Evidence names indices, item types and counts, never
message text or ciphertext.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...formats.base import FormatError
from ..analyze.earlier import Earlier, digest, indexed
from ..analyze.model import CANNOT_TELL, NOT_JUDGED, REACHED, SETTLED, Judgement, failed, start, worst
from ..recordings import Interaction
from . import semantics as sem
from .rules import Exchange, judge as judge_exchange

PROVIDER = "openai"
ENDPOINTS = ("/responses", "/responses/compact", "/responses/input_tokens")


class ChainMissing(LookupError):
    """A ``previous_response_id`` that no earlier interaction of the recording answered."""


LONGEST_FIRST = tuple(sorted(ENDPOINTS, key=len, reverse=True))


def _endpoint(item: Interaction) -> str:
    path = item.endpoint.rstrip("/")
    return next((e for e in LONGEST_FIRST if path.endswith(e)), "")


def _own_input(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    value = request.get("input")
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return [dict(i) for i in value or [] if isinstance(i, Mapping)]


RESPONSES = "openai.response"  # the Earlier spaces: a response id -> its own input, output and previous id
COUNTS = "openai.count"  # an input_tokens call -> the length and digest of the input it counted


def _fingerprints(items: Sequence[Mapping[str, Any]]) -> str:
    return digest(json.dumps([sem.fingerprint(i) for i in items]))


def remember(item: Interaction, earlier: Earlier) -> None:
    """Notes what a later interaction may follow back to this one: a Responses answer by its id (not
    when the request said ``store: false``, which no later call can chain to), a token count by the
    input it counted."""
    request = item.request if isinstance(item.request, Mapping) else {}
    response = item.response if isinstance(item.response, Mapping) else {}
    endpoint = _endpoint(item)
    if endpoint == "/responses" and response.get("id") and request.get("store") is not False:
        own = request.get("input")
        earlier.put(RESPONSES, str(response["id"]), {
            "input": own if isinstance(own, str) else [i for i in own or [] if isinstance(i, Mapping)],
            "previous": request.get("previous_response_id"),
            "output": [o for o in response.get("output") or [] if isinstance(o, Mapping)]})
    elif endpoint == "/responses/input_tokens" and request and isinstance(response.get("input_tokens"), int):
        counted = _own_input(request)
        if counted:
            earlier.put(COUNTS, str(earlier.count), {"n": len(counted), "fingerprints": _fingerprints(counted),
                                                     "tokens": response["input_tokens"]})


def resolved_input(request: Mapping[str, Any], earlier: Earlier | Sequence[Interaction]) -> list[dict[str, Any]]:
    """Returns the request's whole input: the chain its ``previous_response_id`` names, then its own
    items; raises ``ChainMissing`` when the chain is not in the recording (or past the index's window)."""
    earlier = indexed(earlier, remember)
    items = _own_input(request)
    previous, before, links = request.get("previous_response_id"), earlier.count, []
    while previous:
        at = earlier.index_of(RESPONSES, str(previous))
        if at is None or at >= before:  # absent, or answered only by this chain's own later link (a loop)
            earlier.misses.append((RESPONSES, str(previous)))
            raise ChainMissing(f"previous_response_id {previous} is answered by no earlier interaction of this recording")
        found = earlier.get(RESPONSES, str(previous))
        links.append(found)
        previous, before = found.get("previous"), at
    chain: list[dict[str, Any]] = []
    for link in reversed(links):
        chain += _own_input(link) + [dict(o) for o in link.get("output") or []]
    return chain + items


def _suffix_counts(request: Mapping[str, Any], items: list[dict[str, Any]], earlier: Earlier) -> dict[int, int]:
    """Returns the ``input_tokens`` counts, recorded earlier in the same file, of suffixes of ``items``."""
    counts: dict[int, int] = {}
    prints: dict[int, str] = {}
    for entry in earlier.scan(COUNTS):
        n = int(entry["n"])
        if n > len(items):
            continue
        start_at = len(items) - n
        if start_at not in prints:
            prints[start_at] = _fingerprints(items[start_at:])
        if prints[start_at] == entry["fingerprints"]:
            counts[start_at] = int(entry["tokens"])
    return counts


def _carried(items: list[dict[str, Any]], live_start: int) -> tuple[str, list[str]] | None:
    """Returns the finding for a compaction item carried in the input, or None when none is."""
    positions = [n for n, i in enumerate(items) if i.get("type") == sem.COMPACTION]
    if not positions:
        return None
    k = positions[-1]
    live_before = [n for n in range(live_start, k) if items[n].get("type") != sem.COMPACTION]
    if live_before:
        return REACHED, [f"the input carries a compaction item at item {k}; items {live_before[0]}-{live_before[-1]} "
                         "of the task in flight lie before it"]
    return SETTLED, [f"the input carries a compaction item at item {k}; what it stands for precedes the task in "
                     f"flight (item {live_start})"]


def _asks(request: Mapping[str, Any], endpoint: str) -> bool:
    """Returns whether the request's own fields and input (no chain) may use context management."""
    if endpoint == "/responses/input_tokens":
        return False
    own = request.get("input")
    return endpoint == "/responses/compact" or bool(request.get("context_management")) \
        or request.get("truncation") == "auto" or (not isinstance(own, str) and any(
            isinstance(i, Mapping) and i.get("type") in (sem.COMPACTION, sem.TRIGGER) for i in own or []))


def _uses_context_management(request: Mapping[str, Any], items: list[dict[str, Any]], endpoint: str) -> bool:
    return endpoint == "/responses/compact" or bool(request.get("context_management")) \
        or request.get("truncation") == "auto" or any(i.get("type") in (sem.COMPACTION, sem.TRIGGER) for i in items)


def _strategy(request: Mapping[str, Any], endpoint: str, items: list[dict[str, Any]]) -> str:
    parts = []
    if endpoint == "/responses/compact":
        parts.append("responses.compact")
    for entry in request.get("context_management") or []:
        if isinstance(entry, Mapping):
            parts.append(f"context_management compaction(threshold {entry.get('compact_threshold')})")
    if any(i.get("type") == sem.TRIGGER for i in items):
        parts.append("compaction_trigger")
    if request.get("truncation") == "auto":
        parts.append("truncation auto")
    if any(i.get("type") == sem.COMPACTION for i in items):
        parts.append("carried compaction item")
    if request.get("previous_response_id"):
        parts.append("previous_response_id")
    return " + ".join(parts)


class OpenAIJudge:
    """The Responses API judge ``analyze`` finds as ``JUDGE``."""

    provider = PROVIDER

    def claims(self, item: Interaction) -> bool:
        """Returns whether the interaction is Responses API traffic (endpoint, host or body shape)."""
        if _endpoint(item) or "openai" in item.host:
            return True
        response = item.response if isinstance(item.response, Mapping) else {}
        return str(response.get("object", "")).startswith("response")

    def remember(self, item: Interaction, earlier: Earlier) -> None:
        """Notes what a later interaction of the same recording may follow back to this one."""
        remember(item, earlier)

    def judge(self, item: Interaction, earlier: Earlier | Sequence[Interaction]) -> Judgement:
        """Returns the verdict on one Responses API interaction (see the module docstring); ``earlier``
        is the index of the interactions before it (or those interactions, indexed here)."""
        earlier = indexed(earlier, remember)
        request = item.request
        if not isinstance(request, Mapping):
            return failed(item, PROVIDER, "the request body is not a JSON object")
        endpoint = _endpoint(item)
        if not request.get("previous_response_id") and not _asks(request, endpoint):
            found = start(item, PROVIDER, NOT_JUDGED)  # decided without copying the history
            found.evidence.append("a token count" if endpoint == "/responses/input_tokens"
                                  else "no context management in the request")
            return found
        try:
            items = resolved_input(request, earlier)
        except ChainMissing as exc:
            found = start(item, PROVIDER, CANNOT_TELL)
            found.evidence.append(str(exc))
            return found
        if endpoint == "/responses/input_tokens" or not _uses_context_management(request, items, endpoint):
            found = start(item, PROVIDER, NOT_JUDGED)
            found.evidence.append("a token count" if endpoint == "/responses/input_tokens"
                                  else "no context management in the request")
            return found
        response = item.response if isinstance(item.response, Mapping) else None
        if response is None:
            return failed(item, PROVIDER, "no response body was recorded")
        found = start(item, PROVIDER)
        found.strategy = _strategy(request, endpoint, items)
        exchange = Exchange("compact" if endpoint == "/responses/compact" else "responses", dict(request), items,
                            dict(response), item.status or 200, _suffix_counts(request, items, earlier))
        try:
            live = sem.live_start([i for i in items if i.get("type") != sem.TRIGGER])
        except FormatError as exc:
            return failed(item, PROVIDER, f"the input cannot be read: {exc}")
        found.live_start, found.history = live, len(items)
        findings: list[tuple[str, list[str]]] = []
        carried = _carried(items, live) if exchange.status < 400 else None
        if carried:
            findings.append(carried)
        ruled = judge_exchange(exchange)
        lines = [f"{ruled.mechanism}: {ruled.verdict}"] + ruled.reasons
        if ruled.folded:
            lines.append(f"folded or dropped input items {ruled.folded[0]}-{ruled.folded[-1]} "
                         f"({len(ruled.folded)} items)")
        if ruled.reached:
            lines.append(f"of the task in flight: items {ruled.reached}")
        if ruled.verdict == "rejected":
            lines.append(f"status {exchange.status}: {ruled.error_code}")
        if ruled.mechanism == "truncation" and not exchange.suffix_counts:
            findings.append((CANNOT_TELL, ["truncation auto: no input_tokens count of a suffix of this input is "
                                           "recorded before it, so what was dropped cannot be told"]))
        elif ruled.mechanism != "none" or not carried:
            findings.append((ruled.verdict, lines))
        found.verdict = worst([v for v, _ in findings])
        found.evidence = [line for _, group in findings for line in group]
        return found


JUDGE = OpenAIJudge()
