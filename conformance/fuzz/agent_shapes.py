"""Arms of the history strategies for shapes real agents send, beside the house shapes of
``strategies``: notices written the way agents write them, and programmatic tool calls.

- ``agent_notice``: a coding agent's ``<system-reminder>`` text blocks, appended to the user message
  just stored (a request, or a turn of tool results, after its results) or as a user turn of their
  own, and a harness's notice as a plain-text user turn ("Background command ... completed").
- ``programmatic_run``: a code-execution server tool use whose code calls the client's tools: each
  call's ``caller`` names that server tool use, the client answers, the code may call again in a
  later turn, and the code's result comes in an assistant turn after the last results.

Both take the builder of ``strategies`` (its draws and what it placed) and append to its history;
neither decides where a task begins: they stand where the house notice and a tool step stand.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..engine import _blocks as b

Block = dict[str, Any]

REMINDERS: tuple[str, ...] = (
    "The task list has not been updated for a while ({n} items open). Keep it current as you work.",
    "Background shell bash_{n} has new output since you last read it.",
    "The file src/m{n}.py was changed after you read it; read it again before editing.",
)
PLAIN_NOTICES: tuple[str, ...] = (
    'Background command "npm run build" (shell bash_{n}) completed with exit code 0.',
    'Background command "pytest -q" (shell bash_{n}) failed with exit code 1: 2 failed.',
)
CODE_EXECUTION = "code_execution_20250825"
# (form, template): a reminder appended to the user message just stored (half of them), a reminder
# turn, a plain-text notice turn
_FORMS: tuple[tuple[str, str], ...] = (*(("appended", t) for t in REMINDERS * 2), *(("turn", t) for t in REMINDERS),
                                       *(("plain", t) for t in PLAIN_NOTICES))


class Builder(Protocol):
    """What an arm needs of the builder of ``strategies``."""

    history: list[dict[str, Any]]
    features: set[str]
    counter: int

    def chance(self, one_in: int) -> bool: ...
    def pick(self, options: Any) -> Any: ...
    def take(self, nbits: int) -> int: ...
    def words(self) -> str: ...
    def body(self) -> str: ...
    def next_id(self, prefix: str = ...) -> str: ...
    def reasoning(self) -> list[Block]: ...
    def add(self, role: str, content: str | list[Block], **extra: Any) -> None: ...
    def results_turn(self, ids: list[str]) -> None: ...


def reminder(template: str, n: int) -> Block:
    """Returns a ``<system-reminder>`` text block, as a coding agent writes one into a user message."""
    return b.text(f"<system-reminder>\n{template.format(n=n)}\n</system-reminder>")


def agent_notice(builder: Builder) -> None:
    """Writes a notice as a real agent does: a ``<system-reminder>`` block appended to the user
    message just stored (after its results, if it holds any), or a user turn of its own (reminder
    blocks, or a harness's plain-text notice)."""
    builder.features.add("background-notice")
    builder.counter += 1
    n = builder.counter
    last = builder.history[-1] if builder.history else None
    form, template = builder.pick(_FORMS)  # one pick, as the house notice draws: the draws after it keep their place
    if form == "appended" and last is not None and last["role"] == "user":
        content = last["content"]
        blocks = [b.text(content)] if isinstance(content, str) else list(content)
        last["content"] = [*blocks, reminder(template, n)]
    elif form == "plain":
        builder.add("user", template.format(n=n))
    else:
        builder.add("user", [reminder(template, n)])


def caller(server_id: str) -> dict[str, str]:
    """Returns the ``caller`` of a client call made by code running in server tool use ``server_id``."""
    return {"type": CODE_EXECUTION, "tool_id": server_id}


def programmatic_run(builder: Builder) -> None:
    """Appends a programmatic run as one step: the code's server tool use and the calls it made
    (each ``caller`` naming it), their results, sometimes a second turn of calls by the same code,
    then an assistant turn holding the code's result alone (no text: it answers nothing yet)."""
    builder.features.update({"programmatic-call", "server-tool", "tool-use"})
    server_id = builder.next_id("srvtoolu_01")
    lead = builder.reasoning()
    if builder.chance(2):
        lead.append(b.text(builder.words()))
    lead.append({"type": "server_tool_use", "id": server_id, "name": "code_execution",
                 "input": {"code": f"for arg in range({1 + builder.take(2)}):\n    print(await read_file(arg))"}})
    for turn in range(1 + builder.take(1)):
        ids = [builder.next_id() for _ in range(1 + builder.take(1))]
        if len(ids) > 1:
            builder.features.add("parallel")
        calls = [b.tool_use(i, "read_file", builder.take(7), {"caller": caller(server_id)}) for i in ids]
        builder.add("assistant", (lead if turn == 0 else []) + calls)
        builder.results_turn(ids)
    builder.add("assistant", [{"type": "code_execution_tool_result", "tool_use_id": server_id, "content": {
        "type": "code_execution_result", "stdout": builder.body(), "stderr": "", "return_code": 0, "content": []}}])
