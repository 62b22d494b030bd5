"""Render verify results as the tables a user acts on: per probe, then per strategy configuration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._text import WIDTH, fit, plural
from ..engine.results import CheckResult
from . import base


def _size(live: dict[str, int]) -> str:
    if not live:
        return "-"
    tokens = live["input_tokens"]
    size = f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)
    return f"{plural(live['tool_steps'], 'step')}/{plural(live['thinking_turns'], 'turn')}/{size} tok"


def live_words(details: dict[str, Any]) -> str:
    """Returns what of the task in flight went, in words (the request summarised, results cleared...),
    falling back on the ids for results that carry no such words."""
    if details.get("live_evidence"):
        return "; ".join(details["live_evidence"])
    live = details.get("reached_tool_use_ids", []) + [f"turn {n}" for n in details.get("reached_thinking_turns", [])]
    return ",".join(map(str, live))


def _evidence(details: dict[str, Any]) -> str:
    if details.get("evidence_line"):
        return str(details["evidence_line"])
    if details.get("error_code"):
        return f"error {details['error_code']}"
    parts = []
    if details.get("cleared_tool_use_ids"):
        parts.append("cleared " + ",".join(details["cleared_tool_use_ids"]))
    if details.get("cleared_tool_inputs"):
        parts.append("inputs " + ",".join(details["cleared_tool_inputs"]))
    if details.get("cleared_thinking_turns"):
        parts.append("thinking turns " + ",".join(map(str, details["cleared_thinking_turns"])))
    if details.get("summarized"):
        parts.append("summarised the prompt")
    if details.get("reached_live"):
        parts.append("LIVE: " + live_words(details))
    return "; ".join(parts) or "nothing cleared"


def _source(server: str) -> str:
    """Returns the note placed beside a verdict recorded from the local emulator (not the real service)."""
    return " (emulator)" if server.startswith("emulator") else ""


def _provider(details: dict[str, Any]) -> str:
    """Returns the provider a result's details name, the implicit one's name when they name none."""
    return str(details.get("provider") or base.implicit().name)


def _live(details: dict[str, Any]) -> str:
    return base.get(_provider(details)).live_label(details)


def problem_line(r: CheckResult) -> str:
    """Returns one problem line: outcome, server/probe, configuration and live ids, then the message."""
    d = r.details
    where = f" [{d['config']}; {_live(d)}]" if d.get("config") else ""
    return f"  {r.outcome.upper()} {r.target}/{r.scenario}{where}: {r.message}"


def findings(results: Sequence[CheckResult]) -> list[str]:
    """Returns one line per (server, configuration) whose recordings cleared work of a task in flight."""
    reached: dict[tuple[str, str], list[str]] = {}
    for r in results:
        if r.outcome in ("pass", "fail") and r.details.get("reached_live"):
            reached.setdefault((r.target, r.details["config"]), []).append(r.scenario)
    return [f"  FINDING {server}: {config} clears work of a task in flight ({', '.join(ids)})"
            for (server, config), ids in sorted(reached.items())]


def grid(rows: list[list[str]], width: int = WIDTH) -> list[str]:
    """Returns the rows (the first is the header) as lines of left-aligned columns two spaces
    apart, at most ``width`` wide: the leading columns that fit stay on the row's line, and each
    other column goes below it on indented, wrapped lines of its own, as ``header: value``."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    keep = len(widths)
    while keep > 1 and sum(widths[:keep]) + 2 * (keep - 1) > width:
        keep -= 1
    lines = []
    for number, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row[:keep], widths)).rstrip())
        lines += fit([f"    {header.lower()}: {cell}"
                      for header, cell in zip(rows[0][keep:], row[keep:]) if number and cell], width)
    return lines


def probe_table(results: Sequence[CheckResult]) -> list[str]:
    """Returns one line per replayed probe: verdict, prediction, match, task size and evidence."""
    rows = [["PROBE", "VERDICT", "PREDICTED", "MATCH", "SERVER", "TASK IN FLIGHT", "EVIDENCE"]]
    for r in results:
        if r.outcome not in ("pass", "fail"):
            continue
        d = r.details
        rows.append([r.scenario, d["verdict"] + _source(r.target), d["predicted"],
                     "yes" if r.outcome == "pass" else "NO", r.target, _size(d.get("live_task", {})), _evidence(d)])
    return grid(rows) if len(rows) > 1 else []


def strategy_table(results: Sequence[CheckResult]) -> list[str]:
    """Returns one line per (provider, server, strategy configuration): does it reach live work, from
    which task size, with the evidence; every provider's strategies side by side."""
    groups: dict[tuple[str, str, str, str], list[CheckResult]] = {}
    for r in results:
        if r.outcome in ("pass", "fail"):
            key = (_provider(r.details), r.target, r.family, r.details["config"])
            groups.setdefault(key, []).append(r)
    rows = [["PROVIDER", "SERVER", "STRATEGY", "REACHES TASK IN FLIGHT", "CONFIGURATION", "EVIDENCE", "AVOIDED IN"]]
    for (provider, server, family, config), members in sorted(groups.items()):
        reached = [m for m in members if m.details["reached_live"]]
        rejected = [m for m in members if m.details["verdict"] == "rejected"]
        spared = [m for m in members if not m.details["reached_live"] and m.details["verdict"] != "rejected"]
        avoided = ""
        if reached:
            first = min(reached, key=lambda m: (m.details["live_task"]["tool_steps"], m.details["live_task"]["input_tokens"]))
            answer = f"YES from {_size(first.details['live_task'])}"
            evidence = f"{first.scenario}: {_evidence(first.details)}"
            avoided = ", ".join(f"{m.scenario} ({m.details['verdict']})" for m in spared)
        elif rejected and len(rejected) == len(members):
            answer, evidence = "rejected", f"{rejected[0].scenario}: {_evidence(rejected[0].details)}"
        else:
            largest = max(m.details["live_task"]["tool_steps"] for m in spared)
            answer = f"no, in the tasks recorded (up to {plural(largest, 'step')})"
            evidence = ", ".join(f"{m.scenario} ({m.details['verdict']})" for m in members)
        rows.append([provider, server, family, answer, config, evidence, avoided])
    return grid(rows) if len(rows) > 1 else []


def readings(results: Sequence[CheckResult]) -> list[str]:
    """Returns one line per reading of the documentation the replayed verdicts rest on, once each."""
    found = dict.fromkeys(x for r in results if r.outcome in ("pass", "fail") for x in r.details.get("readings") or [])
    return [f"  - {reading}" for reading in found]


def render(results: Sequence[CheckResult]) -> str:
    """Returns the full verify report: probe table, strategy table, problems and a count line."""
    out = []
    probes = probe_table(results)
    if probes:
        out += ["Recorded probes", *probes, "", "Strategies", *strategy_table(results), ""]
        stated = readings(results)
        if stated:
            out += ["Readings these answers rest on (lint-config states the same)", *fit(stated), ""]
    problems = [r for r in results if r.outcome in ("fail", "error")]
    if problems:
        out.append("Problems")
        out += [problem_line(r) for r in problems]
        out.append("")
    found = findings(results)
    if found:
        out += ["Findings (as predicted or not, these configurations lose live work)", *fit(found), ""]
    counts: dict[str, int] = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    if found:
        counts["finding"] = len(found)
    emulated = {r.target for r in results if r.outcome in ("pass", "fail") and r.target.startswith("emulator")}
    note = " (local emulator: evidence of the rules, not of the real service)" if emulated else ""
    out.append("verify: " + ", ".join(plural(n, k) if k == "finding" else f"{n} {k}"
                                      for k, n in sorted(counts.items())) + note
               if counts else "verify: nothing to verify")
    return "\n".join(out)
