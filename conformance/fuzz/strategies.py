"""Hypothesis strategies for compaction histories whose truth is known by construction.

``histories()`` draws a ``Scenario``: settled tasks, then (or not) one task in flight, each task a
request, steps of tool calls and results, and an answer. The builder records where the task in
flight starts and which calls it left unanswered as it places them; nothing here reads the
finished history back to find its boundary. Use it in your own tests::

    from hypothesis import given
    from conformance.fuzz.strategies import histories

    @given(histories())
    def test_my_compactor(scenario): ...

Shapes no boundary rule can decide from the history alone (tasks interleaved, a store that lost
the order) are drawn only with ``undecidable=True`` and always carry ``refusal_allowed``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from contextvars import ContextVar
from typing import Any, TypeVar

from hypothesis import strategies as st

from ..engine import _blocks as b
from ..engine.spec import Expectations, Truth
from .agent_shapes import agent_notice, programmatic_run
from .generated import GeneratedScenario

Message = dict[str, Any]
_NAMES = ("read_file", "grep", "run_command", "edit_file", "list_dir")
_KEEP_TURNS = (0, 1, 2, 3, 4, 6, 8, 10, 12, None)
_WORD = st.binary(min_size=32, max_size=32)  # 256 decision bits, near uniform; zero bytes shrink simplest
_NEW_KIND = st.integers(0, 3).map(lambda n: n == 3)  # a server tool of a later or made-up kind: one in four
_MORE = st.integers(0, 2)  # another task or step unless 0: a list the shrinker can cut element by element
T = TypeVar("T")


_BUILDER: ContextVar[_Builder] = ContextVar("conformance_history_builder")


def _spanned(action: Callable[[_Builder], Any]) -> st.SearchStrategy[Any]:
    """Returns a strategy that runs ``action`` on the history being drawn as one span, so the
    shrinker can drop a whole task or step. Made once: a strategy is not free to build."""
    @st.composite
    def span(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Any:
        builder = _BUILDER.get()
        outer, builder.draw = builder.draw, draw
        try:
            return action(builder)
        finally:
            builder.draw = outer
    return span()


def characters(messages: list[Message]) -> int:
    """Returns the length of the messages as compact JSON, the unit budgets are stated in."""
    return sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in messages)


def estimate_tokens(messages: list[Message]) -> int:
    """Returns the token estimate the scenario format states: compact-JSON characters over 4."""
    return characters(messages) // 4


@dataclass
class _Builder:
    """Appends messages for one drawn history and remembers what it placed."""

    draw: Callable[[st.SearchStrategy[Any]], Any]
    max_steps: int
    history: list[Message] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    counter: int = 0
    word: int = 0
    left: int = 0
    undecidable: bool = False
    misplaced: bool = False  # a notice stands between a call and its result: a target may decline
    continuations: list[int] = field(default_factory=list)  # settled continuations of paused turns

    # --- draws: one 64-bit word per message, read a few bits per decision ---------------------
    def fresh(self) -> None:
        """Starts the decisions of a new message on a freshly drawn word (all zero: the simplest)."""
        self.word, self.left = int.from_bytes(self.draw(_WORD), "little"), 256

    def take(self, nbits: int) -> int:
        """Returns the next ``nbits`` bits of the current word, drawing another when it runs out."""
        if self.left < nbits:
            self.fresh()
        value = self.word & ((1 << nbits) - 1)
        self.word >>= nbits
        self.left -= nbits
        return value

    def chance(self, one_in: int) -> bool:
        """Returns True with probability 1/``one_in`` (a power of two); shrinks to False."""
        nbits = one_in.bit_length() - 1
        return self.take(nbits) == one_in - 1

    def pick(self, options: Sequence[T]) -> T:
        """Returns one of ``options``; the first when the bits are zero."""
        return options[self.take(5) % len(options)]

    def words(self) -> str:
        return self.pick(b.SEEDS)

    def body(self) -> str:
        """Returns a tool output: short, or 2-40 KB built from one repeated seed."""
        seed = self.words()
        if self.chance(8):
            return b.big_text(seed, 2048 + self.take(16) % 38913)
        return seed

    def next_id(self, prefix: str = "toolu_01") -> str:
        self.counter += 1
        return f"{prefix}{self.counter:06d}GenXq4T"

    def add(self, role: str, content: str | list[dict[str, Any]], **extra: Any) -> None:
        self.history.append({"role": role, "content": content, **extra})

    # --- blocks ---------------------------------------------------------------------------------
    def reasoning(self) -> list[dict[str, Any]]:
        kind = self.take(2)  # none, thinking, redacted, both
        out: list[dict[str, Any]] = []
        if kind in (1, 3):
            self.counter += 1
            out.append(b.thinking(self.words(), self.counter))
            self.features.add("thinking")
        if kind in (2, 3):
            self.counter += 1
            out.append(b.redacted_thinking(self.counter))
            self.features.add("redacted-thinking")
        return out

    def extras(self) -> dict[str, Any] | None:
        if self.chance(8):
            self.features.add("unknown-field")
            return dict(self.pick(b.UNKNOWN_FIELDS))
        return None

    def future_block(self) -> list[dict[str, Any]]:
        if self.chance(8):
            self.features.add("unknown-block")
            return [dict(self.pick(b.FUTURE_BLOCKS))]
        return []

    def cache(self) -> bool:
        if self.chance(8):
            self.features.add("cache-control")
            return True
        return False

    def server_kind(self) -> int | b.ServerKind:
        """Returns a server tool kind: one of the four built in (0-3) three times in four, else one
        added later or a made-up one no list of kinds can know (its name drawn from parts, sometimes
        with a use type of its own). Whether the kind is a new one is a draw of its own, so the
        built-in kinds read the bits they always read: real defects hang on their result shapes, and
        halving them lost the fuzzer broken compactors (``benchmarks/kill_rate.py --held-out``)."""
        if not self.draw(_NEW_KIND):
            return self.take(2)
        self.features.add("unknown-block")
        if self.chance(2):
            return self.pick(b.LATER_SERVER_KINDS)
        return b.made_up_kind(self.pick(b.MADE_UP_STEMS), self.pick(b.MADE_UP_ACTIONS),
                              20260101 + self.take(10), self.chance(4))

    def server_id(self, kind: int | b.ServerKind) -> str:
        return self.next_id("mcptoolu_01" if kind == 3 else "srvtoolu_01")

    def server_pair(self) -> list[dict[str, Any]]:
        """Returns a server tool use answered in the same turn, or nothing."""
        if not self.chance(8):
            return []
        self.features.add("server-tool")
        kind = self.server_kind()
        use_id = self.server_id(kind)
        return [b.server_use(use_id, kind, self.words()), b.server_result(use_id, kind, self.body())]

    def compaction(self) -> dict[str, Any]:
        """Returns a compaction block: plain, encrypted and signed, or failed; rarely with an id."""
        self.features.add("compaction")
        self.counter += 1
        block_id = f"cmpct_01{self.counter:06d}GenXq4T" if self.chance(4) else None
        return b.compaction(self.words(), encrypted=self.take(2) % 3, block_id=block_id)

    def prose(self, reasoning: list[dict[str, Any]]) -> dict[str, Any]:
        """Returns an assistant text block; beside reasoning, sometimes one of 2-24 KB."""
        if reasoning and self.chance(8):
            self.features.add("large-text")
            return b.text(b.big_text(self.words(), 2048 + self.take(15) % 22529))
        return b.text(self.words())

    def notice(self) -> None:
        """Appends a background-task notice: a user text message a harness stored while work ran, or
        half the time one written as a real agent writes it (``agent_shapes.agent_notice``)."""
        if self.counter % 2:  # decided by what was placed, no bits: the other arms draw as before
            return agent_notice(self)
        self.features.add("background-notice")
        self.counter += 1
        self.add("user", [b.text(b.notice(self.pick(b.BACKGROUND_NOTICES), self.counter))])

    # --- messages -------------------------------------------------------------------------------
    def request(self) -> None:
        if not self.chance(4):
            self.add("user", self.words())
            return
        content = [b.text(self.words(), cache=self.cache(), extra=self.extras())]
        if self.chance(4):
            content.append(b.image())
        if self.chance(4):
            content.append(b.document(self.body(), "notes.txt"))
            self.features.add("citations")
        self.add("user", content + self.future_block())

    def call_turn(self, lead: list[dict[str, Any]] | None = None) -> list[str]:
        """Appends an assistant turn with one or more client calls; returns their ids."""
        content = lead if lead is not None else self.reasoning()
        if self.chance(16):  # threshold compaction inside the tool loop
            content.append(self.compaction())
        if self.chance(4):
            content.append(self.prose([x for x in content if x.get("type") in ("thinking", "redacted_thinking")]))
        content += self.server_pair() + self.future_block()
        ids = [self.next_id() for _ in range(1 + self.take(2) % 3)]
        if len(ids) > 1:
            self.features.add("parallel")
        content += [b.tool_use(i, self.pick(_NAMES), self.take(7), self.extras())
                    for i in ids]
        self.features.add("tool-use")
        self.add("assistant", content)
        return ids

    def results_turn(self, ids: list[str]) -> None:
        orders = list(itertools.permutations(ids))
        order = orders[self.take(3) % len(orders)]
        content = []
        for use_id in order:
            shape = self.take(3) % 5
            error = self.chance(8)
            content.append(b.tool_result(use_id, self.body(), shape=shape, error=error, cache=self.cache()))
        if self.chance(8):
            content.append(b.text(self.words()))  # a result turn with user text is still a result turn
        self.add("user", content)

    def progress_note(self) -> None:
        self.features.add("progress-note")
        self.add("assistant", self.reasoning() + [b.text(self.words())])

    def paused_turn(self) -> tuple[str, int | b.ServerKind]:
        """Appends a turn paused on an open server tool use; returns its id and kind."""
        self.features.update({"pause-turn", "server-tool"})
        kind = self.server_kind()
        use_id = self.server_id(kind)
        content = self.reasoning()
        if self.chance(2):
            content.append(b.text(self.words()))
        self.add("assistant", content + [b.server_use(use_id, kind, self.words())])
        return use_id, kind

    def answer(self) -> None:
        """Appends a final answer: text, no client call, every server use answered."""
        self.fresh()
        if self.chance(2):
            if self.chance(4):  # the continuation of a paused turn carries the answer
                use_id, kind = self.paused_turn()
                self.continuations.append(len(self.history))
                if self.chance(4):  # the continuation pauses again, on a second use
                    again = self.server_id(kind)
                    self.add("assistant", [b.server_result(use_id, kind, self.body()),
                                           b.server_use(again, kind, self.words())])
                    use_id = again
                self.add("assistant", [b.server_result(use_id, kind, self.body()), b.text(self.words())])
                return
            self.add("assistant", self.words())
            return
        content = self.reasoning() + self.server_pair()
        if self.chance(8):
            content.append(self.compaction())
        if self.chance(8):
            content.append(self.prose(content[:1] if content and content[0].get("type") in ("thinking",
                                                                                           "redacted_thinking") else []))
        content.append(b.text(self.words(), cache=self.cache(), extra=self.extras()))
        self.add("assistant", content + self.future_block())

    def step(self) -> None:
        """Appends one tool step: a call turn (maybe after a progress note or a paused turn) and its
        results, with background-task notices before, between or after them now and then; or now and
        then a programmatic run (``agent_shapes.programmatic_run``)."""
        self.fresh()
        if self.counter % 16 == 7:  # decided by what was placed, no bits: the other arms draw as before
            return programmatic_run(self)
        if self.chance(16):
            self.notice()
        if self.chance(8):
            self.progress_note()
        if self.chance(8):
            use_id, kind = self.paused_turn()
            ids = self.call_turn([b.server_result(use_id, kind, self.body())])
        else:
            ids = self.call_turn()
        if self.chance(16):
            self.notice()  # between the call and its result: the harness stored it out of place
            self.misplaced = True
        self.results_turn(ids)
        if self.chance(16):
            self.notice()

    def opening(self) -> int:
        """Appends what opens a task (a system message, one or more requests); returns its index."""
        self.fresh()
        start = len(self.history)
        if self.chance(8):
            self.features.add("system-message")
            extra = {"clear_at": "next_user_message"} if self.chance(2) else {}
            self.add("system", self.words(), **extra)
        self.request()
        if self.chance(8):
            for _ in range(1 + self.take(1)):
                self.request()
        return start

    def steps(self) -> None:
        for _ in range(self.max_steps):
            if not self.draw(_MORE):
                return
            self.step()

    def settled_task(self) -> None:
        self.opening()
        if self.chance(8):  # a notice stored beside the request: settled, for a compactor to move or keep
            self.notice()
        self.steps()
        self.answer()


def _preamble(builder: _Builder) -> None:
    """Appends, or not, what a history may open on before any request: a greeting, a compaction turn."""
    builder.fresh()
    kind = builder.take(3) % 6
    if kind == 4:
        builder.add("assistant", builder.words())
    elif kind == 5:
        builder.features.add("compaction")
        builder.add("assistant", [b.compaction(builder.words())])
        builder.add("assistant", builder.words())


def _live_task(builder: _Builder) -> tuple[int, tuple[str, ...], bool]:
    """Appends the last task; returns (live_start, unanswered ids, refusal_allowed)."""
    kind = builder.draw(_LIVE_KINDS if builder.undecidable else _DECIDABLE_KINDS)
    if kind == 0:  # no task in flight
        return len(builder.history), (), False
    start = builder.opening()
    if kind == 4:  # a client prefill: it reads as a final answer, so by the definition nothing is in flight
        builder.features.add("prefill")
        builder.add("assistant", '{"answer": ')
        return len(builder.history), (), False
    builder.features.add("inflight")
    builder.steps()
    if kind == 1:  # waiting for the model after the request or the last results
        return start, (), False
    if kind == 2:  # a call waits for its result
        builder.fresh()
        if builder.chance(4):  # the call is the compaction tool itself
            builder.features.add("compaction-tool")
            use_id = builder.next_id()
            lead = builder.reasoning() + ([b.text(builder.words())] if builder.chance(2) else [])
            builder.add("assistant", lead + [{"type": "tool_use", "id": use_id, "name": "context_compact",
                                              "input": {} if builder.chance(2) else {"keep": "task"}}])
            builder.features.add("tool-use")
            return start, (use_id,), False
        return start, tuple(builder.call_turn()), False
    if kind == 3:  # paused on a server tool
        builder.paused_turn()
        return start, (), False
    if kind == 5:  # interleaved: a call is answered only after two other requests
        builder.features.add("interleaved")
        late = builder.call_turn()
        builder.request()
        builder.answer()
        builder.request()
        builder.results_turn(builder.call_turn() + late)
        return start, (), True
    builder.features.add("reordered")
    if kind == 6:  # the result was stored before its call
        ids = [builder.next_id() for _ in range(1 + builder.take(1))]
        builder.results_turn(ids)
        builder.add("assistant", builder.reasoning() + [b.tool_use(i, "grep", 7) for i in ids])
        return start, (), True
    ids = builder.call_turn()  # the answer was stored before the result it depends on
    builder.answer()
    builder.results_turn(ids)
    builder.features.discard("inflight")
    return len(builder.history), (), True


_SETTLED_TASK = _spanned(_Builder.settled_task)
_LIVE_TASK = _spanned(_live_task)
_LIVE_KINDS, _DECIDABLE_KINDS = st.integers(0, 7), st.integers(0, 4)


def _params(builder: _Builder, live_start: int) -> tuple[dict[str, Any], bool]:
    """Returns drawn parameters and whether they make a refusal acceptable (live work over budget)."""
    params: dict[str, Any] = {}
    keep = builder.draw(st.sampled_from(_KEEP_TURNS))
    edges = [i for i in builder.continuations if i < live_start]
    if edges and builder.draw(st.booleans()):  # the window's edge on a settled continuation of a paused turn
        keep = live_start - builder.draw(st.sampled_from(edges))
    if keep is not None:
        params["keep_turns"] = keep
    mode = builder.draw(st.sampled_from((None, None, "generous", "tight", "squeeze")))
    live, settled = builder.history[live_start:], builder.history[:live_start]
    refusal = False
    if mode == "generous":
        params["budget_tokens"] = estimate_tokens(builder.history) + builder.draw(st.integers(0, 100))
    elif mode == "tight" and estimate_tokens(live) >= 2:
        params["budget_tokens"] = estimate_tokens(live) // 2  # the task in flight alone is over it
        refusal = True
    elif mode == "squeeze" and live:
        spare = builder.draw(st.integers(0, max(0, estimate_tokens(settled))))
        params["budget_tokens"] = estimate_tokens(live) + spare
    if "budget_tokens" in params:
        builder.features.add("budget")
        # the margin rule of the shipped specs: a budget under half the characters of the task in
        # flight is near enough to it that a compactor counting its own way may refuse
        refusal = refusal or params["budget_tokens"] * 2 < characters(live)
    return params, refusal


def scenario_id(history: list[Message], params: dict[str, Any]) -> str:
    """Returns the permanent id of a generated scenario: ``generated.`` and a digest of its data."""
    data = json.dumps([history, params], sort_keys=True, ensure_ascii=False).encode("utf-8")
    return f"generated.h{hashlib.sha256(data).hexdigest()[:12]}"


@st.composite
def histories(draw: Callable[[st.SearchStrategy[Any]], Any], *, max_settled: int = 4, max_steps: int = 5,
              undecidable: bool = False, params: bool = True) -> GeneratedScenario:
    """Returns a strategy of ``Scenario`` objects (family ``generated``) with truth by construction.

    ``max_settled`` settled tasks at most, ``max_steps`` tool steps per task; ``undecidable`` adds
    interleaved and reordered histories (refusal allowed); ``params`` draws ``keep_turns`` and
    ``budget_tokens``.
    """
    builder = _Builder(draw, max_steps, undecidable=undecidable)
    _preamble(builder)
    token = _BUILDER.set(builder)
    try:
        for _ in range(max_settled):
            if not draw(_MORE):
                break
            draw(_SETTLED_TASK)
        live_start, unanswered, refusal = draw(_LIVE_TASK)
    finally:
        _BUILDER.reset(token)
    drawn, over_budget = _params(builder, live_start) if params else ({}, False)
    history = builder.history
    if not history:
        builder.features.add("empty")
    live = len(history) - live_start
    description = (f"generated: {len(history)} messages, task in flight from {live_start} ({live} messages)"
                   if live else f"generated: {len(history)} messages, nothing in flight")
    return GeneratedScenario(
        id=scenario_id(history, drawn), description=description, family="generated", history=history,
        truth=Truth(live_start, unanswered), features=tuple(sorted(builder.features)), params=drawn,
        expect=Expectations(refusal_allowed=refusal or over_budget or builder.misplaced), path="<generated>")
