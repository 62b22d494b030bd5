"""The Responses API judge ``conformance analyze`` finds as ``JUDGE``: any recording of OpenAI traffic
(another project's vcrpy cassettes included) judged by the same structural rules ``verify`` uses.

Per interaction: a ``previous_response_id`` chain is followed through the earlier interactions of
the same recording to rebuild the whole input; a compaction item carried in the input stands for
what precedes it (reached when part of the task in flight lies before it; when no new request
follows it, the task in flight starts at it, and it is followed back to the interaction that
returned it, to what it stands for there); then the request's own
mechanism (threshold compaction, ``/responses/compact``, a ``compaction_trigger``, ``truncation:
"auto"`` with the ``input_tokens`` counts of its suffixes found earlier in the recording) is judged
by ``rules``. The worst finding is the verdict. Evidence names indices, item types and counts, never
message text or ciphertext.

A request sent in background mode is answered ``queued`` (cannot-tell: the output comes later);
its request is kept by its response id, and the response retrieved complete by ``GET
/responses/{id}`` is judged against it (a poll still queued or in progress is not judged).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ...formats.base import FormatError
from ..._json import is_mapping as _is_mapping
from ..analyze.earlier import Earlier, indexed, stand_in
from ..analyze.request_judge import RequestJudge
from ..base import Watch
from ..analyze.model import CANNOT_TELL, NO_EDIT, NOT_JUDGED, REACHED, SETTLED, Judgement, failed, start, worst
from ..recordings import Interaction
from . import semantics as sem
from .rules import Exchange, judge as judge_exchange

PROVIDER = "openai"
ENDPOINTS = ("/responses", "/responses/compact", "/responses/input_tokens")


# ``compaction_summary`` is what the ChatGPT Codex backend (chatgpt.com/backend-api/codex) calls the
# item api.openai.com returns as ``compaction``; Codex's own protocol accepts either name.
ALIASES = {"compaction_summary": sem.COMPACTION}
ALIAS_ORIGIN = {"compaction_summary": "the ChatGPT Codex backend's name for `compaction`"}
KNOWN_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
                         "custom_tool_call_output", "computer_call", "computer_call_output", "local_shell_call",
                         "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
                         "apply_patch_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request",
                         "mcp_approval_response", "item_reference", "tool_search_call", "tool_search_output",
                         sem.COMPACTION, sem.TRIGGER, *sem.HOSTED_CALLS, *ALIASES})
ALIAS_KEY = "_conformance_alias"
PLAIN_ITEMS = KNOWN_ITEMS - ALIAS_ORIGIN.keys()  # modelled types no evidence line names


# The input item types that may use context management, and those an answer's compaction goes by.
SPECIAL_INPUT = (sem.COMPACTION, sem.TRIGGER, *ALIASES)
RETURNED_COMPACTION = (sem.COMPACTION, *ALIASES)


def _aliased(item: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the item with an aliased type (``compaction_summary``) under its modelled name, marked."""
    kind = item.get("type")
    if kind in ALIASES:
        return {**item, "type": ALIASES[kind], ALIAS_KEY: kind}
    return dict(item)


def indices(numbers: Sequence[int]) -> str:
    """Returns exact index lists: ``0``, ``1 and 3``, ``0-4``, ``1, 3 and 5-7``."""
    runs: list[str] = []
    ordered = sorted(set(numbers))
    start = 0
    for n in range(1, len(ordered) + 1):
        if n == len(ordered) or ordered[n] != ordered[n - 1] + 1:
            first, last = ordered[start], ordered[n - 1]
            runs.append(str(first) if first == last else f"{first}-{last}")
            start = n
    return runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + " and " + runs[-1]


def items_label(numbers: Sequence[int], what: str = "items") -> str:
    """Returns ``item 2``, ``items 1 and 3`` or ``items 0-4 (5 items)`` for a list of indices."""
    if len(numbers) == 1:
        return f"{what[:-1]} {numbers[0]}"
    return f"{what} {indices(numbers)} ({len(set(numbers))} items)"


def unmodelled(items: Sequence[Mapping[str, Any]], output: Sequence[Mapping[str, Any]],
               alias: bool = False) -> list[str]:
    """Returns one evidence line per input or output item type this judge does not model (with
    ``alias``: per item under another backend's name, which it does model)."""
    return _unmodelled(items, output)[1 if alias else 0]


def _unmodelled(items: Sequence[Mapping[str, Any]], output: Sequence[Mapping[str, Any]],
                ) -> tuple[list[str], list[str]]:
    """Returns ``unmodelled`` without and with ``alias``, found in one pass."""
    lines: list[str] = []
    aliased: list[str] = []
    for where, group in (("input", items), ("output", output)):
        kinds = [item.get(ALIAS_KEY) or item.get("type", "message") for item in group]
        if PLAIN_ITEMS.issuperset(kinds):
            continue  # (the common case: every item modelled under its own name, told in one pass)
        for n, kind in enumerate(kinds):
            if kind in ALIAS_ORIGIN:
                aliased.append(f"{where} item {n} `{kind}` is {ALIAS_ORIGIN[kind]}; judged as one")
            if kind not in KNOWN_ITEMS:
                lines.append(f"{where} item {n} `{kind}` is not a type this judge models")
    return lines, aliased


def producer(item: Mapping[str, Any], earlier: Earlier) -> tuple[int, list[dict[str, Any]] | None] | None:
    """Returns the latest earlier interaction that returned a compaction item (by id or by
    ciphertext), with the ``semantics.skeleton`` of what the item stands for there (None when that
    cannot be told: no request, unreadable items, a chain not in the recording); None, the keys
    noted as misses, when no interaction of this recording returned it."""
    keys = _origin_keys(item)
    found: tuple[int, Any] | None = None
    for space, key in keys:
        entry = earlier.lookup(space, key)
        if entry is not None and (found is None or entry[0] > found[0]):
            found = entry
    if found is None:
        return None
    earlier.misses = [m for m in earlier.misses if m not in keys]  # (one key found it: neither is a miss)
    value = found[1] if isinstance(found[1], dict) else {}
    span, previous = value.get("span"), value.get("previous")
    if not isinstance(span, list):
        return found[0], None
    if previous:  # (the chain is rebuilt now, so a link past this range is a miss of this interaction)
        try:
            chain = sem.skeleton(resolved_input({"previous_response_id": previous}, earlier, at=found[0]))
        except ChainMissing:
            return found[0], None
        return found[0], None if chain is None else chain + span
    return found[0], span


def _origin_keys(item: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Returns the ``(space, key)`` pairs a compaction item is found by: its id and its ciphertext,
    each when it has one (the ciphertext, kilobytes long, is its own key: not copied into another)."""
    return [(space, str(item[name])) for name, space in (("id", ORIGINS), ("encrypted_content", CIPHERTEXTS))
            if item.get(name)]


class ChainMissing(LookupError):
    """A ``previous_response_id`` that no earlier interaction of the recording answered."""


LONGEST_FIRST = tuple(sorted(ENDPOINTS, key=len, reverse=True))


def _endpoint(item: Interaction) -> str:
    return _endpoint_of(item.url)


@functools.lru_cache(maxsize=1024)
def _endpoint_of(url: str) -> str:
    # A log names few distinct URLs: each is split once, not three times an interaction.
    path = (urlsplit(url).path if url else "").rstrip("/")
    return next((e for e in LONGEST_FIRST if path.endswith(e)), "")


def _own_input(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    value = request.get("input")
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return [dict(i) for i in value or [] if _is_mapping(i)]


def _own_items(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Returns ``_aliased`` of each of ``_own_input(request)``, each item copied once."""
    value = request.get("input")
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return [dict(i) if i.get("type") not in ALIASES else _aliased(i)  # (what _aliased gives, told at once)
            for i in value or [] if _is_mapping(i)]


RESPONSES = "openai.response"  # the Earlier spaces: a response id -> its own input, output and previous id
COUNTS = "openai.count"  # the key of the input an input_tokens call counted -> its count
ORIGINS = "openai.compaction"  # a returned compaction item's id -> what it stands for (_stands_for)
CIPHERTEXTS = "openai.compaction.ciphertext"  # a returned compaction item's ciphertext -> the same
BACKGROUND = "openai.background"  # a queued background response's id -> its request (input noted)
RUNNING = ("queued", "in_progress")  # a background response's statuses before its output is in


@functools.lru_cache(maxsize=1024)
def _retrieved_of(url: str) -> str:
    """Returns the response id a ``GET`` of ``url`` retrieves (``.../responses/{id}``), else ""."""
    parent, _, last = (urlsplit(url).path if url else "").rstrip("/").rpartition("/")
    return last if parent.endswith("/responses") and last not in ("compact", "input_tokens") else ""


def _retrieved(item: Interaction) -> str:
    """Returns the id of the response ``item`` retrieves (``GET /responses/{id}``), else ""."""
    return _retrieved_of(item.url) if item.method.upper() == "GET" else ""


def suffix_keys(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Returns, for each index, a key of the items from it to the end (by fingerprint, never by id):
    equal keys, equal suffixes. A chained hash, so all of them cost one pass."""
    keys, chained = [""] * len(items), b""
    for n in range(len(items) - 1, -1, -1):
        chained = hashlib.blake2b(json.dumps(sem.fingerprint(items[n])).encode() + chained, digest_size=16).digest()
        keys[n] = chained.hex()
    return keys


def remember(item: Interaction, earlier: Earlier) -> None:
    """Notes what a later interaction may follow back to this one: a Responses answer by its id (not
    when the request said ``store: false``, which no later call can chain to), the compaction items
    it returned, a token count by the input it counted."""
    response = item.response
    if not _is_mapping(response):
        return  # (no answer: nothing a later call may follow back to)
    output = response.get("output")
    retrieved = _retrieved(item)
    if retrieved:  # (a later call chains to the answer as retrieved complete, through its request)
        asked = earlier.get(BACKGROUND, retrieved) if response.get("status") not in RUNNING else None
        if _is_mapping(asked) and isinstance(output, list):
            earlier.put(RESPONSES, retrieved, {"input": asked.get("input") or [], "previous": asked.get("previous_response_id"),
                                               "output": _noted_items(output)})
        return
    endpoint = _endpoint(item)
    if isinstance(output, list):
        for pos, o in enumerate(output):
            if _is_mapping(o) and o.get("type") in RETURNED_COMPACTION:
                stands_for = _stands_for(item, output[:pos] if endpoint != "/responses/compact" else [])
                for space, key in _origin_keys(o):
                    earlier.put(space, key, stands_for)
    # (a recorder that redacts the URI leaves no endpoint: a Responses object answered it)
    if endpoint == "/responses" or not endpoint and response.get("object") == "response":
        request = item.request if _is_mapping(item.request) else {}
        own = request.get("input")
        if response.get("id") and request.get("store") is not False:
            earlier.put(RESPONSES, str(response["id"]), {
                "input": own if isinstance(own, str) else _noted_items(own or []),
                "previous": request.get("previous_response_id"),
                "output": _noted_items(output or []) if isinstance(output, list) else []})
        if response.get("id") and response.get("status") in RUNNING and (item.status or 200) < 400:
            earlier.put(BACKGROUND, str(response["id"]),
                        {**request, "input": own if isinstance(own, str) else _noted_items(own or [])})
        return
    if endpoint == "/responses/input_tokens" and isinstance(response.get("input_tokens"), int) \
            and _is_mapping(item.request) and item.request:
        counted = _own_input(item.request)
        if counted:
            earlier.put(COUNTS, suffix_keys(counted)[0], response["input_tokens"])


def _stands_for(item: Interaction, before: Sequence[Any]) -> dict[str, Any]:
    """Returns what a compaction item the interaction returned stands for, as a later request that
    carries it reads it (``producer``): ``span``, the ``semantics.skeleton`` of the request's own
    input (a trigger left out) and the output items ``before`` it (none for ``/responses/compact``,
    whose output re-emits input), None without a request or for unreadable items; ``previous``, the
    ``previous_response_id`` whose chain precedes that input."""
    request = item.request
    if not _is_mapping(request):
        return {"span": None, "previous": None}
    own = [i for i in _own_items(request) if i.get("type") != sem.TRIGGER]
    return {"span": sem.skeleton([*own, *(_aliased(o) for o in before if _is_mapping(o))]),
            "previous": request.get("previous_response_id")}


def _noted_items(items: Sequence[Any]) -> list[Mapping[str, Any]]:
    """Returns ``_without_reasoning`` of each mapping of ``items`` (the others left out), told at once
    for a plain item that is no reasoning."""
    return [i if isinstance(i, dict) and i.get("type") != "reasoning" else _without_reasoning(i)
            for i in items if _is_mapping(i)]


def _without_reasoning(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """Returns a reasoning item with the text of its summary and content replaced by stand-ins of the
    same length (the ciphertext, opaque, is kept); any other item as it is."""
    if item.get("type") != "reasoning":
        return item
    parts = {key: [{**p, "text": stand_in(str(p.get("text") or ""))} if _is_mapping(p) else p
                   for p in item[key]] for key in ("summary", "content") if isinstance(item.get(key), list)}
    return {**item, **parts}


def resolved_input(request: Mapping[str, Any], earlier: Earlier | Sequence[Interaction],
                   sources: list[int] | None = None, at: int | None = None) -> list[dict[str, Any]]:
    """Returns the request's whole input: the chain its ``previous_response_id`` names, then its own
    items; raises ``ChainMissing`` when the chain is not in the recording (or past the index's
    window). The indices of the interactions the chain went through are appended to ``sources``,
    nearest first. ``at``: the index of the request's interaction (default: the one being judged)."""
    if not isinstance(earlier, Earlier):
        earlier = indexed(earlier, remember)
    items = _own_items(request)
    previous = request.get("previous_response_id")
    if not previous:
        return items
    before, links = earlier.count if at is None else at, []
    while previous:
        hit = earlier.lookup(RESPONSES, str(previous), before)  # the latest answer before this link
        if hit is None or hit[1] is None:  # (a miss is noted)
            raise ChainMissing(f"previous_response_id {previous} is answered by no earlier interaction of this recording")
        at, found = hit
        if sources is not None:
            sources.append(at)
        links.append(found)
        previous, before = found.get("previous"), at
    chain: list[dict[str, Any]] = []
    for link in reversed(links):
        chain += _own_items(link)
        chain += [_aliased(o) for o in link.get("output") or []]
    return chain + items


def _suffix_counts(request: Mapping[str, Any], items: list[dict[str, Any]], earlier: Earlier) -> dict[int, int]:
    """Returns the ``input_tokens`` counts, recorded earlier in the same file, of suffixes of ``items``
    (only ``truncation: "auto"`` reads them)."""
    if request.get("truncation") != "auto":
        return {}
    counts: dict[int, int] = {}
    for start_at, key in enumerate(suffix_keys(items)):
        found = earlier.get(COUNTS, key)
        if isinstance(found, int):
            counts[start_at] = found
    return counts


def _carried(items: list[dict[str, Any]], live_start: int,
             earlier: Earlier | Sequence[Interaction] = ()) -> tuple[str, list[str]] | None:
    """Returns the finding for a compaction item carried in the input, or None when none is."""
    positions = [n for n, i in enumerate(items) if i.get("type") == sem.COMPACTION]
    if not positions:
        return None
    k = positions[-1]
    found = producer(items[k], indexed(earlier, remember))
    where = (f"the input carries a compaction item at item {k} "
             f"({'not produced in this recording' if found is None else f'returned by interaction {found[0]}'})")
    live_before = [n for n in range(live_start, k) if items[n].get("type") != sem.COMPACTION]
    if live_before:
        return REACHED, [f"{where}; {items_label(live_before)} of the task in flight lie before it"]
    if not sem.continues_before(items[k + 1:]):
        return SETTLED, [f"{where}; what it stands for precedes the task in flight (item {live_start})"]
    # No new request follows the item: the task in flight starts at it, its request in what it stands for.
    starts = f"{where}; no new request follows it, so the task in flight starts at it"
    if found is None or found[1] is None:
        return CANNOT_TELL, [f"{starts}: whether it folds that task's request cannot be told without "
                             + ("the interaction that produced it" if found is None else
                                f"interaction {found[0]}'s input, which was not recorded whole")]
    span = found[1]
    first = sem.live_start([*span, *items[k + 1:]])
    if first < len(span):
        return REACHED, [f"{starts}: it stands for interaction {found[0]}'s input and output before it, where "
                         "that task (its request included) is still in flight"]
    return SETTLED, [f"{starts}: it stands for interaction {found[0]}'s input and output before it, all settled"]


def _asks(request: Mapping[str, Any], endpoint: str) -> bool:
    """Returns whether the request's own fields and input (no chain) may use context management."""
    if endpoint == "/responses/input_tokens":
        return False
    if endpoint == "/responses/compact" or request.get("context_management") or request.get("truncation") == "auto":
        return True
    own = request.get("input")
    if isinstance(own, str):
        return False
    for i in own or []:
        if _is_mapping(i) and i.get("type") in SPECIAL_INPUT:
            return True
    return False


def _uses_context_management(request: Mapping[str, Any], kinds: list[Any], endpoint: str) -> bool:
    """Returns whether the request, whose input items have types ``kinds``, uses context management."""
    if endpoint == "/responses/compact" or request.get("context_management") or request.get("truncation") == "auto":
        return True
    return sem.COMPACTION in kinds or sem.TRIGGER in kinds

def _strategy(request: Mapping[str, Any], endpoint: str, kinds: list[Any]) -> str:
    """Returns the mechanisms the request names, joined by `` + `` (``kinds``: its input items' types)."""
    parts = []
    if endpoint == "/responses/compact":
        parts.append("responses.compact")
    for entry in request.get("context_management") or []:
        if _is_mapping(entry):
            parts.append(f"context_management compaction(threshold {entry.get('compact_threshold')})")
    if sem.TRIGGER in kinds:
        parts.append("compaction_trigger")
    if request.get("truncation") == "auto":
        parts.append("truncation auto")
    if sem.COMPACTION in kinds:
        parts.append("carried compaction item")
    if request.get("previous_response_id"):
        parts.append("previous_response_id")
    return " + ".join(parts)


def response_only(item: Interaction, raw: Mapping[str, Any]) -> Judgement:
    """Returns the verdict on a Responses API answer recorded without its request.

    A compaction item after the response's own completed answer stands for what that answer settled;
    one that opens the output stands for the whole input, whose request was still in flight; anything
    else, a ``/responses/compact`` answer or ``truncation: "auto"`` included, cannot be told.
    """
    found = start(item, PROVIDER)
    found.strategy = "response only"
    where = "no request body was recorded (a response-only file or a request without a body)"
    if not str(raw.get("object", "")).startswith("response"):
        found.verdict = NOT_JUDGED  # a file, a batch, a model listing: not an answer to judge
        found.evidence = [f"{where}; the response is not a Responses API object ({raw.get('object')!r})"]
        return found
    output = [_aliased(o) for o in raw.get("output") or [] if _is_mapping(o)]
    unknown = unmodelled([], output)
    positions = [n for n, o in enumerate(output) if o.get("type") == sem.COMPACTION]
    kinds = [str(o.get(ALIAS_KEY) or o.get("type", "message")) for o in output]
    lines = [where, f"output items: {', '.join(kinds) or 'none'}", *unmodelled([], output, alias=True), *unknown]
    if (item.status or 200) >= 400 or _is_mapping(raw.get("error")) and not output:
        found.verdict, found.evidence = NOT_JUDGED, [f"{where}; an error answer alone says nothing about "
                                                     "context management"]
        return found
    compact = str(raw.get("object", "")) == "response.compaction" or _endpoint(item) == "/responses/compact"
    if compact:
        found.verdict = CANNOT_TELL
        lines.append("a /responses/compact answer: which input items were folded cannot be told without the input")
    elif len(positions) > 1:
        found.verdict = "inconsistent"
        lines.append(f"{len(positions)} compaction items in one response (output {indices(positions)})")
    elif positions:
        k = positions[0]
        before = output[:k]
        goes_on = [n for n in range(k + 1, len(output)) if sem.continues_work(output[n])]
        answered = bool(before) and before[-1].get("type", "message") == "message" \
            and before[-1].get("role", "assistant") == "assistant" and not sem.open_calls(before) \
            and not goes_on and not sem.ends_in_commentary(before)
        if answered:
            found.verdict = SETTLED
            lines.append(f"the compaction item at output[{k}] follows the response's own completed answer "
                         f"(output[{k - 1}] is an assistant message): the answer came from the whole input, the "
                         "item stands for what that answer settled")
        elif k == 0 and len(output) > 1:
            found.verdict = REACHED
            lines.append("the compaction item opens the output, before the answer: it stands for the whole input, "
                         "whose request this response answers (the task in flight)")
        elif goes_on:
            found.verdict = REACHED
            lines.append(f"the response works on after the compaction item at output[{k}] (from output[{goes_on[0]}]): "
                         "it stands for the whole input and the output before it, whose request this response was "
                         "still answering (the task in flight)")
        else:
            found.verdict = CANNOT_TELL
            lines.append(f"the compaction item at output[{k}] follows no completed answer: what it folded cannot be "
                         "told without the input")
    elif raw.get("truncation") == "auto":
        found.verdict = CANNOT_TELL
        lines.append("truncation auto: what was dropped cannot be told without the request's input")
    else:  # nothing in the response says context management was used; an unmodelled item is named
        found.verdict = NOT_JUDGED
        lines = [f"{where}; the response has no compaction item and no truncation", *unknown]
    found.evidence = lines
    return found


class OpenAIJudge(RequestJudge):
    """The Responses API judge ``analyze`` finds as ``JUDGE``."""

    provider = PROVIDER
    api = "Responses"
    watch = Watch(paths=("/responses", "/responses/compact", "/responses/input_tokens"),  # every call parsed
                  ends=(b'"response.completed"', b'"response.failed"', b'"response.incomplete"'),
                  items=("/responses",))  # (a background response retrieved: GET /responses/{id})
    response_only = staticmethod(response_only)

    def claims(self, item: Interaction) -> bool:
        """Returns whether the interaction is Responses API traffic (endpoint, host or body shape)."""
        if _endpoint(item) or "openai" in item.host:
            return True
        response = item.response if _is_mapping(item.response) else {}
        return str(response.get("object", "")).startswith("response")

    remember = staticmethod(remember)

    def judge(self, item: Interaction, earlier: Earlier | Sequence[Interaction]) -> Judgement:
        """Returns the verdict on one interaction (``RequestJudge.judge``); a background response
        retrieved complete is judged against the request that queued it, when that is known."""
        retrieved = _retrieved(item)
        response = item.response if _is_mapping(item.response) else None
        if not retrieved or response is None or response.get("status") in RUNNING:
            return super().judge(item, earlier)
        index = indexed(earlier, self.remember)
        hit = index.lookup(BACKGROUND, retrieved)
        if hit is None or not _is_mapping(hit[1]):
            return super().judge(item, index)
        found = self.judge_request(item, hit[1], index)
        found.evidence.insert(0, f"the background response requested at interaction {hit[0]}, retrieved complete")
        return found

    def history(self, item: Interaction, earlier: Earlier | Sequence[Interaction]) -> list[dict[str, Any]]:
        """Returns the input items the judge reads for ``item`` (what its ``live_start`` indexes): the
        ``previous_response_id`` chain rebuilt from ``earlier``, then the request's own items; only the
        own items when the chain is not in the recording; empty without a request object."""
        request = item.request
        if not _is_mapping(request):
            return []
        try:
            return resolved_input(request, earlier)
        except ChainMissing:
            return _own_items(request)

    def judge_request(self, item: Interaction, request: Mapping[str, Any], earlier: Earlier) -> Judgement:
        """Returns the verdict on one Responses API interaction whose request is a JSON object (see the
        module docstring); ``earlier`` is the index of the interactions before it."""
        endpoint = _endpoint(item)
        if not request.get("previous_response_id") and not _asks(request, endpoint):
            found = start(item, PROVIDER, NOT_JUDGED)  # decided without copying the history
            found.evidence.append("a token count" if endpoint == "/responses/input_tokens"
                                  else "no context management in the request")
            return found
        sources: list[int] = []
        try:
            items = resolved_input(request, earlier, sources)
        except ChainMissing as exc:
            if not _uses_context_management(request, [i.get("type") for i in _own_input(request)], endpoint):
                found = start(item, PROVIDER, NOT_JUDGED)  # nothing to judge, whatever the chain held
                found.evidence.append(f"no context management in the request ({exc})")
                return found
            found = start(item, PROVIDER, CANNOT_TELL)
            found.evidence.append(str(exc))
            return found
        kinds = [i.get("type") for i in items]  # (read once, by every step below)
        if endpoint == "/responses/input_tokens" or not _uses_context_management(request, kinds, endpoint):
            found = start(item, PROVIDER, NOT_JUDGED)
            found.evidence.append(("a token count" if endpoint == "/responses/input_tokens"
                                   else "no context management in the request")
                                  + (f" ({item.error})" if item.error else ""))
            return found
        if item.error is not None:
            return failed(item, PROVIDER, item.error)
        found = start(item, PROVIDER)
        found.strategy = _strategy(request, endpoint, kinds)
        if sources:
            found.evidence.append(f"the input is rebuilt from previous_response_id through interaction(s) "
                                  f"{', '.join(map(str, sources))}: {len(items)} items")
        raw = item.response if _is_mapping(item.response) else None
        if raw is None:
            found.verdict = CANNOT_TELL
            found.evidence.append("no response was recorded: what the server did cannot be told")
            return found
        if raw.get("status") in ("queued", "in_progress") and (item.status or 200) < 400:
            found.verdict = CANNOT_TELL  # (background mode: the output comes with the response retrieved later)
            found.evidence.append(f"the response is {raw['status']} (background mode): what the service did comes "
                                  "with the response retrieved later, so it cannot be told here")
            return found
        response = {**raw, "output": [dict(o) if o.get("type") not in ALIASES else _aliased(o)
                                      for o in raw.get("output") or [] if _is_mapping(o)]}
        unknown, aliased = _unmodelled(items, response["output"])
        found.evidence += aliased
        exchange = Exchange("compact" if endpoint == "/responses/compact" else "responses", dict(request), items,
                            response, item.status or 200,
                            _suffix_counts(request, items, earlier) if request.get("truncation") == "auto" else {})
        if len(items) == 1 and not exchange.suffix_counts and exchange.mechanism == "truncation" \
                and isinstance((response.get("usage") or {}).get("input_tokens"), int):
            # One item has one suffix, the whole input: its count is the reported input_tokens.
            exchange.suffix_counts = {0: int(response["usage"]["input_tokens"])}
            found.evidence.append("truncation auto on a one-item input: its only suffix is the whole input, "
                                  f"counted by the reported input_tokens ({exchange.suffix_counts[0]})")
        try:
            live = sem.live_start(items if sem.TRIGGER not in kinds else [i for i in items if i.get("type") != sem.TRIGGER])
        except FormatError as exc:
            if unknown:
                found.verdict = CANNOT_TELL
                found.evidence += [*unknown, f"the input cannot be read: {exc}"]
                return found
            return failed(item, PROVIDER, f"the input cannot be read: {exc}")
        found.live_start, found.history = live, len(items)
        findings: list[tuple[str, list[str]]] = []
        carried = _carried(items, live, earlier) if exchange.status < 400 and sem.COMPACTION in kinds else None
        if carried:
            findings.append(carried)
        ruled = judge_exchange(exchange, live)
        lines = [f"{ruled.mechanism}: {ruled.verdict}"] + ruled.reasons
        if ruled.folded:
            lines.append(f"folded or dropped input {items_label(ruled.folded)}")
        if ruled.reached:
            lines.append(f"of the task in flight: {items_label(ruled.reached)}")
        if ruled.mechanism == "trigger":
            trigger = kinds.index(sem.TRIGGER)
            lines.append(f"the compaction_trigger is input item {trigger} of {len(items)}")
        if ruled.verdict == "rejected":
            lines.append(f"status {exchange.status}: {ruled.error_code}")
        if ruled.mechanism == "truncation" and not exchange.suffix_counts:
            findings.append((CANNOT_TELL, ["truncation auto: no input_tokens count of a suffix of this input is "
                                           "recorded before it, so what was dropped cannot be told"]))
        elif ruled.mechanism != "none" or not carried:
            findings.append((ruled.verdict, lines))
        if unknown:
            blocked = [n for n, (v, _) in enumerate(findings) if v in ("inconsistent", "no-edit")]
            for n in blocked:  # what the judge does not model may be what it looked for
                findings[n] = (CANNOT_TELL, findings[n][1])
            findings.append((CANNOT_TELL if blocked or not findings else NO_EDIT, unknown))
        found.verdict = worst([v for v, _ in findings])
        found.evidence += [line for _, group in findings for line in group]
        return found


JUDGE = OpenAIJudge()
