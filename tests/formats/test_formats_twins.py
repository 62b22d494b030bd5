"""A broken compactor written in another message format gets, through ``--format``, the same failing
MUST checks as its Anthropic-shaped twin, scenario by scenario: on a few scenarios that together
cover every family and feature the format can express (``covering``) and every invariant the twin
fails on the whole catalog; that a format carries every scenario over and back unchanged is
test_formats' identity test."""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from conformance import RunOptions, from_callable, run
from conformance.formats import get
from conformance.formats.wrap import in_format

from ..conftest import covering, shipped_specs

Messages = list[Any]
OPTIONS = RunOptions(reference_targets=frozenset(), time_limit=5.0, idempotence=False, in_process=True)
REASONING = ("thinking", "redacted_thinking")


# --- the Anthropic-shaped twins ---------------------------------------------------------------

def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return content if isinstance(content, list) else []


def clear_results_anthropic(history: Messages) -> Messages:
    return [{**m, "content": [{**b, "content": "[cleared]"} if b.get("type") == "tool_result" else b
                              for b in _blocks(m)]} if _blocks(m) else m for m in history]


def drop_last_result_anthropic(history: Messages) -> Messages:
    out = copy.deepcopy(history)
    for i in range(len(out) - 1, -1, -1):
        found = [j for j, b in enumerate(_blocks(out[i])) if b.get("type") == "tool_result"]
        if found:
            del out[i]["content"][found[-1]]
            if not out[i]["content"]:
                del out[i]
            break
    return out


def drop_last_result_merging_anthropic(history: Messages) -> Messages:
    """The twin for flat items: a turn left empty disappears, and its neighbours become one turn."""
    out: Messages = []
    for m in drop_last_result_anthropic(history):
        if out and out[-1]["role"] == m["role"] and _blocks(out[-1]) and _blocks(m):
            out[-1] = {**out[-1], "content": out[-1]["content"] + m["content"]}
        else:
            out.append(m)
    return out


def strip_reasoning_anthropic(history: Messages) -> Messages:
    out = []
    for m in history:
        if not _blocks(m):
            out.append(m)
            continue
        kept = [b for b in m["content"] if b.get("type") not in REASONING]
        if kept:
            out.append({**m, "content": kept})
    return out


# --- the same, written in each format ----------------------------------------------------------

def _drop_last(items: Messages, is_result: Callable[[Any], bool]) -> Messages:
    out = list(items)
    for i in range(len(out) - 1, -1, -1):
        if is_result(out[i]):
            del out[i]
            break
    return out


def _drop_last_part(messages: Messages, key: str, field: str) -> Messages:
    out = copy.deepcopy(messages)
    for i in range(len(out) - 1, -1, -1):
        found = [j for j, p in enumerate(out[i][field]) if key in p]
        if found:
            del out[i][field][found[-1]]
            if not out[i][field]:
                del out[i]
            break
    return out


def _strip_parts(messages: Messages, field: str, is_reasoning: Callable[[Any], bool]) -> Messages:
    out = []
    for m in messages:
        kept = [p for p in m[field] if not is_reasoning(p)]
        if kept or not m[field]:
            out.append({**m, field: kept})
    return out


def _lc_clear(messages: Messages) -> Messages:
    return [m.model_copy(update={"content": "[cleared]"}) if type(m).__name__ == "ToolMessage" else m for m in messages]


def _lc_strip(messages: Messages) -> Messages:
    out = []
    for m in messages:
        if type(m).__name__ == "AIMessage" and isinstance(m.content, list) and m.content:
            kept = [b for b in m.content if b.get("type") not in REASONING]
            if not kept:
                continue
            m = m.model_copy(update={"content": kept})
        out.append(m)
    return out


IN_FORMAT: dict[str, dict[str, Callable[[Messages], Messages]]] = {
    "clear-results": {
        "openai-chat": lambda ms: [{**m, "content": "[cleared]"} if m["role"] == "tool" else m for m in ms],
        "openai-responses": lambda ms: [{**m, "output": "[cleared]"} if m.get("type") == "function_call_output"
                                        else m for m in ms],
        "bedrock": lambda ms: [{**m, "content": [{"toolResult": {**p["toolResult"], "content": [{"text": "[cleared]"}]}}
                                                 if "toolResult" in p else p for p in m["content"]]} for m in ms],
        "google-genai": lambda ms: [{**m, "parts": [
            {"functionResponse": {**p["functionResponse"], "response": {"output": "[cleared]"}}}
            if "functionResponse" in p else p for p in m["parts"]]} for m in ms],
        "langchain": _lc_clear,
    },
    "drop-last-result": {
        "openai-chat": lambda ms: _drop_last(ms, lambda m: m["role"] == "tool"),
        "openai-responses": lambda ms: _drop_last(ms, lambda m: m.get("type") == "function_call_output"),
        "bedrock": lambda ms: _drop_last_part(ms, "toolResult", "content"),
        "google-genai": lambda ms: _drop_last_part(ms, "functionResponse", "parts"),
        "langchain": lambda ms: _drop_last(ms, lambda m: type(m).__name__ == "ToolMessage"),
    },
    "strip-reasoning": {
        "openai-responses": lambda ms: [m for m in ms if m.get("type") != "reasoning"],
        "bedrock": lambda ms: _strip_parts(ms, "content", lambda p: "reasoningContent" in p),
        "google-genai": lambda ms: _strip_parts(ms, "parts", lambda p: bool(p.get("thought"))),
        "langchain": _lc_strip,
    },
}
TWIN: dict[Any, Callable[[Messages], Messages]] = {
    "clear-results": clear_results_anthropic, "drop-last-result": drop_last_result_anthropic,
    "strip-reasoning": strip_reasoning_anthropic,
    ("drop-last-result", "openai-responses"): drop_last_result_merging_anthropic}
CASES = [(broken, name) for broken, by_format in IN_FORMAT.items() for name in by_format]


@cache
def _scenarios() -> tuple[Any, ...]:
    return tuple(shipped_specs().scenarios)


def _failing(report: Any) -> set[tuple[str, str]]:
    return {(r.scenario, r.invariant) for r in report.results if r.level == "MUST" and r.outcome in ("fail", "error")}


@cache
def _twin_failing(twin: Callable[[Messages], Messages], broken: str) -> frozenset[tuple[str, str]]:
    """Returns the failing MUST (scenario, invariant) pairs of an Anthropic-shaped twin on every
    scenario, run once per process (the twin needs no conversion: the cheap side of the comparison)."""
    return frozenset(_failing(run([from_callable(twin, broken)], list(_scenarios()), options=OPTIONS)))


def _chosen(expressible: list[Any], twin: frozenset[tuple[str, str]]) -> list[Any]:
    """Returns the scenarios a format's twin is compared on: ``covering`` of ``expressible``, and
    for every invariant the twin fails on them but on none of those, the first of the shortest
    scenarios it fails there, so that each way the twin fails is reached through the format too."""
    chosen = covering(expressible)
    ids = {s.id for s in chosen}
    reached = {invariant for scenario, invariant in twin if scenario in ids}
    for scenario in sorted(expressible, key=lambda s: (len(s.history), s.id)):
        missing = {invariant for failing, invariant in twin if failing == scenario.id} - reached
        if missing:
            chosen.append(scenario)
            reached |= missing
    return chosen


@pytest.mark.slow
@pytest.mark.parametrize(("broken", "name"), CASES)
def test_a_broken_compactor_in_a_format_fails_as_its_anthropic_twin(broken: str, name: str) -> None:
    fmt = get(name)
    expressible = [s for s in _scenarios() if fmt.why_not(s.history) is None]
    ids = {s.id for s in expressible}
    twin_all = frozenset(pair for pair in _twin_failing(TWIN.get((broken, name)) or TWIN[broken], broken)
                         if pair[0] in ids)
    chosen = _chosen(expressible, twin_all)
    targets, scenarios, _ = in_format([from_callable(IN_FORMAT[broken][name], broken)], chosen, name)
    through_format = _failing(run(targets, scenarios, options=OPTIONS))
    chosen_ids = {s.id for s in chosen}
    twin = {pair for pair in twin_all if pair[0] in chosen_ids}
    assert twin, f"{broken} fails nothing: the comparison would be empty"
    assert through_format == twin
