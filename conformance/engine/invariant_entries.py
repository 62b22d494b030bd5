"""The invariant catalog as plain data: each invariant's id, level, one-line statement, and how
the runner treats it (its check is bound to the id in ``conformance.engine.invariants``).

This is the one place an invariant is named. The spec loader reads the ids from here (it cannot
import ``invariants``, which imports the spec layer); ``invariants`` builds its catalog on these
entries, in this order.
"""

from __future__ import annotations

from dataclasses import dataclass

from .results import Level


@dataclass(frozen=True)
class Entry:
    """One invariant. The flags say how the runner records it:

    - ``needs_output``: not run when the call gave no output (a skip naming the crash), nor when the
      output is unreadable (a skip naming the guard);
    - ``reports_crash``: the check of the call itself; its failure is the one error record of a call
      that raised or hung (with the traceback), its pass names a declined call;
    - ``guards_output``: when the output is not a list of readable messages, the checks needing
      output are not run and name this one as what blocked them;
    - ``lists_mutation``: its failure lists what the target changed in its input;
    - ``second_call``: it judges a second call on the output, dropped with ``--no-idempotence``;
    - ``loop``: it judges the requests of the agent loop played over the history (``loop.play``). It
      runs when the last call gave no output too (earlier calls of the loop still sent requests), and
      is not run when the loop sent none or the output is unreadable;
    - ``prefix_check``: it is the provider's prefix check of replayed thinking, dropped with
      ``--models older``;
    - ``reports_loop``: its failure names a call of the agent loop that crashed, hung or returned no
      readable list (``loop.Play.failed``), and it runs when such a call was the loop's first.
    """

    id: str
    level: Level
    statement: str
    needs_output: bool = True
    reports_crash: bool = False
    guards_output: bool = False
    lists_mutation: bool = False
    second_call: bool = False
    loop: bool = False
    prefix_check: bool = False
    reports_loop: bool = False


ENTRIES: tuple[Entry, ...] = (
    Entry("call.completes", "MUST", "The target returns within the time limit without raising, "
          "unless the scenario allows a refusal; a programming error (IndexError, KeyError, TypeError...) "
          "is a crash, never a refusal.", needs_output=False, reports_crash=True),
    Entry("input.unmutated", "MUST", "The history passed in is left exactly as it was, as JSON: types kept "
          "(0, 0.0 and false differ), a list still a list; by every call, and after it returned.",
          needs_output=False, lists_mutation=True),
    Entry("output.well-formed", "MUST", "The output is a list of messages with a role and non-empty "
          "content of typed blocks: no blank text, every tool use with an id, a name and an object input, "
          "every tool result with a tool_use_id, no block of a type the Messages API does not take unless the "
          "history holds that type; defects the input already had aside; at most twice the input's messages and "
          "16 more.", guards_output=True),
    Entry("live.untouched-suffix", "MUST", "The task in flight ends the output unchanged: every message, "
          "block and field, in order, as JSON with types kept."),
    Entry("tools.results-answer-previous", "MUST", "Every tool result answers a tool use of the message "
          "just before it."),
    Entry("tools.uses-answered-next", "MUST", "Every tool use before the last message is answered in the "
          "next message."),
    Entry("tools.unanswered-kept", "MUST", "Every call the scenario declares unanswered in the task in "
          "flight comes back unchanged; one the history ends on stays in the output's last assistant turn."),
    Entry("tools.results-first", "MUST", "In a message with tool results, the results come before any "
          "other block."),
    Entry("reasoning.kept-intact", "MUST", "Every reasoning block in the output is byte-identical to one "
          "of the input."),
    Entry("tools.server-results-kept", "MUST", "Every server tool use in the output keeps its result "
          "(any block whose tool_use_id names it, whatever its type) after it in the same assistant message "
          "or in the continuation just after it, and every such result has its use there; pairs the input "
          "already left open aside."),
    Entry("tools.caller-use-kept", "MUST", "Every client tool use whose `caller` names a server tool use "
          "(`caller.tool_id`: a call made by code the server ran, programmatic tool calling) has that server "
          "tool use before it in the output (the provider refuses a call whose source tool is not found); "
          "calls the input already left without it aside."),
    Entry("opaque.kept-intact", "MUST", "Every opaque block the provider owns in the output (compaction, "
          "redacted_thinking, any other block holding encrypted_content or a signature outside a tool input, "
          "or a top-level data string) "
          "is byte-identical to one of the input, with or without an id."),
    Entry("reasoning.live-preserved", "MUST", "No reasoning block of the task in flight is removed."),
    Entry("assistant.no-trailing-reasoning", "MUST", "No rewritten assistant message ends with a reasoning "
          "block."),
    Entry("assistant.reasoning-leads", "MUST", "A rewritten assistant message that holds reasoning opens "
          "with it."),
    Entry("thinking.replayed-intact", "MUST", "In the agent loop (the target called before every assistant "
          "turn, stateless and stateful), every thinking block a request sends back is byte-identical to one the "
          "model produced earlier in the conversation.", needs_output=False, loop=True, prefix_check=True),
    Entry("thinking.prefix-unchanged", "MUST", "In the agent loop, what precedes a replayed thinking block "
          "(every earlier message and the blocks before it; key order, cache_control and reasoning aside) is what "
          "preceded it in the request that produced it; after a compaction block, only what follows it is "
          "compared.", needs_output=False, loop=True, prefix_check=True),
    Entry("thinking.chain-unbroken", "MUST", "In the agent loop, the thinking blocks before a replayed one are "
          "an unbroken tail of those that preceded it when it was produced: leading ones may go, none from the "
          "middle, none put back.", needs_output=False, loop=True, prefix_check=True),
    Entry("loop.every-call", "MUST", "Every call of the agent loop, stateless and stateful, completes and "
          "returns a readable list of messages (at a deliberate refusal the agent sends its last request and the "
          "messages since, and the loop goes on); every one-call MUST invariant holds at every call too, each "
          "call judged with the truth of its own task: where a scenario declares where every task begins "
          "(truth.tasks), at every call; on one that holds thinking, at each call of its task in flight, from its declared start, or "
          "later where the call's request ends with a turn that settles after it (a progress note), unless it allows "
          "a refusal (its order hides where its tasks begin). A call "
          "that sends its request as it was given is not judged again.",
          needs_output=False, loop=True, reports_loop=True),
    Entry("reasoning.not-transcribed", "MUST", "The output adds no text that holds the text of a thinking block "
          "or the data of a redacted_thinking block of the history (20 characters or more), whole or an excerpt "
          "of 47 characters or more, outside a reasoning block: the provider refuses reasoning sent back as prompt "
          "text (reasoning extraction), and it is a way out for reasoning."),
    Entry("summary.no-reasoning", "MUST", "A target that declares a summarizer (a `summarize` keyword, "
          "given the harness's recording stand-in) never gives it reasoning: nothing any call gives it (the run's, "
          "the call on its output, each call of the agent loop; the prompt, any other argument or keyword value, "
          "bytes read as UTF-8) holds the text of a thinking block or the data of a redacted_thinking block, whole "
          "or an excerpt of 47 characters or more (the provider refuses it as reasoning extraction, and it is a "
          "way out for reasoning)."),
    Entry("reasoning.latest-turn-intact", "SHOULD", "When the history ends on an assistant turn that "
          "reasoned, the output ends on that turn unchanged."),
    Entry("blocks.no-silent-drop", "SHOULD", "A message that is kept keeps every block that is not "
          "reasoning, known type or not."),
    Entry("blocks.fields-preserved", "SHOULD", "A block that is kept keeps every field it had."),
    Entry("output.idempotent", "SHOULD", "Compacting the output again returns it unchanged.",
          second_call=True),
    Entry("reference.exact-output", "REFERENCE", "The reference returns exactly the output (or raises "
          "exactly the error) the scenario states.", needs_output=False),
)

INVARIANT_IDS: frozenset[str] = frozenset(entry.id for entry in ENTRIES)


def the_one(flag: str) -> Entry:
    """Returns the one entry whose ``flag`` is set; raises ``LookupError`` unless exactly one is."""
    found = [entry for entry in ENTRIES if getattr(entry, flag)]
    if len(found) != 1:
        raise LookupError(f"{len(found)} invariants are {flag}; the runner needs exactly one")
    return found[0]
