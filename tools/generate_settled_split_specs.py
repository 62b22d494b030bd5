#!/usr/bin/env python3
"""Writes ``specs/paused-split.yaml`` and ``specs/moved-notices.yaml``: two failure classes that
generated histories find and real agents hit, which the earlier families did not pin down.

``paused-split``: a server tool use and its result split across a paused turn and its continuation
in *settled* history. A window whose edge falls on the continuation, or a filter that keeps "the
request and its answer" of each settled task (the continuation carries the answer, the paused turn
the use), leaves the result without its use: the provider refuses the request. Kinds: web search,
tool search, bash code execution; paused once and twice; a continuation that goes on with a client
call; the pair in the last settled task before the task in flight.

``moved-notices``: a background-task notice (a user text message a harness stored) in settled
history, and a task in flight that ends on its newest call and that call's result, on parallel
results, on a call still waiting, or on a request alone. A compactor that moves settled notices
next to the newest message (as a harness re-injects reminders where the model reads them) puts one
between the newest call and its result.

Each history is put together from settled tasks and one last task, so the boundary is known by
construction; the reference output is the documented rule of ``specs/README.md`` applied to that
structure (``expected`` of ``generate_blind_spot_specs``). Nothing here imports the harness or the
reference.

Deterministic: ``python tools/generate_settled_split_specs.py`` (optionally the output folder)
rewrites both files byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_blind_spot_specs import (INSIDE_NOTE, SERVER_KINDS, notice, opaque, qa, scenario,  # noqa: E402 - after the sys.path line above
                                       settled_history, step, tag, tool_task)
from generate_specs import (assistant, json_flow, render, srvtoolu, text, thinking, tool_result,  # noqa: E402 - after the sys.path line above
                            tool_use, toolu, user)

Message = dict[str, Any]
Scenario = dict[str, Any]

# (use name, result type, result content) of the paused kinds
PAUSED_KINDS: dict[str, tuple[str, str, Any]] = {
    "web-search": ("web_search", "web_search_tool_result", None),
    "tool-search": SERVER_KINDS["tool-search"],
    "bash-code-execution": SERVER_KINDS["bash-code-execution"],
}


def in_family(family: str, built: Scenario) -> Scenario:
    """Returns a scenario built by the blind-spots builder, named and filed under ``family``."""
    sid = built["id"].split(".", 1)[1]
    return {**built, "id": f"{family}.{sid}", "family": family}


# --- paused-split ----------------------------------------------------------------------------------


def _use(seed: str, kind: str) -> dict[str, Any]:
    name = PAUSED_KINDS[kind][0]
    return {"type": "server_tool_use", "id": srvtoolu(f"{seed}:{kind}"), "name": name,
            "input": {"query": f"{kind} #{tag(seed)}"}}


def _result(seed: str, kind: str) -> dict[str, Any]:
    _, result_type, content = PAUSED_KINDS[kind]
    if content is None:
        content = [{"type": "web_search_result", "url": "https://github.com/advisories", "title": "Advisories",
                    "encrypted_content": opaque(f"{seed}:{kind}:result", 48), "page_age": None}]
    return {"type": result_type, "tool_use_id": srvtoolu(f"{seed}:{kind}"), "content": content}


def paused_task(seed: str, kind: str, *, twice: bool = False, then_call: bool = False) -> list[Message]:
    """Returns a settled task whose server tool use opens in a paused turn and is answered in the
    continuation (with ``twice``, the continuation pauses again on a second use); with
    ``then_call``, the continuation goes on with a client call, answered before the final text."""
    out = [user("Is requests 2.31 affected by a recent CVE?"),
           assistant([thinking(f"Search first. ({seed})", f"{seed}:think"), text("Searching."), _use(seed, kind)])]
    if twice:
        again = f"{seed}:again"
        out.append(assistant([_result(seed, kind), text("One more source."), _use(again, kind)]))
        seed = again
    if then_call:
        use = toolu(f"{seed}:call")
        out += [assistant([_result(seed, kind), tool_use(use, "run_command", {"command": "pip show requests"})]),
                user([tool_result(use, "Version: 2.31.0")]),
                assistant([thinking(f"Report. ({seed})", f"{seed}:answer"), text("Yes: upgrade to 2.32.3.")])]
    else:
        out.append(assistant([_result(seed, kind), text("Yes: 2.32.0 fixes a certificate-verification CVE.")]))
    return out


def _pin_requests(seed: str) -> list[Message]:
    return [user("Pin requests to 2.32.3."),
            *step(seed, 0, "run_command", {"command": "poetry add requests@2.32.3"}, "updated")]


def _edge(settled: list[list[Message]], task: int, message: int) -> int:
    """Returns the window (``keep_turns``) whose first message is ``message`` of settled ``task``."""
    return sum(len(t) for t in settled) - (sum(len(t) for t in settled[:task]) + message)


SPLIT_TAGS = ["pause-turn", "server-tool", "thinking", "tool-use"]


def paused_split() -> list[Scenario]:
    family = "paused-split"
    out = []
    for kind in PAUSED_KINDS:
        seed = f"split-{kind}"
        settled = settled_history(seed)
        settled.insert(1, paused_task(seed, kind))
        for edge, message in (("continuation", 2), ("paused-turn", 1)):
            keep = _edge(settled, 1, message)
            out.append(in_family(family, scenario(
                f"{kind}-pair-settled-window-edge-on-the-{edge}",
                f"a settled {kind} use paused and answered in its continuation, window edge on the {edge} "
                f"(window {keep})", SPLIT_TAGS, settled,
                _pin_requests(seed), keep)))
        out.append(in_family(family, scenario(
            f"{kind}-pair-settled-whole-window",
            f"a settled {kind} use paused and answered in its continuation, every message in the window",
            SPLIT_TAGS, settled, _pin_requests(seed), 20)))
    seed = "split-twice"
    settled = settled_history(seed)
    settled.insert(1, paused_task(seed, "web-search", twice=True))
    for message in (2, 3):
        keep = _edge(settled, 1, message)
        which = "first" if message == 2 else "second"
        out.append(in_family(family, scenario(
            f"paused-twice-settled-window-edge-on-the-{which}-continuation",
            f"a settled turn paused twice on web searches, window edge on the {which} continuation (window {keep})", SPLIT_TAGS, settled, _pin_requests(seed), keep)))
    out.append(in_family(family, scenario(
        "paused-twice-settled-whole-window",
        "a settled turn paused twice on web searches, every message in the window", SPLIT_TAGS, settled,
        _pin_requests(seed), 20)))
    seed = "split-then-call"
    settled = settled_history(seed)
    settled.insert(1, paused_task(seed, "web-search", then_call=True))
    keep = _edge(settled, 1, 2)
    out.append(in_family(family, scenario(
        "continuation-with-a-client-call-window-edge-on-it",
        f"a settled continuation answers the paused search and calls a tool, window edge on it (window {keep})", SPLIT_TAGS, settled, _pin_requests(seed), keep)))
    out.append(in_family(family, scenario(
        "continuation-with-a-client-call-whole-window",
        "a settled continuation answers the paused search and calls a tool, every message in the window",
        SPLIT_TAGS, settled, _pin_requests(seed), 20)))
    seed = "split-last-settled"
    settled = settled_history(seed)
    settled.append(paused_task(seed, "tool-search"))
    keep = _edge(settled, len(settled) - 1, 2)
    out.append(in_family(family, scenario(
        "pair-in-the-last-settled-task-window-edge-on-the-continuation",
        f"the paused pair is the last settled task, window edge on the continuation (window {keep})", SPLIT_TAGS, settled, _pin_requests(seed), keep)))
    return out


# --- moved-notices ---------------------------------------------------------------------------------


NOTICE_TAGS = ["background-notice", "thinking", "tool-use"]


def _with_notice(seed: str, where: str, n: int = 1) -> list[list[Message]]:
    """Returns three settled tasks, the middle one a tool task with a notice ``where`` in it."""
    settled = settled_history(seed)
    use = toolu(f"{seed}:task")
    task = [user("Build the front end."),
            *([notice(seed, n)] if where == "before-the-call" else []),
            assistant([thinking("Build first.", f"{seed}:call"),
                       tool_use(use, "run_command", {"command": "npm run build"})]),
            *([notice(seed, n)] if where == "inside-the-step" else []),
            user([tool_result(use, "build ok")]),
            *([notice(seed, n)] if where == "after-the-results" else []),
            assistant([thinking("Report.", f"{seed}:answer"), text("The build is green.")])]
    settled.insert(1, task)
    return settled


def moved_notices() -> list[Scenario]:
    family = "moved-notices"
    out = []
    for where in ("before-the-call", "after-the-results", "inside-the-step"):
        seed = f"moved-{where}"
        live = [user("Deploy the build to staging."),
                *step(seed, 0, "run_command", {"command": "deploy staging"}, "deployed")]
        inside = where == "inside-the-step"
        out.append(in_family(family, scenario(
            f"settled-notice-{where}-task-ends-on-its-newest-result",
            f"a settled notice {where.replace('-', ' ')}; the task in flight ends on its newest call's result",
            NOTICE_TAGS, _with_notice(seed, where), live, 12, note=INSIDE_NOTE if inside else None,
            refusal_allowed=inside)))
    seed = "moved-two-steps"
    live = [user("Build, then run the smoke tests."),
            *step(seed, 0, "run_command", {"command": "npm run build"}, "build ok"),
            *step(seed, 1, "run_command", {"command": "npm run smoke"}, "12 passing")]
    out.append(in_family(family, scenario(
        "settled-notice-task-of-two-steps-ends-on-a-result",
        "a settled notice; the task in flight has two steps and ends on the second call's result",
        NOTICE_TAGS, _with_notice(seed, "before-the-call"), live, 12)))
    seed = "moved-parallel"
    first, second = toolu(f"{seed}:lint"), toolu(f"{seed}:types")
    live = [user("Lint and type-check the front end."),
            assistant([thinking("Both at once.", f"{seed}:par"),
                       tool_use(first, "run_command", {"command": "npm run lint"}),
                       tool_use(second, "run_command", {"command": "npm run typecheck"})]),
            user([tool_result(second, "0 errors"), tool_result(first, "0 problems")])]
    out.append(in_family(family, scenario(
        "settled-notice-task-ends-on-parallel-results",
        "a settled notice; the task in flight ends on the results of two parallel calls",
        NOTICE_TAGS + ["parallel"], _with_notice(seed, "after-the-results"), live, 12)))
    seed = "moved-two-notices"
    settled = _with_notice(seed, "before-the-call", 1)
    settled[2] = [user([text("<task-notification>bg_7: test watcher saw 2 new failures</task-notification> "
                             f"(#{tag(seed)})")]), *settled[2]]
    live = [user("Fix the two failing tests."),
            *step(seed, 0, "read_file", {"path": "tests/cart.test.ts"}, "expect(total).toBe(12)")]
    out.append(in_family(family, scenario(
        "two-settled-notices-of-two-harnesses-task-ends-on-a-result",
        "two settled notices of two harnesses' kinds; the task in flight ends on a result", NOTICE_TAGS, settled, live, 14)))
    seed = "moved-call-waits"
    use = toolu(f"{seed}:wait")
    live = [user("Run the migration."),
            *step(seed, 0, "run_command", {"command": "etl migrate --dry-run"}, "3 migrations pending"),
            assistant([thinking("Now for real.", f"{seed}:call"), tool_use(use, "run_command",
                                                                           {"command": "etl migrate"})])]
    out.append(in_family(family, scenario(
        "settled-notice-task-ends-on-a-call-awaiting-its-result",
        "a settled notice; the task in flight ends on a call still waiting for its result", NOTICE_TAGS, _with_notice(seed, "after-the-results"), live, 12,
        unanswered=(use,))))
    seed = "moved-request-only"
    out.append(in_family(family, scenario(
        "settled-notice-task-in-flight-is-its-request",
        "a settled notice; the task in flight is its request alone (a notice moved before it stays settled)", NOTICE_TAGS, _with_notice(seed, "before-the-call"),
        [user("Deploy the build to staging.")], 12)))
    seed = "moved-qa-between"
    settled = _with_notice(seed, "after-the-results")
    settled.append(qa(f"{seed}:qa", "Which region is staging in?", "eu-west-1."))
    settled.append(tool_task(f"{seed}:t", "Is the staging database up?", "run_command",
                             {"command": "pg_isready -h staging-db"}, "accepting connections", "It is up."))
    live = [user("Run the staging smoke tests."),
            *step(seed, 0, "run_command", {"command": "npm run smoke -- --env staging"}, "12 passing")]
    out.append(in_family(family, scenario(
        "settled-notice-far-back-task-ends-on-a-result-window-6",
        "a notice several tasks back, outside a window of 6; the task in flight ends on a result",
        NOTICE_TAGS, settled, live, 6)))
    return out


HEADERS = {
    "paused-split": """\
A server tool use and its result split across a paused turn and its continuation in settled
history: a window's edge on the continuation, or a filter that keeps each task's request and its
answer (the continuation), leaves the result without its use. The truth is how each history was
put together.

Generated: do not edit by hand; change tools/generate_settled_split_specs.py and run it again.
""",
    "moved-notices": """\
A background-task notice in settled history and a task in flight that ends on its newest call and
that call's result (or parallel results, a call still waiting, a request alone): a compactor that
moves settled notices next to the newest message puts one between the newest call and its result.
The truth is how each history was put together.

Generated: do not edit by hand; change tools/generate_settled_split_specs.py and run it again.
""",
}


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    for family, built in (("paused-split", paused_split()), ("moved-notices", moved_notices())):
        (folder / f"{family}.yaml").write_text(render(built, HEADERS[family], dump=json_flow), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
