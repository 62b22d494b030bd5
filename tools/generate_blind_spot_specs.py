#!/usr/bin/env python3
"""Writes ``specs/blind-spots.yaml``: the failure classes of agent projects in 2026 that earlier
families never put in a history.

Server tool kinds no earlier scenario named (tool search, bash and text-editor code execution, a
made-up future kind) in settled history and in flight; ``compaction`` blocks (with and without
``encrypted_content``, with no id) in settled history, inside the tool loop and in the latest turn;
background-task notices (a user text message) before, inside (between a call and its result) and
after a step; the compaction tool itself (``context_compact``) as the call awaiting its result;
large text blocks beside thinking; and a paused server-tool turn continued in a second assistant
message, cut at the window's edge.

Each history is put together from settled tasks and one last task, so the boundary is known by
construction; the reference output is the documented rule of ``specs/README.md`` applied to that
structure (``expected`` below). Nothing here imports the harness or the reference.

Deterministic: ``python tools/generate_blind_spot_specs.py`` (optionally the output folder)
rewrites the file byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_specs import (assistant, estimate_tokens, json_flow, opaque, render, signature, srvtoolu,  # noqa: E402 - after the sys.path line above
                            strip_reasoning, text, thinking, tool_result, tool_use, toolu, user)
from realistic_content import source_text  # noqa: E402 - after the sys.path line above

Message = dict[str, Any]
Scenario = dict[str, Any]
FAMILY = "blind-spots"
KB = 1024

# --- blocks ----------------------------------------------------------------------------------------

# (use name, result type, result content): kinds the earlier families never named, and one made up.
SERVER_KINDS: dict[str, tuple[str, str, Any]] = {
    "tool-search": ("tool_search_tool_regex", "tool_search_tool_result", {
        "type": "tool_search_tool_search_result",
        "tool_references": [{"type": "tool_reference", "tool_name": "query_billing_db"}]}),
    "bash-code-execution": ("bash_code_execution", "bash_code_execution_tool_result", {
        "type": "bash_code_execution_result", "stdout": "412\n", "stderr": "", "return_code": 0, "content": []}),
    "text-editor-code-execution": ("text_editor_code_execution", "text_editor_code_execution_tool_result", {
        "type": "text_editor_code_execution_result", "file_type": "text", "num_lines": 3, "start_line": 1,
        "total_lines": 3, "content": "retries = 5\nbackoff_ms = 100\njitter = 0.2\n"}),
    "future-kind": ("orrery_lookup_20270301", "orrery_lookup_20270301_tool_result", {
        "type": "orrery_lookup_result", "encrypted_content": opaque("orrery", 64), "bodies": [0, 0.0, False]}),
}


def tag(seed: str) -> str:
    """Returns a short tag unique to ``seed`` for text that is not reasoning: the seed itself is in
    thinking text, and a report redacts any text that shares 20 characters with reasoning."""
    return hashlib.sha256(seed.encode()).hexdigest()[:8]


def server_pair(seed: str, kind: str) -> list[dict[str, Any]]:
    """Returns a server tool use and its result (in the same turn) of one of ``SERVER_KINDS``."""
    name, result_type, content = SERVER_KINDS[kind]
    use_id = srvtoolu(f"{seed}:{kind}")
    return [{"type": "server_tool_use", "id": use_id, "name": name, "input": {"query": f"{kind} #{tag(seed)}"}},
            {"type": result_type, "tool_use_id": use_id, "content": content}]


def compaction(seed: str, *, encrypted: bool = True, content: str | None = "") -> dict[str, Any]:
    """Returns a ``compaction`` block as the provider returns it: no id; a summary, or null content
    (a failed compaction), with its ``encrypted_content`` and ``signature`` when ``encrypted``."""
    block: dict[str, Any] = {"type": "compaction", "content": content if content != "" else (
        f"Summary of the conversation so far (#{tag(seed)}): the user is hardening the nightly ETL; the loader "
        "retries batches 5 times with no back-off; the fix under review adds exponential back-off.")}
    if encrypted:
        block["encrypted_content"] = opaque(f"compaction:{seed}", 96)
        block["signature"] = signature(f"compaction:{seed}")
    return block


NOTICE = ("[background task bg_{n} finished] `npm run build` exited 0 after 41 s; "
          "output saved to .agent/tasks/bg_{n}.log")


def notice(seed: str, n: int) -> Message:
    """Returns a background-task notice as a harness stores it: a user text message."""
    return user([text(NOTICE.format(n=n) + f" (#{tag(seed)})")])


def big(seed: str, size: int) -> str:
    """Returns a long, realistic assistant text of about ``size`` characters."""
    return "Here is the full review of the loader module:\n\n" + source_text(seed, size)


# --- tasks -----------------------------------------------------------------------------------------


def qa(seed: str, question: str, answer: str) -> list[Message]:
    return [user(question), assistant([thinking(f"Answer directly. ({seed})", seed), text(answer)])]


def tool_task(seed: str, question: str, name: str, args: dict[str, Any], result: Any, answer: str,
              *, lead: list[dict[str, Any]] | None = None,
              answer_lead: list[dict[str, Any]] | None = None) -> list[Message]:
    """Returns a settled one-step tool task; ``lead`` goes before the call, ``answer_lead`` before
    the answer's text."""
    use = toolu(seed)
    return [user(question),
            assistant([thinking(f"Call {name}. ({seed})", seed + ":call"), *(lead or []), tool_use(use, name, args)]),
            user([tool_result(use, result)]),
            assistant([thinking(f"That answers it. ({seed})", seed + ":answer"), *(answer_lead or []), text(answer)])]


def settled_history(seed: str) -> list[list[Message]]:
    """Returns three plain settled tasks."""
    return [qa(f"{seed}:s1", "Which database does the ETL write to?", "Postgres 16 on the warehouse host."),
            tool_task(f"{seed}:s2", "How many invoices are open?", "query_csv", {"path": "exports/invoices.csv"},
                      "412 rows", "412 invoices are open."),
            qa(f"{seed}:s3", "Who is on call this week?", "Dana, then Ravi from Thursday.")]


def step(seed: str, k: int, name: str, args: dict[str, Any], result: Any, *,
         lead: list[dict[str, Any]] | None = None, between: list[Message] | None = None) -> list[Message]:
    """Returns one tool step: a call (after thinking and ``lead``), ``between`` (notices a harness
    stored before the result), then its result."""
    use = toolu(f"{seed}:{k}")
    call = assistant([thinking(f"Step {k}: {name}. ({seed})", f"{seed}:think{k}"), *(lead or []),
                      tool_use(use, name, args)])
    return [call, *(between or []), user([tool_result(use, result)])]


# --- the documented rule ---------------------------------------------------------------------------


def _results(message: Message) -> list[str]:
    content = message["content"]
    return [] if isinstance(content, str) else [b["tool_use_id"] for b in content if b["type"] == "tool_result"]


def _calls(message: Message) -> list[str]:
    content = message["content"]
    return [] if isinstance(content, str) else [b["id"] for b in content if b["type"] == "tool_use"]


def _is_request(message: Message) -> bool:
    return message["role"] == "user" and not _results(message)


def _opens(history: list[Message], i: int) -> bool:
    """Returns whether kept history may open at ``i``: a request that is not a notice standing between
    a call and its result (or the start of a history whose first message answers nothing)."""
    if not _is_request(history[i]):
        return i == 0 and not any("tool_use_id" in b for b in history[0]["content"]
                                  if not isinstance(history[0]["content"], str))
    j = i - 1
    while j >= 0 and _is_request(history[j]) and history[j]["role"] == "user":
        j -= 1
    if j < 0 or history[j]["role"] != "assistant":
        return True
    waiting = set(_calls(history[j]))
    return not any(set(_results(m)) & waiting for m in history[i + 1:])


def _has_compaction(message: Message) -> bool:
    return not isinstance(message["content"], str) and any(b["type"] == "compaction" for b in message["content"])


def expected(history: list[Message], live_start: int, kept_from: int, keep_turns: int,
             budget: int | None = None) -> list[Message] | None:
    """Returns the reference output by the rule of ``specs/README.md`` (``None`` when it refuses: a
    task in flight that outgrew the budget beside the settled cut of its first call): ``kept_from``
    is where the untouched messages begin (``live_start``, or the last task's first message when the
    history ends on an assistant turn)."""
    live = history[kept_from:]
    if budget is not None and estimate_tokens(live) > budget:
        if live_start != len(history):
            return None  # a task in flight alone over the budget: refused
        kept_from, live = len(history), []  # nothing in flight: the last task is settled history too
    first = max(0, kept_from - keep_turns)
    window = next((i for i in range(first, kept_from) if _opens(history, i)), kept_from)
    settled: list[Message] = []
    anchor = next((i for i in range(kept_from - 1, -1, -1) if _has_compaction(history[i])), None)
    if anchor is not None and anchor < window and not _calls(history[anchor]):
        settled.append(history[anchor])
    settled += history[window:kept_from]
    settled = [m for m in (strip_reasoning(x) for x in settled) if m is not None]
    if budget is not None:
        # the cut the task's first call made: settled history beside the task's request alone
        first_answer = next((i for i, m in enumerate(live) if m["role"] == "assistant"), len(live))
        while settled and estimate_tokens(settled) + estimate_tokens(live[:first_answer]) > budget:
            cut = 1
            while cut < len(settled) and not _opens(settled, cut):
                cut += 1
            settled = settled[cut:]
        if estimate_tokens(settled) + estimate_tokens(live) > budget:
            return None  # the task outgrew it: refused, never re-trimmed under the task
    return settled + live


def scenario(sid: str, description: str, features: list[str], settled: list[list[Message]], last: list[Message],
             keep_turns: int, *, in_flight: bool = True, unanswered: tuple[str, ...] = (), note: str | None = None,
             budget: int | None = None, skip: dict[str, str] | None = None,
             refusal_allowed: bool = False, declare_tasks: bool = False) -> Scenario:
    """Returns one scenario: settled tasks, then ``last`` (the task in flight, or with ``in_flight``
    false a last task that settles the history), its truth by construction and the rule's output."""
    history = [m for task in settled for m in task] + last
    start = sum(len(task) for task in settled)
    live_start = start if in_flight else len(history)
    kept_from = start if (in_flight or history[-1]["role"] == "assistant") else len(history)
    params: dict[str, Any] = {"keep_turns": keep_turns}
    if budget is not None:
        params["budget_tokens"] = budget
    truth: dict[str, Any] = {"live_start": live_start}
    if unanswered:
        truth["unanswered"] = list(unanswered)
    if note:
        truth["note"] = note
    if declare_tasks:  # where every task begins: the truth of each call of the agent loop
        starts = [sum(len(task) for task in settled[:k]) for k in range(len(settled))]
        truth["tasks"] = starts + [start]
    tags = set(features) | ({"inflight"} if in_flight else set()) | ({"budget"} if budget is not None else set())
    out: Scenario = {"id": f"{FAMILY}.{sid}", "description": description, "family": FAMILY,
                     "features": sorted(tags), "history": history, "params": params, "truth": truth,
                     "expect": {}}
    output = expected(history, live_start, kept_from, keep_turns, budget)
    if output is None:
        out["expect"].update(raises="LiveTaskOverBudget", refusal_allowed=True)
    else:
        out["expect"]["output"] = output
    if skip:
        out["expect"]["skip"] = skip
    if refusal_allowed:
        out["expect"]["refusal_allowed"] = True
    return out


# --- the scenarios ---------------------------------------------------------------------------------


def server_kinds() -> list[Scenario]:
    out = []
    for kind in SERVER_KINDS:
        seed = f"settled-{kind}"
        settled = settled_history(seed)
        settled.insert(2, tool_task(f"{seed}:srv", "Which tool reads the billing database?", "list_tools", {},
                                    "12 tools", "query_billing_db does.", answer_lead=server_pair(seed, kind)))
        live = [user("Count last month's failed payments.")]
        live += step(seed, 0, "query_billing_db", {"sql": "select count(*) from payments where failed"}, "37")
        tags = ["server-tool", "unknown-block", "thinking", "tool-use"]
        out.append(scenario(f"{kind}-result-in-settled-answer-window-8",
                            f"a {SERVER_KINDS[kind][1]} pair in a settled answer, kept by a window of 8",
                            tags, settled, live, 8))
        seed = f"live-{kind}"
        live = [user("Find the tool for the billing database and count last month's failed payments.")]
        live += step(seed, 0, "query_billing_db", {"sql": "select count(*) from payments where failed"}, "37",
                     lead=server_pair(seed, kind))
        live += step(seed, 1, "query_billing_db", {"sql": "select count(*) from payments"}, "1204",
                     lead=[text("37 failed; now the total.")])
        out.append(scenario(f"{kind}-pair-in-flight-window-3",
                            f"a {SERVER_KINDS[kind][1]} pair beside a client call in flight, window 3",
                            tags, settled_history(seed), live, 3))
    seed = "every-server-kind"
    settled = settled_history(seed)
    settled.insert(1, tool_task(f"{seed}:srv", "Check the loader's retry settings.", "read_file",
                                {"path": "etl/loader.toml"}, "retries = 5",
                                "Five retries, no back-off.",
                                answer_lead=[b for kind in SERVER_KINDS for b in server_pair(seed, kind)]))
    live = [user("Add exponential back-off to the loader.")]
    live += step(seed, 0, "edit_file", {"path": "etl/loader.toml", "old": "backoff_ms = 0", "new": "backoff_ms = 100"},
                 "edited", lead=server_pair(seed + ":live", "future-kind"))
    out.append(scenario("every-new-server-kind-settled-window-10",
                        "four server tool kinds never named before in one settled answer, window 10",
                        ["server-tool", "unknown-block", "thinking", "tool-use"], settled, live, 10))
    return out


def compactions() -> list[Scenario]:
    out = []
    seed = "compaction-settled-middle"
    settled = settled_history(seed)
    settled[1] = settled[1][:-1] + [assistant([compaction(seed), text("412 invoices are open.")])]
    live = [user("Draft the dunning email for the oldest ten.")]
    live += step(seed, 0, "query_csv", {"path": "exports/invoices.csv", "sort": "due", "limit": 10}, "10 rows")
    out.append(scenario("block-in-settled-answer-window-8",
                        "a compaction block (encrypted, no id) in a settled answer inside the window",
                        ["compaction", "thinking", "tool-use"], settled, live, 8))
    seed = "compaction-settled-anchor"
    settled = [[assistant([compaction(seed)])] + qa(f"{seed}:q", "Which branch is the fix on?", "fix/backoff.")]
    settled += settled_history(seed)
    live = [user("Open the pull request for fix/backoff.")]
    live += step(seed, 0, "run_command", {"command": "gh pr create --fill"}, "https://git.example.com/pr/88")
    out.append(scenario("opening-block-lifted-before-window-4",
                        "a history opening on its own compaction message: kept first when the window cuts, window 4",
                        ["compaction", "thinking", "tool-use"], settled, live, 4))
    seed = "compaction-null-content"
    settled = settled_history(seed)
    settled[2] = [settled[2][0], assistant([compaction(seed, encrypted=False, content=None),
                                            text("Dana, then Ravi from Thursday.")])]
    live = [user("Page Dana about the ETL failure.")]
    live += step(seed, 0, "page", {"who": "dana", "urgency": "high"}, "paged")
    out.append(scenario("failed-compaction-null-content-settled-window-6",
                        "a failed compaction block (null content, no id) in a settled answer, window 6",
                        ["compaction", "thinking", "tool-use"], settled, live, 6))
    seed = "compaction-in-loop"
    live = [user("Fix the loader and run its tests.")]
    live += step(seed, 0, "read_file", {"path": "etl/loader.py"}, source_text(seed, 3 * KB))
    live += step(seed, 1, "edit_file", {"path": "etl/loader.py", "old": "sleep(0)", "new": "sleep(backoff(n))"},
                 "edited", lead=[compaction(seed), text("Context compacted; applying the edit.")])
    live += step(seed, 2, "run_command", {"command": "pytest tests/etl -q"}, "14 passed")
    out.append(scenario("block-inside-tool-loop-window-3",
                        "a compaction block opening an assistant turn inside the tool loop in flight, window 3",
                        ["compaction", "thinking", "tool-use", "large-result"], settled_history(seed), live, 3))
    seed = "compaction-pending-turn"
    use = toolu(f"{seed}:call")
    live = [user("Carry on with the back-off rollout.")]
    live += step(seed, 0, "run_command", {"command": "git log --oneline -3"}, "a1b2c3 add back-off")
    live.append(assistant([compaction(seed), thinking("Deploy next.", f"{seed}:think"),
                           text("Context compacted; deploying to staging."),
                           tool_use(use, "run_command", {"command": "deploy staging"})]))
    out.append(scenario("block-opening-the-turn-awaiting-a-result-window-2",
                        "a compaction block opens the assistant turn whose call awaits its result, window 2",
                        ["compaction", "thinking", "tool-use"], settled_history(seed), live, 2, unanswered=(use,)))
    seed = "compaction-latest-turn"
    last = [user("Summarise where the back-off work stands."),
            assistant([compaction(seed), thinking("Summarise the state for the user.", seed),
                       text("The back-off fix is merged; the nightly run is green.")])]
    out.append(scenario("block-in-latest-turn-settled-window-4",
                        "the history ends on a turn opened by a compaction block: that last task is kept whole",
                        ["compaction", "thinking", "tool-use"], settled_history(seed), last, 4, in_flight=False))
    seed = "compaction-two-blocks"
    settled = [[assistant([compaction(seed + ":old", encrypted=False)])] + qa(f"{seed}:q", "Status?", "Green.")]
    settled += settled_history(seed)
    settled[2] = settled[2][:-1] + [assistant([compaction(seed + ":new"), text("412 invoices are open.")])]
    live = [user("Export the open invoices to the finance share.")]
    live += step(seed, 0, "run_command", {"command": "etl export --open"}, "exported 412 rows")
    out.append(scenario("two-blocks-without-ids-window-5",
                        "two compaction blocks without ids in settled history: the newer is kept, window 5",
                        ["compaction", "thinking", "tool-use"], settled, live, 5))
    return out


INSIDE_NOTE = ("a background-task notice is a user message with no tool_result standing between a call and its "
               "result: it opens no task and no window. The provider refuses a call not answered in the next "
               "message, so a target may decline such a history; the reference returns it.")


def notices() -> list[Scenario]:
    out = []
    tags = ["background-notice", "thinking", "tool-use"]
    for where, keep in (("before", 7), ("inside", 5), ("inside", 7), ("after", 7)):
        seed = f"notice-{where}-settled-{keep}"
        use = toolu(f"{seed}:task")
        call = assistant([thinking("Build first.", f"{seed}:call"),
                          tool_use(use, "run_command", {"command": "npm run build"})])
        result = user([tool_result(use, "build ok")])
        answer = assistant([thinking("Report.", f"{seed}:answer"), text("The build is green.")])
        task = [user("Build the front end."),
                *([notice(seed, 1)] if where == "before" else []), call,
                *([notice(seed, 2)] if where == "inside" else []), result,
                *([notice(seed, 3)] if where == "after" else []), answer]
        settled = settled_history(seed)
        settled.insert(2, task)
        live = [user("Deploy the build to staging.")]
        live += step(seed, 0, "run_command", {"command": "deploy staging"}, "deployed")
        note = INSIDE_NOTE if where == "inside" else None
        edge = "its edge on the notice" if keep == 5 else "the whole step kept as it came"
        out.append(scenario(f"{where}-a-step-settled-window-{keep}",
                            f"a background-task notice {where} a settled step, window {keep}: {edge}",
                            tags, settled, live, keep, note=note, refusal_allowed=where == "inside"))
        if keep == 5:
            continue
        seed = f"notice-{where}-in-flight"
        live = [user("Build and test the front end."),
                *([notice(seed, 1)] if where == "before" else [])]
        live += step(seed, 0, "run_command", {"command": "npm run build"}, "build ok",
                     between=[notice(seed, 2)] if where == "inside" else None)
        if where == "after":
            live.append(notice(seed, 3))
        live += step(seed, 1, "run_command", {"command": "npm test"}, "52 passing")
        if where == "inside":  # a second notice, beside parallel calls, under a window that reaches less far
            first, second = toolu(f"{seed}:p1"), toolu(f"{seed}:p2")
            live += [assistant([thinking("Lint and type-check together.", f"{seed}:par"),
                                tool_use(first, "run_command", {"command": "npm run lint"}),
                                tool_use(second, "run_command", {"command": "npm run typecheck"})]),
                     notice(seed, 5), user([tool_result(second, "0 errors"), tool_result(first, "0 problems")])]
            out.append(scenario("two-notices-inside-steps-in-flight-window-1",
                                "notices inside two steps of the task in flight, one beside parallel calls, window 1",
                                tags + ["parallel"], settled_history(seed + ":2"), live, 1, note=INSIDE_NOTE,
                                refusal_allowed=True))
            live = live[:-3]
        out.append(scenario(f"{where}-a-step-in-flight-window-3",
                            f"a background-task notice {where} a step of the task in flight, window 3",
                            tags, settled_history(seed), live, 3, note=INSIDE_NOTE if where == "inside" else None,
                            refusal_allowed=where == "inside"))
    seed = "notice-last-while-call-waits"
    use = toolu(f"{seed}:wait")
    live = [user("Run the migration.")]
    live += step(seed, 0, "run_command", {"command": "etl migrate --dry-run"}, "3 migrations pending")
    live += [assistant([thinking("Now for real.", f"{seed}:call"), tool_use(use, "run_command",
                                                                            {"command": "etl migrate"})]),
             notice(seed, 4)]
    out.append(scenario("notice-last-while-a-call-waits-window-2",
                        "a notice is the last message while a call still waits for its result, window 2",
                        tags, settled_history(seed), live, 2, unanswered=(use,)))
    seed = "notice-inside-budget"
    use = toolu(f"{seed}:task")
    task = [user("Build the front end."),
            assistant([thinking("Build.", f"{seed}:call"), tool_use(use, "run_command", {"command": "npm run build"})]),
            notice(seed, 2), user([tool_result(use, "build ok")]),
            assistant([thinking("Report.", f"{seed}:answer"), text("The build is green.")])]
    settled = settled_history(seed) + [task]
    live = [user("Did the rollout finish?")]  # the task's first call: where a budget may cut settled history
    out.append(scenario("inside-a-step-settled-budget",
                        "at a task's first call, a budget drops the oldest settled tasks around a step with a notice "
                        "inside it",
                        tags, settled, live, 20, budget=_budget_keeping(settled, live, 1), note=INSIDE_NOTE,
                        refusal_allowed=True))
    return out


def _budget_keeping(settled: list[list[Message]], live: list[Message], tasks: int) -> int:
    """Returns a budget (by the documented estimate) that keeps the last ``tasks`` settled tasks
    (reasoning removed) beside the task in flight, and that leaves that task clear margin."""
    kept = [m for task in settled[-tasks:] for m in (strip_reasoning(x) for x in task) if m is not None]
    budget = estimate_tokens(kept) + estimate_tokens(live) + 8
    assert 2 * budget >= sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in live)
    return budget


def pending_compaction_tool() -> list[Scenario]:
    out = []
    seed = "compact-tool-pending"
    use = toolu(f"{seed}:compact")
    live = [user("Keep going with the migration plan; the context is nearly full.")]
    live += step(seed, 0, "read_file", {"path": "docs/migration.md"}, source_text(seed, 2 * KB))
    live.append(assistant([thinking("The context is nearly full; compact before the next step.", f"{seed}:c"),
                           text("Compacting the context before the next step."),
                           tool_use(use, "context_compact", {"keep": "task", "reason": "context 92% full"})]))
    out.append(scenario("context-compact-call-awaits-result-window-3",
                        "the call awaiting its result is the compaction tool itself (context_compact), window 3",
                        ["compaction-tool", "thinking", "tool-use", "large-result"], settled_history(seed), live, 3,
                        unanswered=(use,)))
    seed = "compact-tool-pending-after-compaction"
    use = toolu(f"{seed}:compact")
    settled = settled_history(seed)
    settled[1] = settled[1][:-1] + [assistant([compaction(seed), text("412 invoices are open.")])]
    live = [user("Reconcile the invoices, compacting when you need to.")]
    live += step(seed, 0, "query_csv", {"path": "exports/payments.csv"}, "1204 rows")
    live.append(assistant([tool_use(use, "context_compact", {})]))
    out.append(scenario("context-compact-alone-after-a-compaction-block-window-2",
                        "a bare context_compact call waits, after a settled compaction block, window 2",
                        ["compaction-tool", "compaction", "thinking", "tool-use"], settled, live, 2,
                        unanswered=(use,)))
    return out


def large_text() -> list[Scenario]:
    out = []
    seed = "large-text-latest-turn"
    last = [user("Review the whole loader module.")]
    last += step(seed, 0, "read_file", {"path": "etl/loader.py"}, source_text(seed + ":src", 6 * KB))
    last.append(assistant([thinking("Write the full review.", f"{seed}:final"), text(big(seed, 24 * KB)),
                           text("Want me to apply the fixes?")]))
    out.append(scenario("24kb-text-beside-thinking-in-latest-turn-window-4",
                        "a 24 KB text block beside thinking in the latest, settled assistant turn, window 4",
                        ["large-text", "thinking", "tool-use", "large-result"], settled_history(seed), last, 4,
                        in_flight=False))
    seed = "large-text-in-flight"
    live = [user("Review the loader and then fix what you find.")]
    live += step(seed, 0, "read_file", {"path": "etl/loader.py"}, "ok",
                 lead=[text(big(seed, 16 * KB))])
    live += step(seed, 1, "edit_file", {"path": "etl/loader.py", "old": "sleep(0)", "new": "sleep(backoff(n))"},
                 "edited", lead=[text(big(seed + ":2", 9 * KB))])
    out.append(scenario("16kb-text-beside-thinking-in-flight-window-3",
                        "16 KB and 9 KB text blocks beside thinking and calls inside the task in flight, window 3",
                        ["large-text", "thinking", "tool-use"], settled_history(seed), live, 3))
    seed = "large-text-awaiting-call"
    use = toolu(f"{seed}:call")
    live = [user("Explain the retry path, then run the slow tests.")]
    live += step(seed, 0, "read_file", {"path": "etl/retry.py"}, source_text(seed, 2 * KB))
    live.append(assistant([thinking("Explain, then run them.", f"{seed}:think"), text(big(seed, 12 * KB)),
                           tool_use(use, "run_command", {"command": "pytest -m slow"})]))
    out.append(scenario("12kb-text-beside-thinking-awaiting-a-result-window-2",
                        "a 12 KB text beside thinking in the turn whose call awaits its result, window 2",
                        ["large-text", "thinking", "tool-use"], settled_history(seed), live, 2, unanswered=(use,)))
    seed = "large-text-latest-over-budget"
    last = [user("Write the full review of the loader.")]
    last += step(seed, 0, "read_file", {"path": "etl/loader.py"}, "ok")
    last.append(assistant([thinking("Write the full review. " * 40, f"{seed}:final"), text(big(seed, 3 * KB))]))
    settled = settled_history(seed)
    whole = [m for task in settled for m in task] + last
    budget = estimate_tokens([m for m in (strip_reasoning(x) for x in last) if m is not None]) + 40
    assert estimate_tokens(last) > budget and estimate_tokens(whole) > budget
    out.append(scenario("last-settled-task-over-budget-is-trimmed-as-settled",
                        "the history ends settled and its last task alone is over budget: trimmed, not refused",
                        ["large-text", "thinking", "tool-use"], settled, last, 10, in_flight=False, budget=budget,
                        skip={"reasoning.latest-turn-intact": "the last task alone is over the budget, so it is "
                              "trimmed as settled history and its reasoning goes"}))
    return out


def split_pairs() -> list[Scenario]:
    out = []
    for edge, keep in (("continuation", 9), ("paused-turn", 10)):
        seed = f"split-pair-{edge}"
        use = srvtoolu(f"{seed}:search")
        paused = [user("Is requests 2.31 affected by a recent CVE?"),
                  assistant([thinking("Search advisories.", f"{seed}:think"), text("Searching the advisories."),
                             {"type": "server_tool_use", "id": use, "name": "web_search",
                              "input": {"query": "requests 2.31 CVE"}}]),
                  assistant([{"type": "web_search_tool_result", "tool_use_id": use, "content": [
                      {"type": "web_search_result", "url": "https://github.com/advisories", "title": "Advisories",
                       "encrypted_content": opaque(f"{seed}:result", 48), "page_age": None}]},
                      text("Yes: 2.32.0 fixes a certificate-verification CVE.")])]
        settled = settled_history(seed)
        settled.insert(0, paused)
        live = [user("Pin requests to 2.32.3.")]
        live += step(seed, 0, "run_command", {"command": "poetry add requests@2.32.3"}, "updated")
        total = sum(len(t) for t in settled)
        assert total - keep == (2 if edge == "continuation" else 1), (seed, total)
        out.append(scenario(f"paused-pair-window-edge-on-the-{edge}",
                            f"a paused server-tool turn and its continuation, the window's edge on the {edge}",
                            ["pause-turn", "server-tool", "thinking", "tool-use"], settled, live, keep))
    seed = "split-pair-in-flight"
    use = srvtoolu(f"{seed}:search")
    name, result_type, content = SERVER_KINDS["tool-search"]
    live = [user("Find the billing tool and count failed payments."),
            assistant([thinking("Search the tools.", f"{seed}:think"),
                       {"type": "server_tool_use", "id": use, "name": name, "input": {"query": "billing"}}]),
            assistant([{"type": result_type, "tool_use_id": use, "content": content},
                       tool_use(toolu(f"{seed}:q"), "query_billing_db", {"sql": "select count(*) from failed"})]),
            user([tool_result(toolu(f"{seed}:q"), "37")])]
    out.append(scenario("paused-tool-search-continued-in-flight-window-2",
                        "a paused tool search continued in a second assistant message in flight, window 2",
                        ["pause-turn", "server-tool", "unknown-block", "thinking", "tool-use"],
                        settled_history(seed), live, 2))
    return out


HEADER = """\
Failure classes reported by agent projects in 2026 that earlier families never put in a history:
server tool kinds never named before (tool search, bash and text-editor code execution, a made-up
future kind), compaction blocks without ids in settled history, inside the tool loop and in the
latest turn, background-task notices before, inside and after a step, the compaction tool as the
call awaiting its result, large text blocks beside thinking, and a paused server-tool turn split
from its continuation at the window's edge. The truth is how each history was put together.

Generated: do not edit by hand; change tools/generate_blind_spot_specs.py and run it again.
"""


def scenarios() -> list[Scenario]:
    """Returns every scenario of the family, in file order."""
    return server_kinds() + compactions() + notices() + pending_compaction_tool() + large_text() + split_pairs()


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "blind-spots.yaml").write_text(render(scenarios(), HEADER, dump=json_flow), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
