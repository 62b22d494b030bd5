"""The structural rules that judge one Responses API exchange: which input items the server folded or
dropped, and whether any of them belonged to the task in flight.

The compaction item is opaque, so the judge decides from structure alone: where the item sits in a
response's output (threshold compaction), which input items ``/responses/compact`` did not re-emit
(matched by type, role and content, never by id), and, for ``truncation: "auto"``, which suffix of
the input has the token count the response's ``usage.input_tokens`` reports. Nothing here reads
the emulator's own ciphertext, so the same code judges real recordings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ...formats.base import FormatError
from . import semantics as sem

# How far a reported input token count may sit from a suffix's counted tokens and still be that suffix.
COUNT_TOLERANCE = 2


@dataclass
class Exchange:
    """One judged call: its endpoint, request, full input (a chain resolved), answer and token counts."""

    endpoint: str  # "responses" or "compact"
    request: dict[str, Any]
    items: list[dict[str, Any]]
    body: dict[str, Any] | None = None
    status: int = 200
    suffix_counts: dict[int, int] = field(default_factory=dict)  # first item index -> input_tokens

    @property
    def error(self) -> dict[str, Any]:
        """Returns the error object of a non-2xx answer (empty otherwise)."""
        if self.status < 400 or not isinstance(self.body, dict):
            return {}
        error = self.body.get("error")
        return error if isinstance(error, dict) else {}

    @property
    def output(self) -> list[dict[str, Any]]:
        """Returns the answer's output items (empty for an error)."""
        if self.status >= 400 or not isinstance(self.body, dict):
            return []
        return [o for o in self.body.get("output") or [] if isinstance(o, dict)]

    @property
    def mechanism(self) -> str:
        """Returns which mechanism the request invokes: compact, trigger, threshold, truncation or none."""
        if self.endpoint == "compact":
            return "compact"
        if sem.TRIGGER in [i.get("type") for i in self.items]:
            return "trigger"
        if self.request.get("context_management"):
            return "threshold"
        if self.request.get("truncation") == "auto":
            return "truncation"
        return "none"


@dataclass
class Judgement:
    """The verdict for one exchange, the items it folded or dropped, those that were live, and why."""

    verdict: str
    mechanism: str
    live_from: int
    folded: list[int] = field(default_factory=list)
    reached: list[int] = field(default_factory=list)
    error_code: str | None = None
    error_message: str | None = None
    reasons: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def reached_live(self) -> bool:
        """Returns whether any item of the task in flight was folded or dropped."""
        return bool(self.reached)

    def to_dict(self) -> dict[str, Any]:
        """Returns the judgement as JSON-ready data."""
        return {**asdict(self), "reached_live": self.reached_live}


def _rejected(exchange: Exchange, judgement: Judgement) -> Judgement:
    error = exchange.error
    judgement.verdict = "rejected"
    judgement.error_code = str(error.get("code") or error.get("type") or exchange.status)
    judgement.error_message = str(error.get("message") or "")
    judgement.evidence["error"] = {"status": exchange.status, "type": error.get("type"), "code": error.get("code"),
                                   "message": error.get("message")}
    return judgement


def _folded_by_position(items: Sequence[dict[str, Any]], output: Sequence[dict[str, Any]],
                        judgement: Judgement) -> Judgement:
    """Judges one compaction item in ``output`` that stands for the input and the output before it."""
    positions = [n for n, o in enumerate(output) if o.get("type") == sem.COMPACTION]
    if len(positions) != 1:
        judgement.verdict = "inconsistent" if positions else "no-edit"
        if positions:
            judgement.reasons.append(f"{len(positions)} compaction items in one response")
        return judgement
    k = positions[0]
    before = list(items) + list(output[:k])
    # Work after the item, or a commentary message before it, says the answer before it was not the final one.
    goes_on = [n for n in range(k + 1, len(output)) if sem.continues_work(output[n])]
    commentary = sem.ends_in_commentary(output[:k])
    start = sem.live_start_continued(before) if goes_on or commentary else sem.live_start(before)
    judgement.folded = list(range(len(before)))
    judgement.reached = list(range(start, len(before)))
    open_calls = sem.open_calls(before)
    judgement.evidence.update(compaction_at=k, output_types=[o.get("type") for o in output], open_calls=open_calls)
    judgement.verdict = "reached-live-task" if judgement.reached else "settled-only"
    where = "after the response's final answer" if not judgement.reached else (
        "after a tool call whose output was not sent" if open_calls else
        f"before the task in flight settled: the response works on after it, from output[{goes_on[0]}]" if goes_on
        else "after a commentary message (phase commentary), no final answer" if commentary else
        "before the task in flight settled")
    judgement.reasons.append(f"the compaction item sits at output[{k}], {where}")
    return judgement


def _threshold(exchange: Exchange, judgement: Judgement) -> Judgement:
    judged = _folded_by_position(exchange.items, exchange.output, judgement)
    usage = (exchange.body or {}).get("usage") or {}
    threshold = next((e.get("compact_threshold") for e in exchange.request.get("context_management") or []
                      if isinstance(e, Mapping) and e.get("type") == sem.COMPACTION), None)
    if judged.verdict in ("settled-only", "reached-live-task") and isinstance(threshold, int) and usage:
        seen = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
        judged.evidence["usage_tokens"] = seen
        if seen < threshold:
            judged.verdict = "inconsistent"
            judged.reasons.append(f"compacted although its own usage ({seen} tokens) stays below "
                                  f"compact_threshold {threshold}")
    return judged


def _compact(exchange: Exchange, judgement: Judgement) -> Judgement:
    output = exchange.output
    compactions = [n for n, o in enumerate(output) if o.get("type") == sem.COMPACTION]
    if len(compactions) != 1 or compactions[0] != len(output) - 1:
        judgement.verdict = "inconsistent"
        judgement.reasons.append("the compacted window does not end in exactly one compaction item")
        return judgement
    kept: dict[tuple[str, str, str], int] = {}
    for o in output[:-1]:
        key = sem.fingerprint(o)
        kept[key] = kept.get(key, 0) + 1
    folded, retained = [], []
    for n, item in enumerate(exchange.items):
        key = sem.fingerprint(item)
        if kept.get(key):
            kept[key] -= 1
            retained.append(n)
        elif item.get("type", "message") == "message" and item.get("role") in ("system", "developer"):
            continue  # the endpoint drops instructions; the caller re-sends them, nothing is folded
        elif item.get("type") != sem.COMPACTION:
            folded.append(n)
    judgement.folded = folded
    judgement.reached = [n for n in folded if n >= judgement.live_from]
    judgement.evidence.update(retained=retained, output_types=[o.get("type") for o in output])
    invented = [k for k, v in kept.items() if v]
    orphans = _orphaned_messages(exchange.items, retained)
    if invented:
        judgement.verdict = "inconsistent"
        judgement.reasons.append(f"{len(invented)} output item(s) re-emit nothing of the input")
    elif orphans:
        judgement.verdict = "inconsistent"
        judgement.reasons.append("assistant message(s) kept without their reasoning item: input items "
                                 + ", ".join(map(str, orphans)))
        judgement.evidence["kept_without_reasoning"] = orphans
    else:
        judgement.verdict = "reached-live-task" if judgement.reached else ("settled-only" if folded else "no-edit")
    return judgement


def _orphaned_messages(items: Sequence[dict[str, Any]], retained: Sequence[int]) -> list[int]:
    """Returns retained assistant messages whose reasoning item (the one just before them) was not retained."""
    kept = set(retained)
    orphans = []
    for n in retained:
        item = items[n]
        if item.get("type", "message") != "message" or item.get("role") != "assistant":
            continue
        previous = n - 1
        if previous >= 0 and items[previous].get("type") == "reasoning" and previous not in kept:
            orphans.append(n)
    return orphans


def _trigger(exchange: Exchange, judgement: Judgement) -> Judgement:
    position = next(n for n, i in enumerate(exchange.items) if i.get("type") == sem.TRIGGER)
    if position != len(exchange.items) - 1:
        judgement.verdict = "inconsistent"
        judgement.reasons.append("the server accepted a compaction_trigger that is not the last input item")
        return judgement
    items = exchange.items[:position]
    judgement.live_from = min(judgement.live_from, len(items))
    compactions = [o for o in exchange.output if o.get("type") == sem.COMPACTION]
    if len(compactions) != 1:
        judgement.verdict = "inconsistent"
        judgement.reasons.append(f"a compaction_trigger answered with {len(compactions)} compaction items")
        return judgement
    judgement.folded = list(range(len(items)))
    judgement.reached = list(range(judgement.live_from, len(items)))
    judgement.verdict = "reached-live-task" if judgement.reached else "settled-only"
    judgement.reasons.append("the compaction item stands for the whole input")
    return judgement


def _truncation(exchange: Exchange, judgement: Judgement) -> Judgement:
    usage = (exchange.body or {}).get("usage") or {}
    reported = usage.get("input_tokens")
    counts = exchange.suffix_counts
    judgement.evidence.update(reported_input_tokens=reported, suffix_counts={str(k): v for k, v in counts.items()})
    if not isinstance(reported, int) or not counts:
        judgement.verdict = "inconsistent"
        judgement.reasons.append("no usage.input_tokens or no suffix count to compare it with")
        return judgement
    matches = [start for start, count in sorted(counts.items()) if abs(count - reported) <= COUNT_TOLERANCE]
    if not matches:
        judgement.verdict = "inconsistent"
        judgement.reasons.append(f"usage.input_tokens {reported} is the count of no suffix of the input "
                                 f"(counted from items {sorted(counts)})")
        return judgement
    cut = matches[0]
    judgement.evidence["cut"] = cut
    judgement.folded = list(range(cut))
    judgement.reached = [n for n in judgement.folded if n >= judgement.live_from]
    judgement.verdict = "reached-live-task" if judgement.reached else ("settled-only" if cut else "no-edit")
    if cut:
        judgement.reasons.append(f"usage matches the suffix from item {cut}: the first {cut} item(s) were dropped")
    return judgement


def judge(exchange: Exchange, live_from: int | None = None) -> Judgement:
    """Returns the judgement of one exchange; a malformed input gives ``inconsistent`` with the reason.
    ``live_from``: where the task in flight starts among the items (trigger aside), when the caller
    already found it with ``semantics.live_start``."""
    mechanism = exchange.mechanism
    if live_from is not None:
        start = live_from
    else:
        try:
            start = sem.live_start([i for i in exchange.items if i.get("type") != sem.TRIGGER])
        except FormatError as exc:
            return Judgement("inconsistent", mechanism, len(exchange.items), reasons=[f"unreadable input: {exc}"])
    judgement = Judgement("no-edit", mechanism, start)
    if exchange.status >= 400:
        return _rejected(exchange, judgement)
    try:
        if mechanism == "compact":
            return _compact(exchange, judgement)
        if mechanism == "trigger":
            return _trigger(exchange, judgement)
        if sem.COMPACTION in [o.get("type") for o in exchange.output]:
            if mechanism != "threshold":
                judgement.verdict = "inconsistent"
                judgement.reasons.append("a compaction item although the request asked for no compaction")
                return judgement
            return _threshold(exchange, judgement)
        if exchange.request.get("truncation") == "auto":  # alone, or beside threshold compaction that did not fire
            judgement.mechanism = "truncation"
            return _truncation(exchange, judgement)
    except FormatError as exc:
        judgement.verdict = "inconsistent"
        judgement.reasons.append(f"unreadable output: {exc}")
    return judgement


def error_matches(expected: Mapping[str, str], judgement: Judgement) -> bool:
    """Returns whether a rejection matches the predicted error (code or type, and a message it contains)."""
    named = expected.get("code") or expected.get("type")
    error = judgement.evidence.get("error") or {}
    if named and named not in (error.get("code"), error.get("type")):
        return False
    pattern = expected.get("message")
    return not pattern or pattern in (judgement.error_message or "")
