"""Both sides of a failure: what the scenario expected and what the target returned, trimmed.

A violation's first line names the messages concerned (``input[i]``, ``output[j]``, optionally a
``.content[k]`` block); this module quotes them as compact JSON with reasoning shown as hash and
length only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .redaction import Redactor
from .spec import Scenario
from .target import Observation
from .transcript import redact_reasoning

MAX_CHARS = 300
_REF = re.compile(r"\b(input|output)\[(\d+)\](?:\.content\[(\d+)\])?")
_REFERENCE_DIFF = "differs from the expected reference output"


def excerpt(value: Any, limit: int = MAX_CHARS, secrets: Sequence[str] = ()) -> str:
    """Returns ``value`` as one line of JSON, reasoning redacted (its blocks', and ``secrets``, the
    reasoning of a format's own items), cut to ``limit`` characters."""
    try:
        text = json.dumps(redact_reasoning(value), ensure_ascii=False, sort_keys=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    if secrets:
        text = Redactor(secrets).text(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more chars)"


def _pick(messages: Sequence[Any], index: int, block: int | None) -> tuple[bool, Any, str]:
    """Returns (found, value, label suffix) for ``messages[index]`` or its ``content[block]``."""
    if not 0 <= index < len(messages):
        return False, None, ""
    message = messages[index]
    content = message.get("content") if isinstance(message, dict) else None
    if block is not None and isinstance(content, list) and 0 <= block < len(content):
        return True, content[block], f".content[{block}]"
    return True, message, ""


# a change to the input itself, and a call of the agent loop (its input is not the scenario's history)
_NOT_QUOTED = frozenset({"input.unmutated", "loop.every-call"})


def sides(scenario: Scenario, obs: Observation, first_line: str, invariant: str = "") -> dict[str, str]:
    """Returns ``{"expected": ..., "returned": ...}`` for a violation whose first line names a
    message of the input and/or the output; either key is absent when there is nothing to quote.

    A change to the input itself (``input.unmutated``) is not quoted against the output, nor a
    failure at a call of the agent loop (``loop.every-call``), whose input is not the scenario's.
    """
    if invariant in _NOT_QUOTED:
        return {}
    output = obs.output if isinstance(obs.output, list) else []
    refs: dict[str, tuple[int, int | None]] = {}
    for side, index, block in _REF.findall(first_line):
        refs.setdefault(side, (int(index), int(block) if block else None))
    out: dict[str, str] = {}
    quoted_input: int | None = None
    returned_at: int | None = None
    if _REFERENCE_DIFF in first_line and "output" in refs and scenario.expect.reference_output is not None:
        k, _ = refs["output"]
        found, value, _suffix = _pick(scenario.expect.reference_output, k, None)
        if found:
            out["expected"] = f"reference output[{k}]: {excerpt(value)}"
        refs.pop("input", None)
    if "input" in refs:
        i, block = refs["input"]
        found, value, suffix = _pick(scenario.history, i, block)
        if found:
            out["expected"] = f"input[{i}]{suffix}: {excerpt(value)}"
            quoted_input = i
        if "output" not in refs and i >= scenario.truth.live_start:
            aligned = len(output) - len(scenario.history) + i  # where a task in flight's message ends up
            found, value, _suffix = _pick(output, aligned, None)
            if found:
                out["returned"] = f"output[{aligned}] (where input[{i}] belongs): {excerpt(value)}"
                returned_at = aligned
    if "output" in refs:
        j, block = refs["output"]
        found, value, suffix = _pick(output, j, block)
        if found:
            out["returned"] = f"output[{j}]{suffix}: {excerpt(value)}"
            returned_at = j
    out.update(_in_own_format(scenario, obs.output, quoted_input, returned_at))
    return out


def _items(start: int, items: Sequence[Any], fmt: Any) -> str:
    """Returns ``[start]: <excerpt>`` of a format's own ``items``, the reasoning they carry redacted."""
    where = f"[{start}]" if len(items) == 1 else f"[{start}:{start + len(items)}]"
    return f"{where}: {excerpt(items[0] if len(items) == 1 else list(items), secrets=fmt.reasoning_in(items))}"


def _in_own_format(scenario: Scenario, output: Any, i: int | None, j: int | None) -> dict[str, str]:
    """Returns, for a target that speaks another format, quoted input message ``i`` and output
    message ``j`` as it was given and returned them, in its own items and numbering
    (``expected_native``, ``returned_native``); nothing where that would repeat the quote."""
    returned_items = getattr(output, "returned_items", None)
    fmt = getattr(output, "fmt", None)
    name = getattr(fmt, "name", None)
    if returned_items is None or name is None:
        return {}
    out: dict[str, str] = {}
    if i is not None:
        given = output.given_items(scenario.history, i)
        if given is not None and not _same_view(given, i, scenario.history):
            out["expected_native"] = f"as the target was given it ({name}): input{_items(given[0], given[1], fmt)}"
    if j is not None:
        returned = returned_items(j)
        if returned is not None and not _same_view(returned, j, output):
            out["returned_native"] = f"as the target returned it ({name}): output{_items(returned[0], returned[1], fmt)}"
    return out


def _same_view(native: tuple[int, Sequence[Any]], index: int, messages: Sequence[Any]) -> bool:
    """Returns whether the target's own items read exactly as the converted message (then quoting
    them again would only repeat it)."""
    start, items = native
    return start == index and len(items) == 1 and excerpt(items[0]) == excerpt(messages[index])
