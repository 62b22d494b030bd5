"""Run a serializer on the egress conversations: one guarded call per conversation in a worker
process (``worker.Pool``, as ``conformance run`` calls compactors), checked there, records back.

A serializer is ``conversation -> payload``; one whose signature names a ``stream`` parameter also
gets the events a streamed reply arrived as (``**kwargs`` alone gets no keyword). A payload that is a sync or async iterator, or a streaming HTTP
response (``iter_bytes``, as httpx gives one), is read to its end inside the call's time limit, as
a browser reads it (``consume``). The records never hold a canary's text (see ``withheld``).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import SpecError
from ..engine.command_report import Report
from ..engine.results import CheckResult, Outcome
from ..engine.target import DEFAULT_TIME_LIMIT, Target, resolve
from ..engine.tracebacks import stack_of, target_traceback
from ..engine.transcript import canonical
from ..engine.clock import call_within
from ..engine.worker import Event, default_jobs, output_captured
from ..engine.worker.jobs import failure_reason, resolved, run_items, window
from .canaries import CREDENTIAL, Canary, credential_headers, find_in
from .checks import BY_ID, CATALOG, Check, Served, wrote_nothing
from .conversations import Conversation
from .decode import plain, read
from .surfaces import Surface

MAX_EVENTS = 100_000  # stream events read from an iterator payload at most
MAX_BODY = 64_000_000  # bytes of a streaming HTTP response read at most
NO_PAYLOAD = "no payload within"  # the error of a call its guard gave up on
SERVINGS = 3  # calls of each conversation in a row in one worker: a sampler writing 1 in N <= 3 calls writes one
CANNOT_TELL = "cannot tell"  # the message of a check that needs something written, when nothing was
UNJUDGED = "unjudged"  # the detail of such a record: how many calls wrote nothing


@dataclass
class EgressReport(Report):
    """The report of one egress run: the one report model (``results`` one record per conversation
    and check) with the conversations run and the surface they were run for, which the egress
    terminal rendering names."""

    command: str = "egress"
    conversations: list[Conversation] = field(default_factory=list)
    surface: str = ""


def applicable(conversation: Conversation, surface: Surface) -> list[Check]:
    """Returns the checks of the catalog that apply to ``conversation`` on ``surface``."""
    return [c for c in CATALOG if c.applies(conversation, surface)]


def given_messages(conversation: Conversation) -> list[Any]:
    """Returns a fresh copy of the conversation's messages as the target gets them: plain data, or
    langchain-core message objects for the ``langchain`` format."""
    messages = copy.deepcopy(conversation.messages)
    if conversation.format == "langchain":
        from langchain_core.messages import messages_from_dict

        return list(messages_from_dict(messages))
    return messages


def _accepts(target: Target, name: str) -> bool:
    """Returns whether ``target`` declares the parameter ``name`` (``stream``, ``headers``) by name:
    a serializer that only takes ``**kwargs`` (``json.dumps``) is not handed one it never asked for."""
    return target.accepts is not None and name in target.accepts


def consume(payload: Any) -> Any:
    """Returns ``payload`` read to its end: an async or sync iterator as the list of its events (at
    most ``MAX_EVENTS``), a streaming HTTP response as ``{status, content-type, body, cut, headers}``
    (the body as text, read chunk by chunk; every header, cookies included), anything else as it is."""
    if hasattr(payload, "iter_bytes") and hasattr(payload, "status_code"):
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in payload.iter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size >= MAX_BODY:
                    break
        finally:
            payload.close()
        return {"status": payload.status_code, "content-type": payload.headers.get("content-type", ""),
                "body": b"".join(chunks).decode("utf-8", "replace"), "cut": size >= MAX_BODY,
                "headers": [list(pair) for pair in payload.headers.multi_items()]}  # (a header or cookie leaves too)
    if hasattr(payload, "__aiter__"):
        async def collect() -> list[Any]:
            out: list[Any] = []
            async for event in payload:
                out.append(event)
                if len(out) >= MAX_EVENTS:
                    break
            return out

        return asyncio.run(collect())  # the call's own thread: no loop runs there
    if isinstance(payload, Iterator) or (isinstance(payload, Iterable)
                                         and not isinstance(payload, (str, bytes, bytearray, dict, list, tuple))):
        return [event for event, _ in zip(payload, range(MAX_EVENTS))]
    return payload


def serve(target: Target, conversation: Conversation, time_limit: float = DEFAULT_TIME_LIMIT) -> tuple[Served, dict[str, str | None]]:
    """Returns what ``target`` did with ``conversation`` and, when it failed, its traceback; never raises."""
    given = given_messages(conversation)
    before = canonical(plain(given))
    kwargs: dict[str, Any] = {"stream": copy.deepcopy(conversation.stream)} if conversation.streamed and _accepts(target, "stream") else {}
    if _accepts(target, "headers"):
        kwargs["headers"] = credential_headers()
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["payload"] = consume(target.func(given, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the target's failure is data
            box["exc"] = exc
            box["tb"] = target_traceback(exc)

    timing, worker = call_within(call, time_limit, f"serializer:{target.name}")  # first imports and CPU waits not counted
    if not timing.finished:
        return Served(error=f"{NO_PAYLOAD} {time_limit:g} s"), {"traceback": stack_of(worker, __file__)}
    mutated = canonical(plain(given)) != before
    if "exc" in box:
        exc = box["exc"]
        return Served(error=f"raised {type(exc).__name__}: {exc}", mutated=mutated), {"traceback": box["tb"]}
    payload = plain(box.get("payload"))
    found, whole = read(payload)
    if isinstance(box.get("payload"), list) and len(box["payload"]) >= MAX_EVENTS or \
            isinstance(box.get("payload"), dict) and box["payload"].get("cut"):
        whole = False  # an iterator cut at MAX_EVENTS
    return Served(payload, mutated=mutated, found=found, whole=whole), {}


def check(target: Target, conversation: Conversation, surface: Surface,
          time_limit: float = DEFAULT_TIME_LIMIT) -> list[CheckResult]:
    """Returns one record per applicable check of ``target`` on ``conversation``, served ``SERVINGS``
    times in a row (each call within ``time_limit``; none after a call that failed); never raises."""
    servings: list[Served] = []
    extra: dict[str, str | None] = {}
    with output_captured() as printed:
        while len(servings) < SERVINGS and (not servings or servings[-1].returned):
            with window(time_limit):
                served, extra = serve(target, conversation, time_limit)
            servings.append(served)
    if printed[0]:
        extra["printed"] = printed[0]
    return judged(target.name, conversation, surface, servings, extra)


def judged(target: str, conversation: Conversation, surface: Surface, servings: Sequence[Served],
           extra: dict[str, str | None] | None = None) -> list[CheckResult]:
    """Returns one record per applicable check of the calls ``servings`` of one conversation: the
    worst outcome of any call (a leak in one call is a leak); a check of what was written
    (``Check.reads_written``: the answer kept) reads only the calls that wrote something, when one
    did (a call a sampler skipped loses no answer). When every call returned and wrote nothing, a
    check that needs something written (``Check.needs_writing``) cannot tell: its pass becomes a
    skip saying so, never a pass; an answer no call wrote is still lost."""
    rank = {"error": 3, "fail": 2, "skip": 1}
    silent = [s.returned and wrote_nothing(s) for s in servings]
    none_wrote = bool(servings) and all(silent)
    merged: dict[str, CheckResult] = {}
    for served, quiet in zip(servings, silent):
        for record in records(target, conversation, surface, served, extra):
            if quiet and not none_wrote and BY_ID[record.invariant].reads_written:
                continue  # (a call a sampler skipped says nothing of what the others wrote)
            kept = merged.get(record.invariant)
            if kept is None or rank.get(record.outcome, 0) > rank.get(kept.outcome, 0):
                merged[record.invariant] = record
    if none_wrote:
        for cid, record in merged.items():
            if record.outcome == "pass" and BY_ID[cid].needs_writing:
                merged[cid] = replace(record, outcome="skip", message=(
                    f"{CANNOT_TELL}: nothing was written in {len(servings)} calls of this conversation "
                    "(a sampler that skipped them?)"), details={UNJUDGED: len(servings)})
    return list(merged.values())


def unjudged(results: Iterable[CheckResult]) -> set[str]:
    """Returns the conversations some check of which could not tell (nothing was written for them)."""
    return {r.scenario for r in results if r.outcome == "skip" and UNJUDGED in r.details}


def records(target: str, conversation: Conversation, surface: Surface, served: Served,
            extra: dict[str, str | None] | None = None) -> list[CheckResult]:
    """Returns the records of the checks of one call's ``served``, canary text withheld."""
    out = []
    for chk in applicable(conversation, surface):
        if chk.needs_payload and not served.returned:
            out.append(_record(target, conversation, chk, "skip", f"not run: no payload ({served.error})",
                               {"blocked_by": "egress.call-completes"}))
            continue
        try:
            violations = chk.check(conversation, surface, served)
        except Exception as exc:  # noqa: BLE001 - a payload no check can read is a failed check
            violations = [f"the payload could not be checked: {type(exc).__name__}: {exc}"]
        if not violations:
            out.append(_record(target, conversation, chk, "pass", ""))
        elif chk.id == "egress.call-completes":
            out.append(_record(target, conversation, chk, "error", violations[0], dict(extra or {})))
        else:
            out.append(_record(target, conversation, chk, "fail", violations[0], {"diff": violations[1:]}
                               if len(violations) > 1 else {}))
    return withheld(out, [*conversation.canaries, *conversation.foreign, CREDENTIAL])


def _record(target: str, conversation: Conversation, chk: Check, outcome: Outcome, message: str,
            details: dict[str, Any] | None = None) -> CheckResult:
    return CheckResult(target, conversation.id, conversation.format, chk.id, chk.level, outcome,
                       message, dict(details or {}), kind="egress")


def withheld(results: list[CheckResult], canaries: Sequence[Canary]) -> list[CheckResult]:
    """Returns ``results`` with every string that holds a canary (or a fragment of one) replaced by
    a line naming the canary: a leaked text never reaches a record, a report or the terminal."""
    def clean(value: Any) -> Any:
        if isinstance(value, str):
            found = find_in([("", value)], canaries)
            if found:
                return "<withheld: holds " + ", ".join(f"{f.kind} canary {f.canary} (sha256 {f.digest})" for f in found) + ">"
            return value
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return [replace(r, message=clean(r.message), details=clean(r.details)) for r in results]


def _job(target_name: str, conversation: Conversation, surface: Surface, time_limit: float) -> list[CheckResult]:
    """Runs one conversation on a target resolved by name in this worker; returns its records."""
    return check(resolved(target_name), conversation, surface, time_limit)


def error_records(target: str, conversation: Conversation, surface: Surface, reason: str) -> list[CheckResult]:
    """Returns the records of a conversation whose worker gave nothing back (killed at its limit, died)."""
    return records(target, conversation, surface, Served(error=reason))


def run(targets: Sequence[str | Target], conversations: Sequence[Conversation], surface: Surface, *,
        time_limit: float = DEFAULT_TIME_LIMIT, jobs: int | None = None, in_process: bool = False,
        spec_errors: Sequence[SpecError] = (), progress: Callable[[int, int], None] | None = None) -> EgressReport:
    """Returns the report of every conversation on every serializer, records in serial order.

    A target given by name runs in worker processes; a ``Target`` object (or ``in_process``) runs here.
    """
    items = [(t, c) for t in targets for c in conversations]
    done: dict[int, list[CheckResult]] = {}

    def finish(index: int, records: list[CheckResult]) -> None:
        done[index] = records
        if progress:
            progress(len(done), len(items))

    def here(index: int) -> list[CheckResult]:
        target, conversation = items[index]
        return check(resolve(target) if isinstance(target, str) else target, conversation, surface, time_limit)

    run_items(len(items), [i for i, (t, _) in enumerate(items) if isinstance(t, str) and not in_process],
              lambda index: (_job, (items[index][0], items[index][1], surface, time_limit)),
              lambda index, event: _from_event(event, items[index], surface), here, finish,
              jobs=jobs or default_jobs(), abandoned=_abandoned)
    results = [r for i in range(len(items)) for r in done[i]]
    names = list(dict.fromkeys(t if isinstance(t, str) else t.name for t in targets))
    report = EgressReport(results=results, spec_errors=list(spec_errors), targets=names,
                          conversations=list(conversations), surface=surface.name)
    report.code, report.verdict = blind_verdict(report)
    return report


def blind_verdict(report: EgressReport) -> tuple[int | None, str | None]:
    """Returns the exit code and verdict of a run in which some conversation's calls wrote nothing,
    when nothing failed: 2 and CANNOT TELL when that holds for every conversation run (nothing was
    judged: a sampler whose calls all fell between its samples), else the rule's code and CONFORMS
    naming the conversations it holds only where something was written; ``(None, None)`` otherwise."""
    blind = unjudged(report.results)
    if not blind or report.failures() or report.spec_errors:
        return None, None
    run_ = {r.scenario for r in report.results}
    if blind >= run_:
        return 2, f"CANNOT TELL (nothing was written for any of the {len(run_)} conversations)"
    return None, (f"CONFORMS where something was written (nothing was written for {len(blind)} of "
                  f"{len(run_)} conversations: cannot tell there)")


def _from_event(event: Event, item: tuple[Any, Conversation], surface: Surface) -> list[CheckResult]:
    target, conversation = item
    name = target if isinstance(target, str) else target.name
    if event.kind == "done":
        done: list[CheckResult] = event.value  # a worker's records cross the pipe untyped
        return done
    return error_records(name, conversation, surface, failure_reason(event, "it"))


def _abandoned(records: list[CheckResult]) -> bool:
    """Returns whether a conversation's call was given up by its guard (a stray thread of it may run)."""
    return any(r.message.startswith(NO_PAYLOAD) for r in records)

