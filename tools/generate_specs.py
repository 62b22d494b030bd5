#!/usr/bin/env python3
"""Writes the parametric scenarios of the suite: ``specs/arithmetic.yaml``.

The window arithmetic of the design essay, spelled out as data: an in-flight task of S tool steps
occupies 1 + 2*S messages, so any task longer than half of a ``keep_turns`` window reaches past it.
Each scenario builds settled tasks and one task in flight from a handful of parameters, and states
the task boundary and the exact output of the reference compactor from the same parameters: the
settled tasks that start inside the window, with reasoning blocks removed, then the task in flight
untouched. Nothing here imports the harness or the reference.

Deterministic: the same code writes the same bytes. Usage: ``python tools/generate_specs.py``
(from the repository root, or give the output folder as the first argument).

The helpers (message builders, ids, the YAML writer) are plain functions other authoring scripts
may import; the committed YAML, not this script, is the source of truth.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

import yaml

SCHEMA_LINE = "# yaml-language-server: $schema=../conformance/schema/scenarios.schema.json"
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# --- deterministic ids and opaque strings ----------------------------------------------------------


def _b62(seed: str, length: int) -> str:
    digest = hashlib.shake_256(seed.encode()).digest(length)
    return "".join(_B62[b % 62] for b in digest)


def toolu(seed: str) -> str:
    """Returns a client tool-use id shaped like the provider's (``toolu_01`` + 22 characters)."""
    return "toolu_01" + _b62("toolu:" + seed, 22)


def srvtoolu(seed: str) -> str:
    """Returns a server tool-use id (``srvtoolu_01`` + 22 characters)."""
    return "srvtoolu_01" + _b62("srvtoolu:" + seed, 22)


def mcptoolu(seed: str) -> str:
    """Returns an MCP tool-use id (``mcptoolu_01`` + 22 characters)."""
    return "mcptoolu_01" + _b62("mcptoolu:" + seed, 22)


def signature(seed: str) -> str:
    """Returns an opaque signature string (base64-looking, fixed per seed)."""
    return "Eu" + _b62("sig:" + seed, 86) + "=="


def opaque(seed: str, length: int = 120) -> str:
    """Returns an opaque payload (redacted thinking data, encrypted content)."""
    return "EmwKAhgB" + _b62("opaque:" + seed, length)


# --- message builders ------------------------------------------------------------------------------


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **extra}


def thinking(value: str, seed: str | None = None) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": signature(seed or value)}


def redacted(seed: str) -> dict[str, Any]:
    return {"type": "redacted_thinking", "data": opaque(seed)}


def tool_use(use_id: str, name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": args, **extra}


def tool_result(use_id: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": content, **extra}


REASONING = ("thinking", "redacted_thinking")


def strip_reasoning(message: dict[str, Any]) -> dict[str, Any] | None:
    """Returns the message without reasoning blocks; None when nothing else is left."""
    content = message["content"]
    if not isinstance(content, list):
        return message
    kept = [b for b in content if b.get("type") not in REASONING]
    if len(kept) == len(content):
        return message
    return {**message, "content": kept} if kept else None


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """The suite's documented estimate: characters of each message's compact JSON, summed, over 4."""
    return sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in messages) // 4


# --- YAML writer -----------------------------------------------------------------------------------


def flow(value: Any) -> str:
    """Returns ``value`` as one line of YAML flow style."""
    dumped = yaml.safe_dump([value], default_flow_style=True, width=10**9, allow_unicode=True,
                            sort_keys=False).strip()
    return dumped[1:-1]


def _messages(lines: list[str], key: str, messages: list[dict[str, Any]], indent: str,
              dump: Callable[[Any], str] = flow) -> None:
    if not messages:
        lines.append(f"{indent}{key}: []")
        return
    lines.append(f"{indent}{key}:")
    for m in messages:
        lines.append(f"{indent}- role: {m['role']}")
        content = m["content"]
        if isinstance(content, list) and content:
            lines.append(f"{indent}  content:")
            lines.extend(f"{indent}  - {dump(block)}" for block in content)
        else:
            lines.append(f"{indent}  content: {dump(content)}")
        for extra in m:
            if extra not in ("role", "content"):
                lines.append(f"{indent}  {extra}: {dump(m[extra])}")


def json_flow(value: Any) -> str:
    """Returns ``value`` as one line of JSON, which YAML reads as flow style: safe for multi-line and
    very long strings. Line and paragraph separators are escaped, as YAML would break lines there."""
    dumped = json.dumps(value, ensure_ascii=False)
    return dumped.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")


def render(scenarios: list[dict[str, Any]], header: str, dump: Callable[[Any], str] = flow) -> str:
    """Returns a scenario file: the schema line, a comment header, then every scenario; ``dump``
    writes the messages' blocks (``json_flow`` for long or multi-line text)."""
    lines = [SCHEMA_LINE]
    lines.extend(("# " + line).rstrip() for line in header.strip().splitlines())
    lines += ["format_version: 1", "scenarios:"]
    for s in scenarios:
        lines.append("")
        lines.append(f"- id: {s['id']}")
        lines.append(f"  description: {flow(s['description'])}")
        lines.append(f"  family: {s['family']}")
        if s.get("features"):
            lines.append(f"  features: {flow(list(s['features']))}")
        if s.get("source"):
            lines.append("  source:")
            for k, v in s["source"].items():
                lines.append(f"    {k}: {flow(v)}")
        if s.get("comment"):
            lines.append(f"  comment: {flow(s['comment'])}")
        _messages(lines, "history", s["history"], "  ", dump)
        if s.get("params"):
            lines.append(f"  params: {flow(s['params'])}")
        truth = s["truth"]
        lines.append("  truth:")
        lines.append(f"    live_start: {truth['live_start']}")
        if truth.get("unanswered"):
            lines.append(f"    unanswered: {flow(list(truth['unanswered']))}")
        if truth.get("note"):
            lines.append(f"    note: {flow(truth['note'])}")
        if truth.get("tasks"):
            lines.append(f"    tasks: {flow(list(truth['tasks']))}")
        expect = s.get("expect") or {}
        if expect:
            lines.append("  expect:")
            if expect.get("invariants") is not None:
                lines.append(f"    invariants: {flow(expect['invariants'])}")
            if expect.get("skip"):
                lines.append("    skip:")
                for k, v in expect["skip"].items():
                    lines.append(f"      {k}: {flow(v)}")
            if expect.get("refusal_allowed"):
                lines.append("    refusal_allowed: true")
            if "raises" in expect:
                lines.append("    reference:")
                lines.append(f"      raises: {expect['raises']}")
            elif "output" in expect:
                lines.append("    reference:")
                _messages(lines, "output", expect["output"], "      ", dump)
    return "\n".join(lines) + "\n"


# --- the arithmetic family -------------------------------------------------------------------------

REQUESTS = [
    ("Count the TODO comments under src/ and list the files that have them.", "grep", "TODO"),
    ("Which Python version does the CI workflow pin?", "read_file", ".github/workflows/ci.yml"),
    ("Rename the helper parse_cfg to parse_config everywhere.", "edit_file", "src/config.py"),
    ("Is port 8080 already used by any service in docker-compose.yml?", "read_file", "docker-compose.yml"),
    ("Summarise the last three entries of CHANGELOG.md.", "read_file", "CHANGELOG.md"),
    ("Find the slowest test in the last pytest run.", "run_command", "pytest --durations=5"),
    ("Check whether the README mentions the MIT licence.", "grep", "MIT"),
    ("How many rows does data/users.csv have?", "run_command", "wc -l data/users.csv"),
    ("Bump the package version to 2.4.1.", "edit_file", "pyproject.toml"),
    ("List the environment variables the server reads at start-up.", "grep", "os.environ"),
]


def _step(key: str, k: int, name: str, arg: str, think: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    use_id = toolu(f"{key}:step{k}")
    args: dict[str, Any]
    if name == "grep":
        args = {"pattern": arg, "path": f"src/part{k}"}
    elif name == "run_command":
        args = {"command": f"{arg} # attempt {k + 1}"}
    elif name == "edit_file":
        args = {"path": arg, "old": f"v{k}", "new": f"v{k + 1}"}
    else:
        args = {"path": arg, "offset": k * 40}
    blocks: list[dict[str, Any]] = []
    if think:
        blocks.append(thinking(f"Step {k + 1}: call {name} on {arg} and look at what comes back.",
                               f"{key}:think{k}"))
    blocks.append(tool_use(use_id, name, args))
    result = user([tool_result(use_id, f"{name} output #{k + 1}: {3 * k + 2} matching lines")])
    return assistant(blocks), result


def settled_task(key: str, n: int, steps: int) -> list[dict[str, Any]]:
    """Returns a finished task: request, ``steps`` tool steps with thinking, final answer with thinking."""
    question, name, arg = REQUESTS[n % len(REQUESTS)]
    messages = [user(question)]
    for k in range(steps):
        messages.extend(_step(f"{key}:t{n}", k, name, arg, True))
    messages.append(assistant([thinking(f"Everything needed for task {n} is in; answer now.", f"{key}:t{n}:final"),
                               text(f"Done: the answer to task {n} is {7 * n + steps}.")]))
    return messages


def live_task(key: str, n: int, steps: int, awaiting_call: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """Returns an unfinished task and its unanswered tool use ids.

    It ends on the last step's tool result (the model's turn) or, with ``awaiting_call``, on the last
    step's tool call (the client's turn).
    """
    question, name, arg = REQUESTS[n % len(REQUESTS)]
    messages = [user(question)]
    for k in range(steps):
        call, result = _step(f"{key}:live", k, name, arg, True)
        messages.append(call)
        if not (awaiting_call and k == steps - 1):
            messages.append(result)
    unanswered = [messages[-1]["content"][-1]["id"]] if awaiting_call else []
    return messages, unanswered


def build(key: str, settled_steps: list[int], live_steps: int | None, window: int | None,
          awaiting_call: bool = False, end_on_request: bool = False) -> dict[str, Any]:
    """Returns one arithmetic scenario with truth and reference output derived from its shape."""
    history: list[dict[str, Any]] = []
    starts: list[int] = []
    for n, steps in enumerate(settled_steps):
        starts.append(len(history))
        history.extend(settled_task(key, n, steps))
    boundary = len(history)
    unanswered: list[str] = []
    if live_steps is not None:
        live, unanswered = live_task(key, len(settled_steps), live_steps, awaiting_call)
        history.extend(live)
    elif end_on_request:
        history.append(user(REQUESTS[len(settled_steps) % len(REQUESTS)][0]))
    keep = 10 if window is None else window
    # a history that ends on the assistant's answer keeps that last task as it was: it holds the
    # turn the next call continues from
    protect = starts[-1] if (live_steps is None and not end_on_request and starts) else boundary
    first = max(0, protect - keep)
    kept_from = next((s for s in starts if first <= s < protect), protect)
    output = [m for m in (strip_reasoning(x) for x in history[kept_from:protect]) if m is not None]
    output += history[protect:]
    scenario: dict[str, Any] = {"history": history, "truth": {"live_start": boundary}}
    if unanswered:
        scenario["truth"]["unanswered"] = unanswered
    if window is not None:
        scenario["params"] = {"keep_turns": window}
    scenario["expect"] = {"output": output}
    scenario["_kept_tasks"] = sum(1 for s in starts if s >= kept_from)
    return scenario


MATRIX_PREFIX = [2, 0, 1]  # three settled tasks: 6 + 2 + 4 = 12 messages
STEPS = [1, 2, 3, 5, 6, 10, 20, 50]
WINDOWS = [4, 10, 20]


def _features(live_steps: int | None, extra: tuple[str, ...] = ()) -> list[str]:
    tags = ["thinking", "tool-use"]
    if live_steps is not None:
        tags.append("inflight")
    return tags + list(extra)


def arithmetic() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(sid: str, description: str, s: dict[str, Any], extra: tuple[str, ...] = (),
            live_steps: int | None = None, note: str | None = None) -> None:
        s.pop("_kept_tasks")
        if note:
            s["truth"]["note"] = note
        out.append({"id": sid, "description": description, "family": "arithmetic",
                    "features": _features(live_steps, extra), **s})

    for steps in STEPS:
        for window in WINDOWS:
            s = build(f"m{steps}w{window}", MATRIX_PREFIX, steps, window)
            kept = s["_kept_tasks"]
            span = 1 + 2 * steps
            add(f"arithmetic.inflight-{steps}-steps-window-{window}",
                f"{steps}-step task in flight ({span} messages) after 3 settled tasks, window {window}: "
                f"{kept} settled task(s) kept", s, live_steps=steps)

    for steps, window in [(5, 10), (6, 10), (3, 4), (10, 20)]:
        s = build(f"solo{steps}w{window}", [], steps, window)
        add(f"arithmetic.inflight-{steps}-steps-window-{window}-alone",
            f"{steps}-step task in flight with no history before it, window {window}: returned as is",
            s, live_steps=steps)

    for steps in [1, 6, 50]:
        s = build(f"await{steps}", MATRIX_PREFIX, steps, 10, awaiting_call=True)
        add(f"arithmetic.inflight-{steps}-steps-awaiting-result-window-10",
            f"{steps}-step task in flight whose last tool call has no result yet, window 10", s,
            live_steps=steps)

    s = build("default6", MATRIX_PREFIX, 6, None)
    add("arithmetic.inflight-6-steps-default-window",
        "6-step task in flight after 3 settled tasks, no keep_turns given (reference default 10)", s,
        live_steps=6)

    many = [1, 0, 2, 1, 0, 1, 3, 0]
    for window in [4, 10, 20]:
        s = build(f"many{window}", many, 3, window)
        add(f"arithmetic.inflight-3-steps-after-8-settled-window-{window}",
            f"3-step task in flight after 8 settled tasks of 0-3 steps, window {window}", s, live_steps=3)

    for n_tasks, window in [(3, 4), (3, 10), (3, 20), (6, 10)]:
        prefix = (MATRIX_PREFIX * 2)[:n_tasks]
        s = build(f"settled{n_tasks}w{window}", prefix, None, window)
        add(f"arithmetic.ends-settled-{n_tasks}-tasks-window-{window}",
            f"history ending on a final answer after {n_tasks} tasks, window {window}: last task kept as is", s)

    for window in [0, 4]:
        s = build(f"request{window}", MATRIX_PREFIX, None, window, end_on_request=True)
        add(f"arithmetic.ends-on-new-request-window-{window}",
            f"history ending on a new user request after 3 settled tasks, window {window}", s,
            note="The new request alone is the task in flight: nothing has answered it yet.")

    s = build("zero6", MATRIX_PREFIX, 6, 0)
    add("arithmetic.inflight-6-steps-window-0",
        "6-step task in flight after 3 settled tasks, window 0: only the task in flight is left", s,
        live_steps=6)
    return out


HEADER = """\
The arithmetic of the window: an in-flight task of S tool steps is 1 + 2*S messages, so any task
longer than half of keep_turns reaches past a window counted in messages. Each scenario pairs a
task in flight of 1 to 50 steps with windows of 0 to 20 turns, after settled tasks whose reasoning
the reference removes. The reference keeps settled tasks whole: the window opens on the first
request at or after (boundary - keep_turns).

Generated: do not edit by hand; change tools/generate_specs.py and run it again.
"""


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "arithmetic.yaml").write_text(render(arithmetic(), HEADER), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
