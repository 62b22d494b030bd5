"""The analyzer's judgement of each recording, and the changes between two judgements that break a user.

Each recording is replayed through ``conformance.provider.verify.check_cassette`` (the same replay and
analyzer ``conformance verify`` runs). From two judgements of one probe, breaking is: a recording
that passed its prediction and now contradicts it (or can no longer be judged), one that contradicts
it where the baseline recording could not be judged, a changed verdict,
any change in which items of the task in flight are cleared or summarised, any change in what the
prefix check of preserved thinking did to the thinking sent back (a 400 that became a drop, a block
dropped that now passes, ...), and a rejection whose reason changed (error type or code; the message when no code names the reason). Across a folder, a
strategy whose smallest reached task in flight shrinks is breaking too. Token counts and ids are
never compared here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._paths import shipped
from ..errors import SpecError

Judgement = dict[str, Any]


def load_probes(spec_paths: Iterable[Path] | None = None) -> dict[str, Any]:
    """Returns the probe specs by id; raises ``SpecError`` (the first one) when a spec fails to load,
    or when the spec paths given hold no probe (nothing would be judged)."""
    from ..provider.probes import load_probes as load

    given = list(spec_paths) if spec_paths else []
    probes, errors = load(given or [shipped("specs") / "provider"])
    if errors:
        raise errors[0]
    if given and not probes:
        raise SpecError(", ".join(map(str, given)), None, "--specs", "holds no probe spec: nothing would be judged")
    return probes


def _reason_changed(was: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Returns whether two rejections differ in reason: error type or code, or, when neither names a
    code, the message (its numbers aside): then the message is the only place the reason is given."""
    if (was["type"], was["code"]) != (now["type"], now["code"]):
        return True
    return was["code"] is None and was.get("message") != now.get("message")


def _reason(reason: Mapping[str, Any]) -> str:
    return f"{reason['type']}/{reason['code']}" + ("" if reason["code"] else f": {reason.get('message')}")


def judge(path: Path, probes: dict[str, Any]) -> Judgement:
    """Returns the analyzer's judgement of one cassette as plain data: ``outcome`` (pass, fail, error),
    ``verdict``, ``message``, the strategy (``family``, ``config``), the ``live_task`` size, the
    ``live`` items cleared and the rejection ``reason``."""
    from ..provider.base import of
    from ..provider.verify import check_cassette

    try:
        result = check_cassette(path, probes)
    except Exception as exc:  # noqa: BLE001 - a crash of the analyzer is a judgement too
        return {"outcome": "error", "verdict": None, "message": f"{type(exc).__name__}: {exc}"}
    details = result.details
    found: Judgement = {"outcome": result.outcome, "verdict": details.get("verdict"), "message": result.message}
    if found["verdict"] is not None:
        facts = of(details.get("provider")).drift_facts(details, probes.get(result.scenario))
        found.update(family=result.family, config=details.get("config"), live_task=details.get("live_task"),
                     live=facts["live"], reason=facts["reason"], binding=facts["binding"])
    return found


def changes(before: Judgement | None, after: Judgement | None) -> list[tuple[str, str, Any, Any]]:
    """Returns ``(kind, rule, before, after)`` for each breaking difference between two judgements."""
    if before is None or after is None:
        return []
    found: list[tuple[str, str, Any, Any]] = []
    if before["outcome"] == "pass" and after["outcome"] != "pass" and after["verdict"] is not None:
        found.append(("prediction_contradicted", "it passed its prediction and now contradicts it", "pass",
                      f"{after['outcome']}: {after['message']}"))
    elif before["verdict"] is None and after["verdict"] is not None and after["outcome"] != "pass":
        found.append(("prediction_contradicted", "it contradicts its prediction (the baseline recording could not "
                      "be judged)", f"{before['outcome']}: {before['message']}", f"{after['outcome']}: {after['message']}"))
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
