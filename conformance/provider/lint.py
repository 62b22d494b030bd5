"""``conformance lint-config``: say, per edit, from which task size a configuration clears live work.

The answer comes from the documented semantics run on synthetic histories: a task in flight of n
tool steps (each result sized so the prompt crosses the trigger) for growing n, and a history of
settled thinking turns followed by a live one. The smallest task whose live items get cleared or
summarised is reported, with a configuration that avoids it where one exists.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import SpecError
from . import semantics as sem
from .probes import subschema_validator

MAX_STEPS = 200  # lengths tried past the first one that could be reached, when no limit is given


@dataclass(frozen=True)
class Finding:
    """One edit's lint result: does it reach live work, from which task, and what avoids it."""

    edit: str
    label: str
    reaches: bool
    smallest_task: str
    avoid: str


def _task(steps: int, result_tokens: int) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = [{"role": "user", "content": "Start the task."}]
    for n in range(1, steps + 1):
        history.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "tool", "input": {}}]})
        history.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": sem.filler(result_tokens)}]})
    return history


def smallest_tool_task(edit: dict[str, Any], limit: int | None = None) -> tuple[int, int] | None:
    """Returns (tool steps, prompt tokens) of the smallest live-only task the edit reaches into.

    Returns None when no task of at most ``limit`` steps is reached (no limit: every length is
    tried from the first one that can be, so only a limit makes the answer None).
    """
    trigger: dict[str, Any] = edit.get("trigger") or sem.DEFAULT_TOOL_TRIGGER
    least = int((edit.get("clear_at_least") or {}).get("value", 0))
    keep = int((edit.get("keep") or {}).get("value", sem.DEFAULT_TOOL_KEEP))
    # Fewer than keep + 1 results leave nothing to clear; a tool_uses trigger needs more uses than its value.
    first = max(1, keep + 1, int(trigger["value"]) + 1 if trigger["type"] == "tool_uses" else 1)
    for steps in range(first, (limit if limit is not None else first + MAX_STEPS) + 1):
        size = max(1, least)
        if trigger["type"] == "input_tokens":
            size = max(size, math.ceil((trigger["value"] + 1) / steps) + 1)
        request = {"messages": _task(steps, size)}
        plan = sem.plan_clear_tool_uses({**edit, "exclude_tools": []}, request)
        if plan.applies and plan.cleared:
            return steps, sem.request_tokens(request)
    return None


def _tool_finding(edit: dict[str, Any], max_steps: int | None) -> Finding:
    keep = int((edit.get("keep") or {}).get("value", sem.DEFAULT_TOOL_KEEP))
    trigger = edit.get("trigger") or sem.DEFAULT_TOOL_TRIGGER
    label = f"keep {keep} tool uses, trigger {trigger['type']} > {trigger['value']}"
    if edit.get("clear_at_least"):
        label += f", clear_at_least {edit['clear_at_least']['value']}"
    if edit.get("exclude_tools"):
        label += f", exclude_tools {edit['exclude_tools']}"
    found = smallest_tool_task(edit, max_steps)
    if found is None:
        return Finding(edit["type"], label, False, f"none up to {max_steps} tool steps",
                       "nothing to change for tasks of that length")
    steps, tokens = found
    crossing = (f"more than {trigger['value']} tool uses in the prompt" if trigger["type"] == "tool_uses"
                else f"a prompt above {trigger['value']} input tokens")
    smallest = (f"{steps} tool steps of tools outside exclude_tools, with {crossing} "
                f"(about {tokens} input tokens when the task is the whole prompt)")
    if max_steps is not None:
        avoid = f"keep {{type: tool_uses, value: {max_steps}}} covers a {max_steps}-step task"
    else:
        avoid = ("no keep value covers every task length: pass --max-task-steps N and set keep >= N, "
                 "or list every tool a task may call in exclude_tools")
    return Finding(edit["type"], label, True, smallest, avoid)


def _thinking_finding(edit: dict[str, Any]) -> Finding:
    keep = sem.thinking_keep(edit)
    label = "keep all thinking turns" if keep is None else f"keep {keep} thinking turns"
    history: list[dict[str, Any]] = []
    for n in range(1, 6):
        history += [{"role": "user", "content": f"Request {n}."},
                    {"role": "assistant", "content": [{"type": "thinking", "thinking": f"Plan {n}.", "signature": "s"},
                                                      {"type": "text", "text": f"Answer {n}."}]}]
    history += [{"role": "user", "content": "Live request."},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "Live plan.", "signature": "s"},
                                                  {"type": "tool_use", "id": "toolu_live", "name": "t", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_live", "content": "ok"}]}]
    plan = sem.plan_clear_thinking(edit, {"messages": history, "thinking": {"type": "enabled"}})
    live_turn = sem.assistant_turns(history)[-1].number
    reaches = any(t.number == live_turn for t in plan.cleared)
    return Finding(edit["type"], label, reaches, "any task with thinking" if reaches else
                   "none: a tool-use loop is one turn and the latest turn is always kept",
                   "keep at least 1 thinking turn" if reaches else "nothing to change")


def _compact_finding(edit: dict[str, Any]) -> Finding:
    trigger = sem.compact_trigger(edit)
    label = f"compact at {trigger} input tokens" + (", pause after compaction" if edit.get("pause_after_compaction") else "")
    return Finding(edit["type"], label, True,
                   f"1 tool step, once the prompt reaches {trigger} input tokens: the summary covers the whole prompt",
                   "drop compact_20260112 and send `compaction: {type: summarize}` (beta compact-2026-09-04) "
                   "only right after a settled answer")


def lint(config: dict[str, Any], max_task_steps: int | None = None) -> tuple[list[Finding], str | None]:
    """Returns the findings per edit and, when the API would reject the configuration, why."""
    request = config if ("context_management" in config or "compaction" in config) else {"context_management": config}
    edits = sem.edits_of(request)
    betas = [sem.BETA_FOR_EDIT[e["type"]] for e in edits] + ([sem.ON_DEMAND_BETA] if "compaction" in request else [])
    rejected = sem.rejection({**request, "messages": [{"role": "user", "content": "x"}],
                              "thinking": {"type": "enabled"}}, betas)
    findings: list[Finding] = []
    for edit in edits:
        if edit["type"] == sem.CLEAR_TOOL_USES:
            findings.append(_tool_finding(edit, max_task_steps))
        elif edit["type"] == sem.CLEAR_THINKING:
            findings.append(_thinking_finding(edit))
        else:
            findings.append(_compact_finding(edit))
    if request.get("compaction") is not None:
        findings.append(Finding("compaction", "on-demand summarize", False,
                                "none by configuration: sent after tool results but before the final answer, "
                                "it summarises the task in flight; with a tool call still open it is rejected",
                                "send it only right after a settled answer"))
    return findings, (rejected[1] if rejected else None)


def load_config(path: Path) -> dict[str, Any]:
    """Returns the configuration in a JSON or YAML file; raises ``SpecError`` when it is not valid."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(path, None, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise SpecError(path, None, "", f"not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}") from None
    errors = list(subschema_validator("lintConfig").iter_errors(data))
    if errors:
        best = min(errors, key=lambda e: len(list(e.absolute_path)))
        deep = max((e for c in errors for e in (c.context or [])), key=lambda e: len(list(e.absolute_path)), default=best)
        where = ".".join(str(p) for p in deep.absolute_path)
        raise SpecError(path, None, where, deep.message)
    return data


def render(findings: list[Finding]) -> str:
    """Returns the findings as text a user can act on."""
    lines = []
    for f in findings:
        lines += [f"{f.edit} ({f.label})", f"  reaches into a task in flight: {'yes' if f.reaches else 'no'}",
                  f"  smallest such task: {f.smallest_task}", f"  to avoid it: {f.avoid}"]
    return "\n".join(lines)
