"""The analyzer's judgement of each recording, and the changes between two judgements that break a user.

Each recording is replayed through ``conformance.provider.verify.check_cassette`` (the same replay and
analyzer ``conformance verify`` runs). From two judgements of one probe, breaking is: a recording
that passed its prediction and now contradicts it (or can no longer be judged), a changed verdict,
any change in which items of the task in flight are cleared or summarised, any change in what the
prefix check of preserved thinking did to the thinking sent back (a 400 that became a drop, a block
dropped that now passes, ...), and a rejection whose reason changed (error type or code; the message when no code names the reason). Across a folder, a
strategy whose smallest reached task in flight shrinks is breaking too. Token counts and ids are
never compared here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._paths import shipped

Judgement = dict[str, Any]


def load_probes(spec_paths: Iterable[Path] | None = None) -> dict[str, Any]:
    """Returns the probe specs by id; raises ``SpecError`` (the first one) when a spec fails to load."""
    from ..provider.probes import load_probes as load

    probes, errors = load(list(spec_paths) if spec_paths else [shipped("specs") / "provider"])
    if errors:
        raise errors[0]
    return probes


def _error_reason(evidence: Mapping[str, Any]) -> dict[str, Any] | None:
    """Returns ``{status, type, code, message}`` of a recorded rejection (digits in the message masked),
    or None when there was none."""
    body = evidence.get("error")
    if evidence.get("status") is None and body is None:
        return None
    error = body.get("error") if isinstance(body, Mapping) else None
    error = error if isinstance(error, Mapping) else {}
    details = error["details"] if isinstance(error.get("details"), Mapping) else {}
    message = re.sub(r"\d+", "#", str(error.get("message") or ""))
    return {"status": evidence.get("status"), "type": error.get("type"), "code": details.get("error_code"),
            "message": message}


def _reason_changed(was: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Returns whether two rejections differ in reason: error type or code, or, when neither names a
    code, the message (its numbers aside): then the message is the only place the reason is given."""
    if (was["type"], was["code"]) != (now["type"], now["code"]):
        return True
    return was["code"] is None and was.get("message") != now.get("message")


def _reason(reason: Mapping[str, Any]) -> str:
    return f"{reason['type']}/{reason['code']}" + ("" if reason["code"] else f": {reason.get('message')}")


def _openai_reason(evidence: Mapping[str, Any]) -> dict[str, Any] | None:
    """Returns ``{status, type, code, message}`` of a recorded OpenAI rejection (digits and call ids
    in the message masked), or None when there was none."""
    error = evidence.get("error")
    if not isinstance(error, Mapping):
        return None
    message = re.sub(r"\b(call|fc|msg|rs|resp)_[A-Za-z0-9]+", r"\1_#", str(error.get("message") or ""))
    return {"status": error.get("status"), "type": error.get("type"), "code": error.get("code"),
            "message": re.sub(r"\d+", "#", message)}


def _live_items(details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
    """Returns what of the probe's task in flight was cleared or summarised, by id and turn (for an
    OpenAI probe: by input item index)."""
    if details.get("provider") == "openai":
        return {"items": list(details.get("reached") or [])}
    live_ids = set(probe.live.tool_use_ids) if probe is not None else set()
    return {"parts": list(details.get("live_reached") or []),  # its request summarised shows here
            "tool_results": list(details.get("reached_tool_use_ids") or []),
            "tool_inputs": [i for i in details.get("cleared_tool_inputs") or [] if i in live_ids],
            "thinking_turns": list(details.get("reached_thinking_turns") or [])}


BOUND_ELSEWHERE = "is bound to a different conversation"  # how a failed prefix check's 400 reads


def _binding(details: Mapping[str, Any]) -> str | None:
    """Returns what the prefix check of preserved thinking did to the thinking a request sent back, in
    words: ``rejected (...)``, ``dropped <paths>``, ``let through <paths>`` or ``passed``; None for a
    provider without that check (an OpenAI probe)."""
    if details.get("provider") == "openai":
        return None
    evidence = details.get("evidence") or {}
    message = str((evidence.get("rejection") or {}).get("message") or "")
    if BOUND_ELSEWHERE in message:
        return "rejected (a thinking block is bound to a different conversation)"
    listed = [e for e in evidence.get("input_transformations") or [] if isinstance(e, Mapping)]
    dropped = [str(e.get("path")) for e in listed if e.get("type") == "thinking_dropped"]
    allowed = [str(e.get("path")) for e in listed if e.get("type") == "thinking_mismatch_allowed"]
    said = [*([f"dropped {', '.join(dropped)}"] if dropped else []), *([f"let through {', '.join(allowed)}"]
                                                                         if allowed else [])]
    return "; ".join(said) or "passed"


def judge(path: Path, probes: dict[str, Any]) -> Judgement:
    """Returns the analyzer's judgement of one cassette as plain data: ``outcome`` (pass, fail, error),
    ``verdict``, ``message``, the strategy (``family``, ``config``), the ``live_task`` size, the
    ``live`` items cleared and the rejection ``reason``."""
    from ..provider.verify import check_cassette

    try:
        result = check_cassette(path, probes)
    except Exception as exc:  # noqa: BLE001 - a crash of the analyzer is a judgement too
        return {"outcome": "error", "verdict": None, "message": f"{type(exc).__name__}: {exc}"}
    details = result.details
    found: Judgement = {"outcome": result.outcome, "verdict": details.get("verdict"), "message": result.message}
    if found["verdict"] is not None:
        found.update(family=result.family, config=details.get("config"), live_task=details.get("live_task"),
                     live=_live_items(details, probes.get(result.scenario)),
                     reason=(_openai_reason if details.get("provider") == "openai" else _error_reason)(
                         details.get("evidence") or {}), binding=_binding(details))
    return found


def changes(before: Judgement | None, after: Judgement | None) -> list[tuple[str, str, Any, Any]]:
    """Returns ``(kind, rule, before, after)`` for each breaking difference between two judgements."""
    if before is None or after is None:
        return []
    found: list[tuple[str, str, Any, Any]] = []
    if before["outcome"] == "pass" and after["outcome"] != "pass" and after["verdict"] is not None:
        found.append(("prediction_contradicted", "it passed its prediction and now contradicts it", "pass",
                      f"{after['outcome']}: {after['message']}"))
    elif before["verdict"] and not after["verdict"]:
        found.append(("judgement_lost", "the recording can no longer be judged", before["verdict"],
                      f"{after['outcome']}: {after['message']}"))
    if not (before["verdict"] and after["verdict"]):
        return found
    if before["verdict"] != after["verdict"]:
        found.append(("verdict_changed", "the analyzer's verdict changed", before["verdict"], after["verdict"]))
    if before["live"] != after["live"]:
        found.append(("live_items_changed", "what is cleared of the task in flight changed",
                      before["live"], after["live"]))
    if before.get("binding") is not None and after.get("binding") is not None and before["binding"] != after["binding"]:
        found.append(("thinking_binding_changed", "what the prefix check did to the thinking sent back changed",
                      before["binding"], after["binding"]))
    was, now = before.get("reason"), after.get("reason")
    if was is not None and now is not None and _reason_changed(was, now):
        found.append(("rejection_reason_changed", "the rejection's reason changed", _reason(was), _reason(now)))
    return found


def _smallest_reached(judgements: Iterable[tuple[str, Judgement | None]]) -> dict[tuple[str, str], tuple[Any, str]]:
    """Returns, per strategy ``(family, config)``, the smallest task in flight it reached (tool steps,
    thinking turns; None when it reached none) and the probe that showed it."""
    smallest: dict[tuple[str, str], tuple[Any, str]] = {}
    for probe, j in judgements:
        if not j or j.get("verdict") is None:
            continue
        key = (str(j["family"]), str(j["config"]))
        if j["verdict"] != "reached-live-task":
            smallest.setdefault(key, (None, ""))
            continue
        size = j["live_task"] or {}
        rank = (size.get("tool_steps", 0), size.get("thinking_turns", 0))
        if smallest.get(key, (None, ""))[0] is None or rank < smallest[key][0]:
            smallest[key] = (rank, probe)
    return smallest


def _size(rank: tuple[int, int] | None) -> str:
    return "none" if rank is None else f"{rank[0]} tool steps/{rank[1]} thinking turns"


def strategy_changes(before: Iterable[tuple[str, Judgement | None]],
                     after: Iterable[tuple[str, Judgement | None]]) -> list[tuple[str, str, str, Any, Any]]:
    """Returns ``(strategy, kind, rule, before, after)`` for each strategy whose smallest reached task
    in flight shrank (or that now reaches one and did not), both sides judged."""
    old, new = _smallest_reached(before), _smallest_reached(after)
    found = []
    for key in sorted(set(old) & set(new)):
        (was, _), (now, probe) = old[key], new[key]
        if now is not None and (was is None or now < was):
            found.append((f"{key[0]} {key[1]}", "strategy_reaches_smaller_task",
                          "the smallest task in flight this strategy reaches shrank", _size(was),
                          f"{_size(now)} ({probe})"))
    return found
