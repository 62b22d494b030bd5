"""``conformance lint-config``: say, per edit, from which task size a configuration clears live work.

The answer comes from one source: ``semantics.predict``, the rules ``verify`` predicts with, run on
witness histories. A witness is a settled task (tool uses whose results are large enough to cross
any trigger and any ``clear_at_least``, then a settled answer) followed by a task in flight of n
tool steps: every step calls a tool outside ``exclude_tools``, carries thinking, and its result
message also carries a text note (as agents that attach reminders to tool results do, which
starts a new turn). For each n that witness is the one most exposed to every edit: settled history
fires a trigger without growing the task, and the live steps are all clearable. n runs from 0: a
task whose request was sent and no step taken yet is in flight too, and a summary that folds that
request reaches it. The smallest n whose task ``predict`` calls reached is reported, with a
configuration that avoids it and itself lints clean.

Assumed about a task in flight, as the probes define it: it starts after the latest assistant
message with text and no tool call, so each of its assistant messages calls a tool. A step is one
tool use, so parallel calls count one each (as ``verify`` counts a task's size).

A configuration given as a request fragment may also hold ``thinking`` (its ``block_binding``) and
``model``: ``lint_binding`` says that ``drop_block`` hides a client's edit of the history before a
thinking block rather than fixing it, and, with a model named (``--model`` or the fragment's
``model``), what that model does when a thinking block sent back fails its prefix check. With
thinking on and no ``clear_thinking`` edit, the named model's own clearing is linted as the edit it
equals: older models keep only the last turn's thinking (keep 1) even with no ``context_management``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..._text import article, fit, plural
from ...engine._yamlsource import read_text
from ...errors import SpecError
from .._lint import LintFinding
from . import lint_binding
from . import semantics as sem
from ..probes import subschema_validator

SEARCH_LIMIT = 4096  # task lengths tried at most; a config whose numbers exceed it is reported as reaching
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
LINEAR_SEARCH = 64  # lengths tried one by one; longer searches bisect
LIVE_RESULT_TOKENS = 8


@dataclass(frozen=True)
class Finding(LintFinding):
    """One edit's lint result: does it reach live work, from which task, and what avoids it.

    The fields after ``avoid`` are this provider's own.
    """

    smallest_steps: int | None = None
    safer_edit: dict[str, Any] | None = None  # replaces the edit in the safer configuration; None drops it
    needs_task_size: bool = False  # the safer form depends on the task size, which was not given
    reading: str = ""  # the reading of the documentation the answer rests on, where it is not spelled out
    on_failed_check: str = ""  # thinking.block_binding read with a model: what that model does on a failed check


@dataclass(frozen=True)
class Witness:
    """A history built to expose an edit: the request's messages and the declared live span."""

    messages: list[dict[str, Any]]
    span: sem.Span


def effective(edit: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the edit with the documented defaults of its trigger and keep filled in."""
    filled = dict(edit)
    if edit.get("type") == sem.CLEAR_TOOL_USES:
        filled["trigger"] = edit.get("trigger") or sem.DEFAULT_TOOL_TRIGGER
        filled["keep"] = edit.get("keep") or {"type": "tool_uses", "value": sem.DEFAULT_TOOL_KEEP}
    elif edit.get("type") == sem.CLEAR_THINKING:
        filled.setdefault("keep", {"type": "thinking_turns", "value": 1})
    elif edit.get("type") == sem.COMPACT:
        filled["trigger"] = {"type": "input_tokens", "value": sem.compact_trigger(edit)}
    return filled


def _numbers(edit: Mapping[str, Any], kinds: tuple[str, ...]) -> list[int]:
    """Returns the values of the edit's settings (defaults filled in) whose ``type`` is in ``kinds``, read
    as ``semantics`` reads them (``int()``: 10.0, which the schema accepts as an integer, is 10)."""
    found = []
    for value in effective(edit).values():
        number = value.get("value") if isinstance(value, Mapping) and value.get("type") in kinds else None
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            found.append(int(number))
    return found


def _settled_result_tokens(edit: Mapping[str, Any]) -> int:
    """Returns a settled result size that crosses the edit's token trigger and meets clear_at_least,
    under the suite's estimate and, with room to spare, under other tokenizers."""
    need = max([0, *_numbers(edit, ("input_tokens",))])
    return -(-(need + need // 8 + 64) // 256) * 256  # rounded up, so witnesses share their filler


def tool_outside(edit: Mapping[str, Any]) -> str:
    """Returns a tool name that ``exclude_tools`` does not list (an agent's other tools)."""
    excluded = set(edit.get("exclude_tools") or [])
    return next(name for n in range(len(excluded) + 1) if (name := f"tool_{n}") not in excluded)


def witness(edit: Mapping[str, Any], live_steps: int) -> Witness:
    """Returns the history most exposed to ``edit`` with a task in flight of ``live_steps`` tool steps."""
    tool = tool_outside(edit)
    trigger = effective(edit).get("trigger") or {}
    settled_uses = max(1, int(trigger.get("value", 0)) + 1 - live_steps) if trigger.get("type") == "tool_uses" else 1
    size = _settled_result_tokens(edit)
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Settled request."}]
    uses = [{"type": "tool_use", "id": f"toolu_s{n}", "name": tool, "input": {}} for n in range(1, settled_uses + 1)]
    messages.append({"role": "assistant", "content": [{"type": "thinking", "thinking": "Plan.", "signature": "s"},
                                                      *uses]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": u["id"], "content": sem.filler(size if n == 0 else 1)}
        for n, u in enumerate(uses)]})
    messages.append({"role": "assistant", "content": [{"type": "thinking", "thinking": "Done.", "signature": "s"},
                                                      {"type": "text", "text": "Settled answer."}]})
    start = len(messages)
    messages.append({"role": "user", "content": "Live request."})
    ids = []
    for n in range(1, live_steps + 1):
        ids.append(f"toolu_l{n}")
        messages.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": f"Step {n}.", "signature": "s"},
            {"type": "tool_use", "id": ids[-1], "name": tool, "input": {"step": n}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": ids[-1], "content": sem.filler(LIVE_RESULT_TOKENS)},
            {"type": "text", "text": "Note."}]})
    turns = tuple(t.number for t in sem.assistant_turns(messages) if t.messages[0] > start and t.has_thinking)
    return Witness(messages, sem.Span(start, tuple(ids), turns))


def _request(edit: Mapping[str, Any] | None,
             compaction: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Returns a request holding only ``edit`` (or the on-demand ``compaction`` parameter) and its betas."""
    request: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    if edit is not None:
        request["context_management"] = {"edits": [dict(edit)]}
        return request, [sem.BETA_FOR_EDIT[edit["type"]]]
    request["compaction"] = dict(compaction or {"type": "summarize"})
    return request, [sem.ON_DEMAND_BETA]


def reaches_at(edit: Mapping[str, Any] | None, live_steps: int, compaction: Mapping[str, Any] | None = None) -> bool:
    """Returns whether the documented rules clear or summarise live work of the witness with ``live_steps``."""
    request, betas = _request(edit, compaction)
    found = witness(edit or {}, live_steps)
    prediction = sem.predict({**request, "messages": found.messages}, betas, found.span)
    return prediction.verdict == "reached-live-task"


def smallest_reached(edit: Mapping[str, Any] | None, limit: int | None,
                     compaction: Mapping[str, Any] | None = None) -> tuple[int | None, bool]:
    """Returns (smallest live task length reached or None, whether every length that matters was tried).

    Lengths run from 0 (the task's request alone, no step yet) to ``limit``, but past two more than the
    largest step or turn count in the edit the witness meets every setting the same way, so the search
    stops there (no limit: it stops there too). At most ``SEARCH_LIMIT`` lengths are covered; ``False``
    says the search stopped short. Up to ``LINEAR_SEARCH`` every length is tried; beyond, the smallest
    is found by bisection, the witnesses being more exposed the longer the task.
    """
    bound = max([1, *_numbers(edit or {}, ('tool_uses', 'thinking_turns'))]) + 2
    wanted = bound if limit is None else min(limit, bound)
    last = min(wanted, SEARCH_LIMIT)
    if last <= LINEAR_SEARCH:
        return next((n for n in range(0, last + 1) if reaches_at(edit, n, compaction)), None), last == wanted
    if not reaches_at(edit, last, compaction):
        return None, last == wanted
    low, high = 0, last
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if reaches_at(edit, middle, compaction) else (middle + 1, high)
    return low, True


def _tool_label(edit: Mapping[str, Any]) -> str:
    keep = int((edit.get("keep") or {}).get("value", sem.DEFAULT_TOOL_KEEP))
    trigger = edit.get("trigger") or sem.DEFAULT_TOOL_TRIGGER
    label = f"keep {plural(keep, 'tool use')}, trigger {trigger['type']} > {trigger['value']}"
    if edit.get("clear_at_least"):
        label += f", clear_at_least {edit['clear_at_least']['value']}"
    if edit.get("exclude_tools"):
        label += f", exclude_tools {edit['exclude_tools']}"
    if edit.get("clear_tool_inputs"):
        label += f", clear_tool_inputs {edit['clear_tool_inputs']}"
    return label


def _label(edit: Mapping[str, Any] | None) -> str:
    if edit is None:
        return "on-demand summarize"
    if edit["type"] == sem.CLEAR_TOOL_USES:
        return _tool_label(edit)
    if edit["type"] == sem.CLEAR_THINKING:
        keep = sem.thinking_keep(edit)
        return "keep all thinking turns" if keep is None else f"keep {plural(keep, 'thinking turn')}"
    pause = ", pause after compaction" if edit.get("pause_after_compaction") else ""
    return f"compact at {sem.compact_trigger(edit)} input tokens{pause}"


def _shape(edit: Mapping[str, Any] | None, steps: int) -> str:
    """Returns the smallest reached task in words: what the witness of that length holds."""
    if edit is None:
        if steps == 0:
            return ("a new request, before any tool step: sent with the request pending, the summary folds "
                    "that request, and the task is answered from the summary")
        return (f"{steps} tool step: sent after a tool result and before the final answer, the summary covers "
                "the task in flight (with a tool call still open the API rejects it)")
    if edit["type"] == sem.CLEAR_TOOL_USES:
        trigger = edit.get("trigger") or sem.DEFAULT_TOOL_TRIGGER
        crossing = (f"more than {trigger['value']} tool uses in the prompt, settled ones included"
                    if trigger["type"] == "tool_uses" else f"a prompt above {trigger['value']} input tokens")
        return f"{steps} tool steps of tools outside exclude_tools, with {crossing}"
    if edit["type"] == sem.CLEAR_THINKING:
        return f"{steps} tool steps with thinking whose tool results carry text as well"
    if steps == 0:
        return (f"a new request, before any tool step, once the prompt reaches {sem.compact_trigger(edit)} input "
                "tokens: the threshold fires on that request and the summary folds it, so the task is "
                "answered from the summary")
    return (f"{steps} tool step, once the prompt reaches {sem.compact_trigger(edit)} input tokens: "
            "the summary covers the whole prompt")


def _safer(edit: Mapping[str, Any] | None, limit: int | None) -> tuple[dict[str, Any] | None, str, bool]:
    """Returns the replacement edit (None: drop it), the advice in words, and whether the replacement
    needs the task size (``--task-size``), which was not given."""
    if edit is None:
        return None, ("send `compaction: {type: summarize}` only right after a settled answer, before the next "
                      "request is added, never mid-task"), False
    if edit["type"] == sem.CLEAR_TOOL_USES:
        if limit is not None:
            return ({**edit, "keep": {"type": "tool_uses", "value": limit}},
                    f"keep {{type: tool_uses, value: {limit}}} keeps clearing settled results and covers a task "
                    f"of up to {limit} tool steps; tools listed in exclude_tools are never cleared", False)
        return None, ("no keep value covers every task length: give the task size (--task-size N, the most "
                      "tool steps one task of your agent takes) and keep >= N, or list in exclude_tools the "
                      "tools whose results a task in flight needs"), True
    if edit["type"] == sem.CLEAR_THINKING:
        if limit is not None:
            return ({**edit, "keep": {"type": "thinking_turns", "value": limit}},
                    f"keep {{type: thinking_turns, value: {limit}}} covers {article(f'{limit}-step task')}", False)
        return ({**edit, "keep": {"type": "all"}},
                "keep {type: all}, or give the task size (--task-size N) and keep N turns", False)
    return None, ("drop compact_20260112 and send `compaction: {type: summarize}` (beta compact-2026-09-04) "
                  "only right after a settled answer, before the next request"), False


def reading_for(kind: str) -> str:
    """Returns the reading the answer for an edit type (or ``compaction``) rests on ("" when none)."""
    return sem.READINGS.get(kind, "")


def finding(edit: Mapping[str, Any] | None, limit: int | None, compaction: Mapping[str, Any] | None = None) -> Finding:
    """Returns the lint finding for one edit (``None``: the on-demand ``compaction`` parameter)."""
    return dataclasses.replace(_finding(edit, limit, compaction),
                               reading=reading_for(edit["type"] if edit is not None else "compaction"))


def _finding(edit: Mapping[str, Any] | None, limit: int | None, compaction: Mapping[str, Any] | None) -> Finding:
    kind = edit["type"] if edit is not None else "compaction"
    steps, complete = smallest_reached(edit, limit, compaction)
    if steps is None and not complete:
        safer, avoid, ask = _safer(edit, limit)
        return Finding(kind, _label(edit), True, f"not searched beyond {SEARCH_LIMIT} tool steps: "
                       "treated as reaching; pass a smaller --task-size", avoid, None, safer, ask)
    if steps is None:
        scope = f"none up to {limit} tool steps" if limit is not None else "none at any task length"
        return Finding(kind, _label(edit), False, scope, "nothing to change",
                       None, dict(edit) if edit is not None else None)
    safer, avoid, ask = _safer(edit, limit)
    return Finding(kind, _label(edit), True, _shape(edit, steps), avoid, steps, safer, ask)


DEFAULT_THINKING = "default thinking clearing"  # the finding on a model's own clearing, with no clear_thinking edit
KEEP_ALL_THINKING = {"type": sem.CLEAR_THINKING, "keep": {"type": "all"}}
LAST_TURN_ONLY = {"type": sem.CLEAR_THINKING, "keep": {"type": "thinking_turns", "value": 1}}
# The last version of each family that, with thinking on and no clear_thinking edit, keeps only the last
# turn's thinking (as keep 1 does), and the first that keeps every turn's (context-editing page, "Default
# behavior ... varies by model class"; the same holds with no context_management at all). Haiku: "last
# turn only for all models through Haiku 4.5", no later one named. Fable and Mythos keep all.
LAST_TURN_THROUGH = {"opus": (4, 1), "sonnet": (4, 5), "haiku": (4, 5)}
KEEP_ALL_FROM = {"opus": (4, 5), "sonnet": (4, 6), "fable": (0, 0), "mythos": (0, 0)}
BY_MODEL = ("without a clear_thinking_20251015 edit, Claude Haiku 4.5, Sonnet 4.5, Opus 4.1 and earlier keep only "
            "the last turn's thinking (as keep 1 does), while Opus 4.5 and later, Sonnet 4.6 and later, Fable and "
            "Mythos keep every turn's")


def keeps_last_turn_only(model: str) -> bool | None:
    """Returns whether ``model``, with thinking on and no clear_thinking edit, keeps only the last
    turn's thinking (True), every turn's (False), or None for a model the documented table does not name."""
    version = lint_binding.model_version(model)
    if version is None:
        return True if lint_binding.is_old_name(model) else None
    family, major, minor = version
    if family in LAST_TURN_THROUGH and (major, minor) <= LAST_TURN_THROUGH[family]:
        return True
    if family in KEEP_ALL_FROM and (major, minor) >= KEEP_ALL_FROM[family]:
        return False
    return None


def default_thinking_finding(request: Mapping[str, Any], model: str | None, limit: int | None) -> Finding | None:
    """Returns the finding on the thinking clearing ``model`` does by default (as clear_thinking keep 1
    on older models), or None when thinking is off or a clear_thinking edit is given. With no model
    named, or one the table does not name, it does not reach and says that the answer depends on the model."""
    if not sem.thinking_enabled(request) or any(e.get("type") == sem.CLEAR_THINKING for e in sem.edits_of(request)):
        return None
    last_only = keeps_last_turn_only(model) if model else None
    add = ("add clear_thinking_20251015 with keep {type: all}, listed first in context_management.edits "
           f"(beta {sem.CONTEXT_BETA})")
    if last_only is None:
        who = f"model {model}, not one the table names" if model else "no model named"
        return Finding(DEFAULT_THINKING, f"no clear_thinking edit, {who}", False,
                       f"depends on the model: {BY_MODEL}; name it (--model or the configuration's model) to know",
                       f"to be sure on every model, {add}", reading=reading_for(sem.CLEAR_THINKING))
    if not last_only:
        return Finding(DEFAULT_THINKING, f"no clear_thinking edit, model {model}: keeps every turn's thinking", False,
                       f"none: {model} keeps every turn's thinking by default", "nothing to change; if the code "
                       "runs on several models, set clear_thinking_20251015 keep explicitly")
    same = _finding(LAST_TURN_ONLY, limit, None)
    return dataclasses.replace(
        same, edit=DEFAULT_THINKING, label=f"no clear_thinking edit, model {model}: its default keeps 1 thinking turn",
        avoid=f"{add}: {model}'s default otherwise clears every turn's thinking but the last" if same.reaches
        else "nothing to change", safer_edit=dict(KEEP_ALL_THINKING) if same.reaches else None,
        needs_task_size=False, reading=reading_for(sem.CLEAR_THINKING))


FRAGMENT_KEYS = ("context_management", "compaction", "thinking", "model")  # a request fragment, not a bare object


def as_request(config: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the configuration as a request fragment with ``context_management``, ``compaction``,
    ``thinking`` and ``model`` as given."""
    if any(key in config for key in FRAGMENT_KEYS):
        return dict(config)
    return {"context_management": dict(config)}


def binding_finding(request: Mapping[str, Any], model: str | None) -> Finding | None:
    """Returns the finding on ``thinking.block_binding`` (``drop_block`` hides a client's edit: it
    reaches), with what ``model`` does on a failed prefix check when one is named; None when the
    configuration sets no ``thinking`` and names no model."""
    if "thinking" not in request and not model:
        return None
    setting = lint_binding.behavior(request)
    advice = lint_binding.advise(setting, model)
    label = f"prefix_mismatch_behavior {setting or 'unset'}" + (f", model {model}" if model else "")
    return Finding(lint_binding.EDIT, label, advice.reaches, advice.situation, advice.avoid, None, advice.safer,
                   on_failed_check=lint_binding.on_failed_check(model, setting) if model else "")


def lint(config: dict[str, Any], max_task_steps: int | None = None,
         model: str | None = None) -> tuple[list[Finding], str | None]:
    """Returns the findings per edit (and the on-demand parameter, and ``thinking.block_binding``,
    read with ``model`` or else the configuration's own ``model``) and, when the API would reject
    the configuration, why."""
    request = as_request(config)
    edits = sem.edits_of(request)
    betas = [sem.BETA_FOR_EDIT[e["type"]] for e in edits] + ([sem.ON_DEMAND_BETA] if "compaction" in request else [])
    rejected = sem.rejection({**request, "messages": [{"role": "user", "content": "x"}],
                              "thinking": {"type": "enabled"}}, betas)
    named = model or (str(request["model"]) if request.get("model") else None)
    by_default = default_thinking_finding(request, named, max_task_steps)
    findings = ([by_default] if by_default is not None else []) + [finding(edit, max_task_steps) for edit in edits]
    if request.get("compaction") is not None:
        findings.append(finding(None, max_task_steps, request["compaction"]))
    bound = binding_finding(request, named)
    if bound is not None:
        findings.append(bound)
    return findings, (rejected[1] if rejected else None)


def safer_config(config: dict[str, Any], findings: list[Finding]) -> dict[str, Any]:
    """Returns the configuration with each reaching edit replaced by its safer form or dropped, in the
    shape it was given."""
    request = copy.deepcopy(as_request(config))
    by_edit = [f for f in findings if f.edit not in ("compaction", lint_binding.EDIT)]  # the default first
    if "context_management" in request or any(f.edit == DEFAULT_THINKING and f.safer_edit for f in findings):
        edits = [f.safer_edit for f in by_edit if f.safer_edit is not None]
        request["context_management"] = {**request.get("context_management", {}), "edits": edits}
    if any(f.edit == "compaction" and f.reaches for f in findings):
        request.pop("compaction", None)
    for f in findings:
        if f.edit == lint_binding.EDIT and f.reaches and f.safer_edit is not None:
            request["thinking"] = {**request.get("thinking", {}), "block_binding": dict(f.safer_edit)}
    if any(key in config for key in FRAGMENT_KEYS):
        return request
    return request.get("context_management", {"edits": []})


def checked_safer_config(config: dict[str, Any], findings: list[Finding],
                         max_task_steps: int | None, model: str | None = None) -> dict[str, Any] | None:
    """Returns the safer configuration when it lints clean itself (and the API accepts it), else None
    (also when it depends on a task size that was not given)."""
    if any(f.needs_task_size for f in findings):
        return None
    safer = safer_config(config, findings)
    again, rejected = lint(safer, max_task_steps, model)
    return None if rejected or any(f.reaches for f in again) else safer


def load_config(path: Path) -> dict[str, Any]:
    """Returns the configuration in a JSON or YAML file; raises ``SpecError`` (file, line, field) when
    it cannot be read, is not UTF-8, is empty, does not parse or does not match the schema."""
    text = read_text(path)
    if not text.strip():
        raise SpecError(path, None, "", "empty file: expected a context_management object")
    kind = "JSON" if path.suffix == ".json" else "YAML"
    try:
        data = json.loads(text) if kind == "JSON" else yaml.load(text, Loader=_LOADER)
    except json.JSONDecodeError as exc:
        raise SpecError(path, exc.lineno, "", f"not valid JSON: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(path, mark.line + 1 if mark else None, "", f"not valid YAML: {problem}") from None
    if data is None:
        raise SpecError(path, None, "", f"empty {kind} document: expected a context_management object")
    errors = list(subschema_validator("lintConfig").iter_errors(data))
    if errors:
        best = min(errors, key=lambda e: len(list(e.absolute_path)))
        deep = max((e for c in errors for e in (c.context or [])), key=lambda e: len(list(e.absolute_path)),
                   default=best)
        where = ".".join(str(p) for p in deep.absolute_path)
        raise SpecError(path, None, where, deep.message)
    return data


def render(findings: list[Finding], config: dict[str, Any] | None = None, max_task_steps: int | None = None,
           model: str | None = None) -> str:
    """Returns the findings as text a user can act on and, when an edit reaches, the safer configuration
    (linted with ``model``, as the findings were)."""
    lines = []
    for f in findings:
        lines += fit([f"{f.edit} ({f.label})", f"  reaches into a task in flight: {'yes' if f.reaches else 'no'}",
                      f"  smallest such task: {f.smallest_task}", f"  to avoid it: {f.avoid}",
                      *([f"  reading: {f.reading}"] if f.reading else []),
                      *([f"  on a failed prefix check: {f.on_failed_check}"] if f.on_failed_check else [])])
    if config is not None and any(f.reaches for f in findings):
        scope = f" for tasks up to --task-size {max_task_steps} tool steps" if max_task_steps is not None else ""
        safer = checked_safer_config(config, findings, max_task_steps, model)
        asking = sorted({f.edit for f in findings if f.needs_task_size})
        if asking:
            lines += fit([f"safer configuration: needs the task size. {', '.join(asking)} stays useful only with a "
                          "keep that covers the longest task in flight; rerun with --task-size N (the most tool "
                          "steps one task of your agent takes) for a configuration that keeps it and lints clean "
                          "for such tasks. Dropping the edit is the only configuration safe at every task length."])
        elif safer is None:
            lines.append(f"no safer configuration found that lints clean{scope}")
        else:
            text = yaml.safe_dump(safer, sort_keys=False, default_flow_style=None).rstrip()
            lines += [f"safer configuration (lints clean{scope}):", *("  " + line for line in text.splitlines())]
    return "\n".join(lines)  # the configuration stays whole: it is YAML to copy
