"""``conformance lint-config`` for an OpenAI configuration: say whether ``context_management``
compaction or ``truncation`` can reach into a task in flight, and from which task size.

The answers are the documented rules of ``semantics`` (the ones the probes are checked against):
threshold compaction is documented to run as a response streams, so it can reach into a task in
flight: with hosted tools between their steps, with function tools (or the other tools the client
runs: ``client_runs``) in a tool loop that crosses the threshold before its final answer (the recordings so far show it only after a final answer, and
none crosses the threshold inside a tool loop: the finding says so); ``truncation: "auto"`` drops
items from the beginning, so it cuts into the task in flight once that task alone outgrows the
model's window less its output allowance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ...engine._yamlsource import read_text
from ...errors import SpecError
from .._lint import LintFinding
from . import semantics as sem

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# Tool types whose calls the client runs or answers (``semantics.CLIENT_CALLS``): a response ends at
# such a call, as at a function call; a ``namespace`` groups function tools.
CLIENT_RUN_TOOLS = frozenset({"function", "custom", "computer", "computer_use_preview", "local_shell", "shell",
                              "apply_patch", "namespace"})
_HOSTED_SHELL = ("container_auto", "container_reference")  # a shell tool's environments the server runs


@dataclass(frozen=True)
class Finding(LintFinding):
    """One mechanism's lint result: does it reach live work, from which task, and what avoids it.

    The fields after ``avoid`` are this provider's own.
    """

    smallest_tokens: int | None = None
    documented_only: bool = False  # the provider documents that it can; no recording shows it


def _parse(path: Path) -> Any:
    text = read_text(path)
    return json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_LOADER)


def is_openai_config(path: Path) -> bool:
    """Returns whether the file reads as an OpenAI configuration (``provider: openai``, a
    ``context_management`` list, or ``truncation``); False for anything unreadable."""
    try:
        data = _parse(path)
    except (SpecError, ValueError, yaml.YAMLError, OSError):
        return False
    return isinstance(data, dict) and (data.get("provider") == "openai" or "truncation" in data
                                       or isinstance(data.get("context_management"), list))


def load_config(path: Path, validator: Any) -> dict[str, Any]:
    """Returns the configuration checked against ``validator`` (the schema's ``openaiLintConfig``);
    raises ``SpecError`` naming the field."""
    try:
        data = _parse(path)
    except (ValueError, yaml.YAMLError) as exc:
        raise SpecError(path, None, "", f"does not parse: {str(exc).splitlines()[0]}") from None
    errors = sorted(validator.iter_errors(data), key=lambda e: len(list(e.absolute_path)), reverse=True)
    if errors:
        raise SpecError(path, None, ".".join(str(p) for p in errors[0].absolute_path), errors[0].message)
    return data


def client_runs(tool: dict[str, Any]) -> bool:
    """Returns whether the client runs a tool's calls (``CLIENT_RUN_TOOLS``; a ``shell`` tool unless
    its environment is a hosted container; a ``tool_search`` with ``execution: "client"``); False for
    a tool the server runs inside one response (web or file search, code interpreter, MCP, ...)."""
    kind = tool.get("type")
    if kind == "tool_search":
        return tool.get("execution") == "client"
    environment = tool.get("environment")
    if kind == "shell" and isinstance(environment, dict) and environment.get("type") in _HOSTED_SHELL:
        return False
    return kind in CLIENT_RUN_TOOLS


def _tool_label(tool: dict[str, Any]) -> str:
    """Returns how a finding names a tool: its type, and how a tool search or shell tool runs."""
    kind = str(tool.get("type"))
    if kind == "tool_search":
        return f"tool_search (execution {tool.get('execution') or 'server'})"
    if kind == "shell" and isinstance(tool.get("environment"), dict):
        return f"shell ({tool['environment'].get('type')})"
    return kind


def lint(config: dict[str, Any]) -> list[Finding]:
    """Returns one finding per mechanism the configuration turns on (none for a configuration that turns none on)."""
    findings = []
    tools = config.get("tools") or []
    hosted = sorted({_tool_label(t) for t in tools if not client_runs(t)})
    client = sorted({_tool_label(t) for t in tools if client_runs(t) and t.get("type") != "function"})
    for entry in config.get("context_management") or []:
        threshold = entry.get("compact_threshold")
        label = f"compact_threshold {threshold if threshold is not None else '(server default)'}"
        if hosted:
            findings.append(Finding("context_management compaction", label, True,
                                    f"one response that runs hosted tools ({', '.join(hosted)}) past the threshold: "
                                    "the documented pass compacts mid-response, between their steps",
                                    "keep hosted tools out of requests that carry context_management, or compact "
                                    "on demand between tasks (compaction_trigger after a final answer)",
                                    threshold))
            continue
        runs = f" (the client runs {', '.join(client)} as it runs function tools)" if client else ""
        findings.append(Finding("context_management compaction", label, True,
                                f"a tool loop{runs} that crosses the threshold before its final answer: the provider "
                                "documents that the server compacts \"as the response streams\" and \"prunes "
                                "context before continuing inference\"; no recording shows it (those recorded "
                                "compact after a response's own final answer, and none crosses the threshold "
                                "inside a tool loop)",
                                "compact on demand between tasks (compaction_trigger after a final answer); to "
                                "find out what your server does, record the threshold probes against it "
                                "(`conformance record --provider openai --probe openai-threshold.open-call "
                                "--probe openai-threshold.after-results`) and run `conformance verify` on the "
                                "cassettes", threshold, documented_only=True))
    if config.get("truncation") == "auto":
        model = config.get("model")
        limit = sem.window_limit(str(model)) if model else None
        size = f"more than {limit} input tokens ({model})" if limit else \
            "larger than the model's context window less its output allowance"
        findings.append(Finding("truncation", "auto", True, f"a task in flight of {size}",
                                "truncation: disabled (an oversized request fails with context_length_exceeded "
                                "instead of losing its first items), or compact between tasks before one "
                                "outgrows the window", limit + 1 if limit else None))
    return findings


def render(findings: list[Finding]) -> list[str]:
    """Returns the findings as text lines a user can act on."""
    lines = []
    for f in findings:
        reaches = "can: documented, no recording shows it" if f.documented_only else "yes" if f.reaches else "no"
        lines += [f"{f.edit} ({f.label})", f"  reaches into a task in flight: {reaches}",
                  f"  smallest such task: {f.smallest_task}", f"  to avoid it: {f.avoid}"]
    return lines or ["no context_management compaction and no auto truncation: nothing is folded or dropped"]
