"""Griptape's ``ConversationMemory``: the runs of a conversation an agent replays ahead of its current
task, cut to the last ``max_runs`` runs, or pruned by ``add_to_prompt_stack`` (autoprune) until the
prompt fits the prompt driver's input tokens.

Griptape keeps a finished task as one ``Run``: its input (the request's text) and its output (the
final answer's text); the tool calls made on the way are not in its memory. So each settled turn (a
user request and all that answers it) becomes a ``Run`` of the request's text blocks and the turn's
last assistant text (a turn lacking either has no run: Griptape records finished tasks alone, so
such a turn is not in its memory); the last turn is the current task, sent after the memory as it is. Each run the
memory replays is given back as the request message (its text blocks) and an assistant message of
the run's output, in the order of the prompt stack Griptape builds.
"""

from __future__ import annotations

from typing import Any

from ._mapping import History, blocks_of, result_text, text_of
from .base import Peers

LIBRARY = "griptape"
MODULE = "griptape.memory.structure"
PEERS = Peers(LIBRARY, MODULE)


def _is_request(message: dict[str, Any]) -> bool:
    """Returns whether the message is a user request (a user message answering no tool call)."""
    return message["role"] == "user" and all(b.get("type") != "tool_result" for b in blocks_of(message))


def _turns(history: History) -> list[History]:
    """Returns the history cut before each user request (the first turn holds what precedes the first)."""
    turns: list[History] = []
    for message in history:
        if not turns or _is_request(message):
            turns.append([])
        turns[-1].append(message)
    return turns


def _run(turn: History) -> Any:
    """Returns the ``Run`` Griptape keeps of a finished turn (the request's text, the last answer's
    text), or None for a turn without both: Griptape records a run only for a task it finished."""
    from griptape.artifacts import TextArtifact
    from griptape.memory.structure import Run

    asked = text_of(blocks_of(turn[0])) if _is_request(turn[0]) else ""
    answers = [text_of(blocks_of(m)) for m in turn if m["role"] == "assistant"]
    answers = [a for a in answers if a]
    if not asked or not answers:
        return None
    return Run(input=TextArtifact(asked), output=TextArtifact(answers[-1]))


def _recorded(turns: list[History]) -> list[History]:
    """Returns the settled turns Griptape keeps a run of, in order."""
    return [turn for turn in turns[:-1] if _run(turn) is not None]


def _memory(turns: list[History], **settings: Any) -> Any:
    """Returns a ``ConversationMemory`` (stored nowhere) holding one run per settled turn, added in order."""
    from griptape.drivers.memory.conversation.local import LocalConversationMemoryDriver
    from griptape.memory.structure import ConversationMemory

    memory = ConversationMemory(conversation_memory_driver=LocalConversationMemoryDriver(persist_file=None),
                                autoload=False, **settings)
    for turn in _recorded(turns):
        memory.add_run(_run(turn))
    return memory


def _only_text(message: dict[str, Any]) -> bool:
    """Returns whether every block of the message is text."""
    return all(b.get("type") == "text" for b in blocks_of(message))


def _replayed(stack_messages: list[Any], turns: list[History]) -> History:
    """Returns the runs Griptape replays (its prompt stack's user and assistant messages, a pair per
    run, the last runs of the settled turns) as Anthropic messages: a source message whose blocks are
    all text and whose text is the run's is given back whole, anything else as the text Griptape sends."""
    settled = _recorded(turns)
    kept = settled[len(settled) - len(stack_messages) // 2:] if stack_messages else []
    out: History = []
    for turn, (asked, answered) in zip(kept, zip(stack_messages[::2], stack_messages[1::2], strict=True),
                                       strict=True):
        request = turn[0]
        out.append(request if _only_text(request) and text_of(blocks_of(request)) == asked.to_text()
                   else {"role": "user", "content": asked.to_text()})
        answers = [m for m in turn if m["role"] == "assistant" and text_of(blocks_of(m))]
        last = answers[-1] if answers else None
        out.append(last if last is not None and _only_text(last) and text_of(blocks_of(last)) == answered.to_text()
                   else {"role": "assistant", "content": answered.to_text()})
    return out


@PEERS.add("griptape.ConversationMemory.max_runs", "ConversationMemory",
           "max_runs=keep_turns (default 10), autoprune off; one run per settled turn")
def max_runs(history: History, keep_turns: int = 10) -> History:
    """``ConversationMemory(max_runs=keep_turns)``: the last ``keep_turns`` runs, then the current task."""
    turns = _turns(history)
    if not turns:
        return []
    memory = _memory(turns, max_runs=max(1, keep_turns), autoprune=False)
    return _replayed(memory.to_prompt_stack().messages, turns) + turns[-1]


@PEERS.add("griptape.ConversationMemory.autoprune", "ConversationMemory.add_to_prompt_stack",
           "autoprune=True, SimpleTokenizer(characters_per_token=4, max_input_tokens=budget_tokens (default "
           "200)); one run per settled turn")
def autoprune(history: History, budget_tokens: int = 200) -> History:
    """``add_to_prompt_stack`` with autoprune: the most recent runs that leave input tokens over once
    the current task is counted, then the current task."""
    from griptape.common import PromptStack
    from griptape.drivers.prompt.dummy import DummyPromptDriver
    from griptape.tokenizers import SimpleTokenizer

    turns = _turns(history)
    if not turns:
        return []
    memory = _memory(turns, autoprune=True)
    stack = PromptStack()
    for message in turns[-1]:  # the current task as text, for Griptape to count
        text = "\n".join([text_of(blocks_of(message))]
                         + [result_text(b.get("content")) for b in blocks_of(message) if b.get("type") == "tool_result"])
        (stack.add_user_message if message["role"] == "user" else stack.add_assistant_message)(text)
    current = len(stack.messages)
    driver = DummyPromptDriver(tokenizer=SimpleTokenizer(characters_per_token=4, max_input_tokens=max(1, budget_tokens)))
    memory.add_to_prompt_stack(driver, stack, index=0)
    return _replayed(stack.messages[:len(stack.messages) - current], turns) + turns[-1]
