"""The agent loop: a scenario's history played as the conversation the model produced.

Every assistant turn of a history is an answer the model gave; the loop calls the target before
each of them, keeping the request the agent would send, in the two ways agents keep history:

- ``stateless``: the agent keeps the whole conversation and compacts it before each call;
- ``stateful``: the agent keeps what it sent plus the answer (and the messages that came after it),
  and compacts that.

``prefix_check`` judges the requests as the provider does; the same requests price the prompt
cache (``cache_use``: what each request shares with the one before it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._json import is_mapping
from . import transcript as tx

MODES = ("stateless", "stateful")
Call = Callable[[list[dict[str, Any]]], "Answer"]


@dataclass(frozen=True)
class Answer:
    """What one call of the target gave: the request to send, or why there is none."""

    request: list[Any] | None
    problem: str = ""  # why the call gave no request (it raised, hung, or returned no list)
    timed_out: bool = False
    # what the call fails, ``<invariant id>: <problem>``, when it crashed, hung or returned no
    # readable list ('' for a request or a deliberate refusal)
    failed: str = ""
    not_given: bool = False  # the history could not be given to the target (``target.NotGiven``)
    summarized: tuple[Any, ...] = ()  # the prompts the call gave the harness's summarizer


@dataclass(frozen=True)
class Step:
    """One call of the loop: the request the agent sends before the script's message ``answer``
    (the assistant turn the model gave in reply; ``None`` for the last request, which has none)."""

    number: int  # 1-based, in the order the agent makes them
    answer: int | None
    request: list[Any]
    # why the target declined this call ('' when it compacted): the agent sent its last request and
    # the messages since as they came, which changes no prefix, so the call judges nothing of the target
    declined: str = ""
    summarized: tuple[Any, ...] = ()  # the prompts the call gave the harness's summarizer (they left all the same)


@dataclass(frozen=True)
class CacheUse:
    """What a prompt cache makes of the loop's requests: over every call after the first, the
    characters of canonical JSON sent, those that are a prefix of the previous request (what a
    cache reuses) and the rest (what each call writes to it anew)."""

    calls: int = 0
    sent: int = 0
    reused: int = 0

    @property
    def written(self) -> int:
        """Returns the characters the calls wrote to the cache: sent and not reused."""
        return self.sent - self.reused

    @property
    def share(self) -> float:
        """Returns the share of what was sent that the cache could reuse (1.0 when nothing was sent)."""
        return self.reused / self.sent if self.sent else 1.0

    def __add__(self, other: CacheUse) -> CacheUse:
        return CacheUse(self.calls + other.calls, self.sent + other.sent, self.reused + other.reused)


@dataclass(frozen=True)
class Play:
    """The calls of one mode of the loop over a script, why it stopped early ('' when it did not),
    and what a prompt cache makes of its requests."""

    mode: str
    steps: tuple[Step, ...] = ()
    stopped: str = ""
    timed_out: bool = False
    cache: CacheUse = CacheUse()
    failed: str = ""  # the call that stopped the loop, when it failed (``Answer.failed``), named by number and mode
    summarized: tuple[Any, ...] = ()  # the prompts the call that stopped the loop gave the summarizer

    def prompts(self) -> tuple[Any, ...]:
        """Returns every prompt the loop's calls gave the harness's summarizer, in call order."""
        return (*(prompt for step in self.steps for prompt in step.summarized), *self.summarized)


def cache_use(steps: Sequence[Step]) -> CacheUse:
    """Returns what a prompt cache reuses of each request after the first: its longest common
    prefix with the previous request, as canonical JSON message by message."""
    seen: dict[int, tuple[Any, str]] = {}

    def texts(request: Sequence[Any]) -> list[str]:
        out = []
        for message in request:
            hit = seen.get(id(message))
            if hit is None or hit[0] is not message:
                hit = seen[id(message)] = (message, tx.canonical(message))
            out.append(hit[1])
        return out

    total = CacheUse()
    previous: list[str] | None = None
    for step in steps:
        now = texts(step.request)
        if previous is not None:
            reused = 0
            for a, b in zip(now, previous):
                if a != b:
                    reused += len(os.path.commonprefix([a, b]))
                    break
                reused += len(a)
            total += CacheUse(1, sum(map(len, now)), reused)
        previous = now
    return total


def answer_turns(history: Sequence[Any]) -> list[int]:
    """Returns the indexes of the assistant turns the loop calls the target before: every assistant
    message that has a message of another role before it (leading assistant turns are given)."""
    out: list[int] = []
    seen_other = False
    for index, message in enumerate(history):
        role = message.get("role") if is_mapping(message) else None
        if role == "assistant" and seen_other:
            out.append(index)
        elif role != "assistant":
            seen_other = True
    return out


def play(history: list[dict[str, Any]], mode: str, call: Call, final: Answer | None = None) -> Play:
    """Returns the loop of ``mode`` over ``history``: ``call(messages)`` compacts what the agent
    keeps before each assistant turn and once more at the end (``final``, when given, stands for
    that last stateless call, which is the history itself). The loop stops at the first call that
    gives no request, or whose history could not be given to the target: later turns would answer a
    request the agent could not send (``Play.failed`` names that call when it failed). A call the
    target declines does not stop it: the agent sends its last request and the messages that came
    after it (``Step.declined``), as a stateful agent keeps them, so the refusal changes no prefix
    and the calls after it are judged."""
    turns = answer_turns(history)
    steps: list[Step] = []
    kept: list[Any] = []
    previous = 0
    for number, index in enumerate([*turns, None], start=1):
        end = len(history) if index is None else index
        if mode == "stateless":
            kept = list(history[:end])
        else:
            kept = kept + list(history[previous:end])
        stands_in = final if (index is None and mode == "stateless") else None  # (the run's own call)
        answer = stands_in if stands_in is not None else call(kept)
        request = answer.request
        if request is None and not (answer.failed or answer.timed_out or answer.not_given):  # a deliberate refusal
            request = [*(steps[-1].request if steps else ()), *history[previous:end]]
            steps.append(Step(number, index, request, answer.problem or "declined", answer.summarized))
        elif request is None:
            where = "the last request" if index is None else f"the request before messages[{index}]"
            # (the call ``final`` stands for is judged by the one-call checks already)
            failed = f"call {number} ({mode}, {where}) fails {answer.failed}" if answer.failed and stands_in is None else ""
            return Play(mode, tuple(steps), f"call {number} ({where}) gave no request: {answer.problem}",
                        answer.timed_out, cache_use(steps), failed, answer.summarized if stands_in is None else ())
        else:
            steps.append(Step(number, index, request, summarized=answer.summarized if stands_in is None else ()))
        if index is not None:
            kept = list(request)
            previous = index
    return Play(mode, tuple(steps), cache=cache_use(steps))


def compacted(played: Play) -> bool:
    """Returns whether a call of ``played`` sent a request the target made (not declined)."""
    return any(not step.declined for step in played.steps)


def prompt_cache(observations: Mapping[tuple[str, str], Any]) -> dict[str, dict[str, CacheUse]]:
    """Returns, per target and mode, what a prompt cache makes of the loop's requests over every
    scenario of a run (``observations``: (target, scenario) -> an observation with ``plays``)."""
    out: dict[str, dict[str, CacheUse]] = {}
    for (target, _), obs in observations.items():
        for played in getattr(obs, "plays", ()):
            if played.cache.calls:
                mine = out.setdefault(target, {})
                mine[played.mode] = mine.get(played.mode, CacheUse()) + played.cache
    return out


def cache_line(by_mode: Mapping[str, CacheUse]) -> str:
    """Returns one line of what a prompt cache makes of a target's requests in the agent loop."""
    parts = [f"{mode} {use.share:.0%} reused, {use.written / max(use.calls, 1) / 1000:.1f} kB written a call"
             for mode, use in by_mode.items()]
    return "prompt cache in the agent loop (each request against the one before it): " + "; ".join(parts)


def content_blocks(message: Any) -> list[Any]:
    """Returns a message's blocks (``transcript.blocks``); what is not a message has none."""
    return tx.blocks(message) if is_mapping(message) else []


def block_kind(block: Any) -> Any:
    """Returns a block's ``type`` (``None`` for what is not a mapping)."""
    return block.get("type") if is_mapping(block) else None


def is_thinking(block: Any) -> bool:
    """Returns whether a block is reasoning the provider checks (``thinking`` or ``redacted_thinking``)."""
    return block_kind(block) in tx.REASONING_TYPES


def has_thinking(history: Sequence[Any]) -> bool:
    """Returns whether any message of ``history`` holds a thinking block (else no request can replay one)."""
    return any(is_thinking(b) for m in history for b in content_blocks(m))
