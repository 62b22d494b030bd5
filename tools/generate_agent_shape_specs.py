#!/usr/bin/env python3
"""Writes ``specs/agent-notices.yaml`` and ``specs/programmatic-calls.yaml``: two shapes real agents
send that the earlier families wrote only one way, or not at all.

``agent-notices``: background notices as real agents write them, not in one house format. Claude
Code's ``<system-reminder>`` text blocks inside user messages (beside a request, appended after the
tool results of a step) and as a user turn of their own; a harness's notice as a plain-text user
turn ("Background command ... completed"). They stand in settled history and inside the task in
flight, and the task in flight ends on its newest call's result, on parallel results, on a call
still waiting, or the history ends settled. A compactor that recognises notices by a real agent's
marker and moves them next to the newest message puts one between the newest call and its result.

``programmatic-calls``: programmatic tool calling. The model runs code in a code-execution server
tool (``server_tool_use``), the code calls the client's tools, and each such ``tool_use`` names that
server tool use in its ``caller`` (``{"type": "code_execution_20250825", "tool_id": <its id>}``); the
client answers them, and the code's result (``code_execution_tool_result``) comes in a later
assistant turn. Pruning the server tool use while keeping a call it made is refused by the provider
(the call's source tool is not found): the pair is checked by ``tools.caller-use-kept``.

Each history is put together from settled tasks and one last task, so the boundary is known by
construction, and so is where every task begins; the reference output is the documented rule of
``specs/README.md`` applied to that structure (``scenario`` of ``generate_blind_spot_specs``).
Nothing here imports the harness or the reference.

Deterministic: ``python tools/generate_agent_shape_specs.py`` (optionally the output folder)
rewrites both files byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_blind_spot_specs import qa, scenario, settled_history, step, tag, tool_task  # noqa: E402 - after the sys.path line above
from generate_settled_split_specs import in_family  # noqa: E402 - after the sys.path line above
from generate_specs import (assistant, json_flow, render, srvtoolu, text, thinking, tool_result,  # noqa: E402 - after the sys.path line above
                            tool_use, toolu, user)

Message = dict[str, Any]
Scenario = dict[str, Any]
Block = dict[str, Any]

# --- notices in real agents' formats --------------------------------------------------------------

REMINDERS = (
    "The task list has not been updated for a while: 2 of 5 items are done. Keep it current as you work.",
    "Background shell bash_2 has new output since you last read it; read it with the shell-output tool when "
    "you need it.",
    "The file etl/loader.py was changed by the user or a formatter after you read it; read it again before "
    "editing.",
)
PLAIN_NOTICES = (
    'Background command "npm run build" (shell bash_3) completed with exit code 0; its output is in '
    ".agent/shells/bash_3.log.",
    'Background command "pytest -q --lf" (shell bash_4) failed with exit code 1: 2 failed, 48 passed.',
)


def reminder(seed: str, n: int) -> Block:
    """Returns a ``<system-reminder>`` text block as a coding agent writes one into a user message."""
    return text(f"<system-reminder>\n{REMINDERS[n % len(REMINDERS)]} (#{tag(seed)}:{n})\n</system-reminder>")


def reminder_turn(seed: str, n: int) -> Message:
    """Returns a user turn of ``<system-reminder>`` blocks alone."""
    return user([reminder(seed, n)])


def plain_notice(seed: str, n: int) -> Message:
    """Returns a harness's notice as a plain-text user turn (a string, as a request is written)."""
    return user(f"{PLAIN_NOTICES[n % len(PLAIN_NOTICES)]} (#{tag(seed)}:{n})")


def request_with_reminder(seed: str, question: str, n: int) -> Message:
    """Returns a request whose text is followed by a ``<system-reminder>`` block."""
    return user([text(question), reminder(seed, n)])


def with_reminder_after_results(message: Message, seed: str, n: int) -> Message:
    """Returns a tool-result turn with a ``<system-reminder>`` block appended after its results."""
    return user([*message["content"], reminder(seed, n)])


def build_task(seed: str, where: str) -> list[Message]:
    """Returns a settled tool task with a notice in a real agent's format ``where`` in it."""
    use = toolu(f"{seed}:task")
    request = (request_with_reminder(seed, "Build the front end.", 1) if where == "reminder-in-the-request"
               else user("Build the front end."))
    results = user([tool_result(use, "build ok")])
    if where == "reminder-after-the-results":
        results = with_reminder_after_results(results, seed, 2)
    return [request,
            *([plain_notice(seed, 0)] if where == "plain-notice-before-the-call" else []),
            assistant([thinking("Build first.", f"{seed}:call"),
                       tool_use(use, "run_command", {"command": "npm run build"})]),
            results,
            *([reminder_turn(seed, 0)] if where == "reminder-turn-after-the-results" else []),
            *([plain_notice(seed, 1)] if where == "plain-notice-after-the-results" else []),
            assistant([thinking("Report.", f"{seed}:answer"), text("The build is green.")])]


def with_notice(seed: str, where: str) -> list[list[Message]]:
    """Returns three settled tasks with ``build_task`` second."""
    settled = settled_history(seed)
    settled.insert(1, build_task(seed, where))
    return settled


NOTICE_TAGS = ["background-notice", "thinking", "tool-use"]
SETTLED_PLACES = ("reminder-in-the-request", "reminder-after-the-results", "reminder-turn-after-the-results",
                  "plain-notice-before-the-call", "plain-notice-after-the-results")


def agent_notices() -> list[Scenario]:
    """Returns the scenarios of ``agent-notices``, in file order."""
    family = "agent-notices"
    out = []
    for where in SETTLED_PLACES:
        seed = f"agent-{where}"
        live = [user("Deploy the build to staging."),
                *step(seed, 0, "run_command", {"command": "deploy staging"}, "deployed")]
        out.append(in_family(family, scenario(
            f"settled-{where}-task-ends-on-its-newest-result",
            f"a settled {where.replace('-', ' ')}; the task in flight ends on its newest call's result",
            NOTICE_TAGS, with_notice(seed, where), live, 12, declare_tasks=True)))
    seed = "agent-reminders-in-flight"
    first = step(seed, 0, "run_command", {"command": "npm run build"}, "build ok")
    first[1] = with_reminder_after_results(first[1], seed, 1)
    second = step(seed, 1, "run_command", {"command": "npm test"}, "52 passing")
    second[1] = with_reminder_after_results(second[1], seed, 2)
    live = [request_with_reminder(seed, "Build and test the front end.", 0), *first, plain_notice(seed, 0),
            *second]
    out.append(in_family(family, scenario(
        "reminders-in-the-request-and-after-each-result-in-flight-window-3",
        "reminders in the request and after each result of the task in flight, a plain notice between steps",
        NOTICE_TAGS, settled_history(seed), live, 3, declare_tasks=True)))
    seed = "agent-reminders-both"
    first, second = toolu(f"{seed}:lint"), toolu(f"{seed}:types")
    live = [user("Lint and type-check the front end."),
            assistant([thinking("Both at once.", f"{seed}:par"),
                       tool_use(first, "run_command", {"command": "npm run lint"}),
                       tool_use(second, "run_command", {"command": "npm run typecheck"})]),
            user([tool_result(second, "0 errors"), tool_result(first, "0 problems"), reminder(seed, 3)])]
    out.append(in_family(family, scenario(
        "settled-reminder-turn-task-ends-on-parallel-results-with-a-reminder",
        "a settled reminder turn; the task in flight ends on parallel results followed by a reminder",
        NOTICE_TAGS + ["parallel"], with_notice(seed, "reminder-turn-after-the-results"), live, 12,
        declare_tasks=True)))
    seed = "agent-call-waits"
    use = toolu(f"{seed}:wait")
    live = [user("Run the migration."),
            *step(seed, 0, "run_command", {"command": "etl migrate --dry-run"}, "3 migrations pending"),
            assistant([thinking("Now for real.", f"{seed}:call"),
                       tool_use(use, "run_command", {"command": "etl migrate"})])]
    out.append(in_family(family, scenario(
        "settled-reminder-after-results-task-ends-on-a-call-awaiting-its-result",
        "a reminder after settled results; the task in flight ends on a call still waiting for its result",
        NOTICE_TAGS, with_notice(seed, "reminder-after-the-results"), live, 12, unanswered=(use,),
        declare_tasks=True)))
    seed = "agent-window-edge"
    settled = with_notice(seed, "plain-notice-after-the-results")
    settled.append(qa(f"{seed}:qa", "Which region is staging in?", "eu-west-1."))
    live = [user("Run the staging smoke tests."),
            *step(seed, 0, "run_command", {"command": "npm run smoke -- --env staging"}, "12 passing")]
    keep = sum(len(task) for task in settled[2:]) + 2  # the edge on the plain notice after the step's result
    out.append(in_family(family, scenario(
        f"window-edge-on-a-settled-plain-notice-window-{keep}",
        f"the window's edge on a plain notice after a settled step's result (window {keep}); the task ends on a result",
        NOTICE_TAGS, settled, live, keep, declare_tasks=True)))
    seed = "agent-far-back"
    settled = with_notice(seed, "reminder-turn-after-the-results")
    settled.append(tool_task(f"{seed}:t", "Is the staging database up?", "run_command",
                             {"command": "pg_isready -h staging-db"}, "accepting connections", "It is up."))
    live = [request_with_reminder(seed, "Run the staging smoke tests.", 2),
            *step(seed, 0, "run_command", {"command": "npm run smoke -- --env staging"}, "12 passing")]
    out.append(in_family(family, scenario(
        "settled-reminder-turn-outside-a-window-of-4-task-ends-on-a-result",
        "a settled reminder turn outside a window of 4; the request in flight carries a reminder",
        NOTICE_TAGS, settled, live, 4, declare_tasks=True)))
    seed = "agent-ends-settled"
    last = [request_with_reminder(seed, "Is the build green?", 0),
            assistant([thinking("Check the last run.", f"{seed}:answer"), text("Yes: the last build is green.")])]
    out.append(in_family(family, scenario(
        "reminders-settled-and-in-the-last-task-history-ends-settled",
        "reminders in settled history and in the last request; the history ends on that task's answer",
        NOTICE_TAGS, with_notice(seed, "reminder-after-the-results"), last, 6, in_flight=False)))
    return out


# --- programmatic tool calling --------------------------------------------------------------------

CODE_EXECUTION = "code_execution_20250825"
CALLER_TAGS = ["programmatic-call", "server-tool", "thinking", "tool-use"]


def caller(server_id: str) -> dict[str, str]:
    """Returns the ``caller`` of a client call made by code running in server tool use ``server_id``."""
    return {"type": CODE_EXECUTION, "tool_id": server_id}


def code_run(seed: str, regions: list[str]) -> Block:
    """Returns the code-execution server tool use whose code calls ``query_sales`` once per region."""
    return {"type": "server_tool_use", "id": srvtoolu(f"{seed}:code"), "name": "code_execution",
            "input": {"code": "totals = {}\nfor region in " + repr(regions) + ":\n"
                      "    rows = await query_sales(region=region, quarter='Q3')\n"
                      "    totals[region] = sum(r['amount'] for r in rows)\nprint(max(totals, key=totals.get))"}}


def code_result(seed: str, stdout: str) -> Block:
    """Returns the result of ``code_run``'s code: what it printed."""
    return {"type": "code_execution_tool_result", "tool_use_id": srvtoolu(f"{seed}:code"),
            "content": {"type": "code_execution_result", "stdout": stdout, "stderr": "", "return_code": 0,
                        "content": []}}


def programmatic_turns(seed: str, regions: list[str], *, rounds: int = 1, think: bool = True) -> list[Message]:
    """Returns the turns of one programmatic run: the code's server tool use beside the first calls it
    made (their ``caller`` naming it), their results, then ``rounds - 1`` more turns of calls by the
    same code, each answered (no code result until the code finished)."""
    server_id = srvtoolu(f"{seed}:code")
    per_round = [regions[k::rounds] for k in range(rounds)]
    out: list[Message] = []
    for k, batch in enumerate(per_round):
        uses = [toolu(f"{seed}:{region}") for region in batch]
        calls = [tool_use(u, "query_sales", {"region": r, "quarter": "Q3"}, caller=caller(server_id))
                 for u, r in zip(uses, batch)]
        lead: list[Block] = []
        if k == 0:
            lead = ([thinking("Loop over the regions in code.", f"{seed}:think")] if think else [])
            lead += [text("I'll total each region's sales in code."), code_run(seed, regions)]
        out += [assistant(lead + calls),
                user([tool_result(u, f"{12 + 3 * i} rows") for i, u in enumerate(uses)])]
    return out


def programmatic_task(seed: str, regions: list[str], *, rounds: int = 1) -> list[Message]:
    """Returns a settled task of one programmatic run, answered in the turn that carries the code's result."""
    return [user("Which region sold most in Q3?"), *programmatic_turns(seed, regions, rounds=rounds),
            assistant([code_result(seed, f"{regions[-1]}\n"), text(f"{regions[-1].upper()} sold most in Q3.")])]


def programmatic_calls() -> list[Scenario]:
    """Returns the scenarios of ``programmatic-calls``, in file order."""
    family = "programmatic-calls"
    out = []
    regions = ["emea", "apac", "amer"]
    for rounds in (1, 2):
        seed = f"ptc-settled-{rounds}"
        settled = settled_history(seed)
        settled.insert(1, programmatic_task(seed, regions, rounds=rounds))
        keep = sum(len(task) for task in settled[1:])  # the window opens on the run's request
        live = [user("Email the Q3 totals to finance."),
                *step(seed, 0, "send_email", {"to": "finance@example.com", "subject": "Q3 totals"}, "sent")]
        which = "one turn of calls" if rounds == 1 else "calls over two turns"
        out.append(in_family(family, scenario(
            f"settled-code-run-{which.replace(' ', '-')}-window-{keep}",
            f"a settled programmatic run ({which}) inside a window of {keep}", CALLER_TAGS, settled, live, keep,
            declare_tasks=True)))
    seed = "ptc-settled-whole"
    settled = settled_history(seed)
    settled.append(programmatic_task(seed, regions, rounds=2))
    live = [user("Email the Q3 totals to finance."),
            *step(seed, 0, "send_email", {"to": "finance@example.com", "subject": "Q3 totals"}, "sent")]
    out.append(in_family(family, scenario(
        "settled-code-run-last-settled-task-every-message-in-the-window",
        "a programmatic run is the last settled task, every message in the window", CALLER_TAGS, settled, live, 30,
        declare_tasks=True)))
    seed = "ptc-window-cuts"
    settled = settled_history(seed)
    settled.insert(1, programmatic_task(seed, regions, rounds=2))
    keep = len(settled[2]) + len(settled[3]) + 3  # the edge inside the run: the window opens after it
    out.append(in_family(family, scenario(
        f"window-edge-inside-a-settled-code-run-window-{keep}",
        f"the window's edge falls inside a settled programmatic run (window {keep}): the run goes whole",
        CALLER_TAGS, settled, [user("Email the Q3 totals to finance."),
                               *step(seed, 0, "send_email", {"to": "finance@example.com"}, "sent")], keep,
        declare_tasks=True)))
    seed = "ptc-in-flight"
    live = [user("Which region sold most in Q3?"), *programmatic_turns(seed, regions, rounds=2)]
    out.append(in_family(family, scenario(
        "code-run-in-flight-ends-on-the-results-of-its-second-calls-window-2",
        "a programmatic run in flight, ending on the results of the code's second calls, window 2",
        CALLER_TAGS, settled_history(seed), live, 2, declare_tasks=True)))
    seed = "ptc-in-flight-waiting"
    live = [user("Which region sold most in Q3?"), *programmatic_turns(seed, regions)]
    waiting = toolu(f"{seed}:waiting")
    server_id = srvtoolu(f"{seed}:code")
    live.append(assistant([tool_use(waiting, "query_sales", {"region": "latam", "quarter": "Q3"},
                                    caller=caller(server_id))]))
    out.append(in_family(family, scenario(
        "code-run-in-flight-a-call-of-the-code-awaits-its-result-window-2",
        "a programmatic run in flight whose code's newest call awaits its result, window 2", CALLER_TAGS,
        settled_history(seed), live, 2, unanswered=(waiting,), declare_tasks=True)))
    seed = "ptc-beside-direct"
    settled = settled_history(seed)
    task = programmatic_task(seed, regions)
    direct = toolu(f"{seed}:direct")
    task[1] = assistant([*task[1]["content"], tool_use(direct, "read_file", {"path": "reports/q3.md"},
                                                       caller={"type": "direct"})])
    task[2] = user([*task[2]["content"], tool_result(direct, "# Q3 report (draft)")])
    settled.insert(2, task)
    live = [user("Add the winner to the Q3 report."),
            *step(seed, 0, "edit_file", {"path": "reports/q3.md", "old": "TBD", "new": "AMER"}, "edited")]
    out.append(in_family(family, scenario(
        "settled-code-run-beside-a-direct-call-window-9",
        "a settled programmatic run beside a direct call in one turn, window 9", CALLER_TAGS + ["parallel"],
        settled, live, 9, declare_tasks=True)))
    seed = "ptc-two-runs"
    settled = settled_history(seed)
    settled.insert(1, programmatic_task(f"{seed}:a", ["north", "south"]))
    settled.insert(3, programmatic_task(f"{seed}:b", regions, rounds=2))
    live = [user("Compare both results in one table."),
            *step(seed, 0, "write_file", {"path": "reports/compare.md"}, "written")]
    out.append(in_family(family, scenario(
        "two-settled-code-runs-window-edge-between-them-window-12",
        "two settled programmatic runs, the window's edge between them (window 12)", CALLER_TAGS, settled, live, 12,
        declare_tasks=True)))
    return out


HEADERS = {
    "agent-notices": """\
Background notices as real agents write them: <system-reminder> text blocks beside a request and
after tool results, reminder turns of their own, and a harness's plain-text notice turns, in settled
history and in the task in flight: a compactor that recognises notices by a real agent's marker and
moves them next to the newest message puts one between the newest call and its result. The truth is
how each history was put together.

Generated: do not edit by hand; change tools/generate_agent_shape_specs.py and run it again.
""",
    "programmatic-calls": """\
Programmatic tool calling: client tool uses whose caller names the code-execution server tool use
that made them, in settled history and in flight, the code's result in a later turn: pruning the
server tool use while keeping a call it made is refused by the provider (source tool not found).
The truth is how each history was put together.

Generated: do not edit by hand; change tools/generate_agent_shape_specs.py and run it again.
""",
}


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    for family, built in (("agent-notices", agent_notices()), ("programmatic-calls", programmatic_calls())):
        (folder / f"{family}.yaml").write_text(render(built, HEADERS[family], dump=json_flow), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
