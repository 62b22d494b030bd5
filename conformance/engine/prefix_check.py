"""The provider's prefix check of the thinking each request of the agent loop replays.

A thinking block (``thinking`` or ``redacted_thinking``) is born in the request that produced it.
Current Claude models check every such block sent back against that birth (the research note
``preserved-thinking.md`` and https://platform.claude.com/docs/en/build-with-claude/preserved-thinking):

- the block comes back byte-identical (``thinking.replayed-intact``);
- what precedes it (every earlier message and the blocks before it in its message; key order and
  ``cache_control`` aside, reasoning aside) is what preceded it when it was produced
  (``thinking.prefix-unchanged``);
- the thinking blocks before it are an unbroken tail of the ones that preceded it then: leading
  removals are allowed, a gap, an insertion or a block put back after removal are not
  (``thinking.chain-unbroken``).

The newest ``compaction`` block before a block restarts both comparisons: only what follows it is
compared. Nothing here asks where a task begins: the check is the provider's, and it is judged from
what was sent and what was answered alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._json import is_mapping
from . import transcript as tx
from .loop import Play, Step, answer_turns, block_kind, content_blocks, is_thinking

WHAT_THE_PROVIDER_DOES = ("current Claude models (Fable, Mythos 5.1+; Opus, Sonnet, Haiku 5.5) answer a 400 "
                          "(\"bound to a different conversation\"), or under drop_block drop it and later thinking")
FIX = ("fix: change settled history only at a task boundary, strip reasoning from the turns kept past "
       "the change, or let the API compact")


class Problem:
    """A replayed thinking block that fails one part of the prefix check: its invariant, and the
    ``message`` saying how, written when first read (a long loop's failures are mostly counted, not
    quoted, and naming the first change of a prefix walks both requests)."""

    __slots__ = ("_message", "_write", "invariant")

    def __init__(self, invariant: str, message: str | Callable[[], str]) -> None:
        self.invariant = invariant
        self._message: str | None = message if isinstance(message, str) else None
        self._write: Callable[[], str] | None = None if isinstance(message, str) else message

    @property
    def message(self) -> str:
        """Returns the failure in words."""
        if self._message is None:
            assert self._write is not None
            self._message, self._write = self._write(), None
        return self._message

    def __repr__(self) -> str:
        return f"Problem({self.invariant!r}, {self.message!r})"


def _without_cache_control(value: Any) -> Any:
    if is_mapping(value):
        return {k: _without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_control(v) for v in value]
    return value


def _normal(block: Any) -> str:
    """Returns a block's canonical JSON with every ``cache_control`` key left out."""
    text = tx.canonical(block)
    return tx.canonical(_without_cache_control(block)) if '"cache_control"' in text else text


def identity(block: Mapping[str, Any]) -> str:
    """Returns what names a thinking block: its ``signature`` (``thinking``) or ``data``
    (``redacted_thinking``), or its canonical JSON when it has neither."""
    key = block.get("signature") if block.get("type") == "thinking" else block.get("data")
    return f"{block.get('type')}:{key}" if isinstance(key, str) and key else tx.canonical(block)


_MOD = (1 << 61) - 1  # prefixes compare by a polynomial hash of their items: O(1) for any span
_BASE = 1_000_003


@dataclass(frozen=True)
class Item:
    """One unit of a prefix, in the check's normal form: a message's role, or one of its blocks
    that is not reasoning (key order and ``cache_control`` aside), and where it stands."""

    text: str
    message: int  # its message in its request (or, past the end, the answer)
    block: int | None


@dataclass
class _Walk:
    """What precedes each block of a message list, item by item (to name a change): the items so
    far, and how many of them the newest compaction block ends."""

    items: list[Item] = field(default_factory=list)
    restart: int = 0


def _walk(messages: Sequence[Any]) -> Iterator[tuple[int, int, Any, _Walk]]:
    """Yields ``(message, block, block, walk)`` for every block, ``walk`` holding what precedes it."""
    walk = _Walk()
    for i, message in enumerate(messages):
        role = message.get("role") if is_mapping(message) else None
        opened = False
        for j, block in enumerate(content_blocks(message)):
            yield i, j, block, walk
            if is_thinking(block):
                continue
            if not opened:
                walk.items.append(Item(f"role:{role}", i, None))
                opened = True
            walk.items.append(Item(_normal(block), i, j))
            if block_kind(block) == "compaction":
                walk.restart = len(walk.items)


@dataclass(frozen=True)
class Birth:
    """Where a thinking block was produced: the hash and length of what preceded it then (from the
    newest compaction block on), the chain of thinking before it, and the messages it stood in
    (``source``, its own last) to name a change."""

    step: int
    answer: int
    block: int
    produced: str  # its canonical JSON as the model gave it
    hash: int
    length: int
    chain: tuple[str, ...]
    source: tuple[Any, ...]

    def prefix(self, walks: _Walks) -> list[Item]:
        """Returns the items that preceded the block when it was produced (from the newest
        compaction block on)."""
        return walks.before(self.source, len(self.source) - 1, self.block)


class _Walks:
    """Each message list's ``_walk``, made once for all its blocks (a change is named for every
    block a broken request replays, each against the same list)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Sequence[Any], list[Item], dict[tuple[int, int], tuple[int, int]]]] = {}

    def before(self, messages: Sequence[Any], i: int, j: int, whole: bool = False) -> list[Item]:
        """Returns the items that precede block ``j`` of ``messages[i]``, from the newest compaction
        block before it on (all of them when there is no such block, or ``whole``)."""
        hit = self._seen.get(id(messages))
        if hit is None or hit[0] is not messages:
            items: list[Item] = []
            spans: dict[tuple[int, int], tuple[int, int]] = {}
            for mi, mj, _, walk in _walk(messages):
                items = walk.items
                spans[(mi, mj)] = (walk.restart, len(walk.items))
            hit = self._seen[id(messages)] = (messages, items, spans)  # held: its id is not reused meanwhile
        restart, count = hit[2].get((i, j), (0, 0))
        return hit[1][0 if whole else restart:count]

    def compaction(self, messages: Sequence[Any], i: int, j: int) -> str | None:
        """Returns the normal form of the newest compaction block before block ``j`` of
        ``messages[i]`` (None when there is none)."""
        self.before(messages, i, j)
        restart, _ = self._seen[id(messages)][2].get((i, j), (0, 0))
        return self._seen[id(messages)][1][restart - 1].text if restart else None


# --- the check's fast path: each message's part of a prefix hash, computed once per message object --

_POWERS = [1]


def _power(n: int) -> int:
    """Returns ``_BASE ** n`` modulo ``_MOD``."""
    while len(_POWERS) <= n:
        _POWERS.append(_POWERS[-1] * _BASE % _MOD)
    return _POWERS[n]


# a message in the check's normal form: ("items", hash, count) for a run of items (its role first),
# ("think", block index, identity, block, its canonical JSON) for a thinking block, ("restart",) after a compaction block
_Event = tuple[Any, ...]


def _events(message: Any) -> tuple[_Event, ...]:
    out: list[_Event] = []
    role = message.get("role") if is_mapping(message) else None
    run_hash, run_len, opened = 0, 0, False
    for j, block in enumerate(content_blocks(message)):
        if is_thinking(block):
            if run_len:
                out.append(("items", run_hash, run_len))
                run_hash, run_len = 0, 0
            out.append(("think", j, identity(block), block, tx.canonical(block)))
            continue
        texts = [] if opened else [f"role:{role}"]
        opened = True
        texts.append(_normal(block))
        for text in texts:
            run_hash, run_len = (run_hash * _BASE + (hash(text) & _MOD)) % _MOD, run_len + 1
        if block_kind(block) == "compaction":
            out.append(("items", run_hash, run_len))
            run_hash, run_len = 0, 0
            out.append(("restart",))
    if run_len:
        out.append(("items", run_hash, run_len))
    return tuple(out)


@dataclass
class _Scan:
    """A request read message by message: the hash and count of its items so far, the thinking
    chain, and the same three just after the newest compaction block."""

    seen: dict[int, tuple[Any, tuple[_Event, ...]]]
    hash: int = 0
    length: int = 0
    chain: list[str] = field(default_factory=list)
    restart: tuple[int, int, int] = (0, 0, 0)  # hash, length, chain length after the newest compaction

    def events(self, message: Any) -> tuple[_Event, ...]:
        """Returns ``_events(message)``, once per message object (calls often send the same objects)."""
        hit = self.seen.get(id(message))
        if hit is None or hit[0] is not message:
            hit = self.seen[id(message)] = (message, _events(message))  # held: its id is not reused meanwhile
        return hit[1]

    def span(self) -> tuple[int, int]:
        """Returns the hash and count of the items since the newest compaction block."""
        r_hash, r_len, _ = self.restart
        n = self.length - r_len
        return (self.hash - r_hash * _power(n)) % _MOD, n

    def thinking(self, messages: Sequence[Any], start_message: int = 0) -> Iterator[tuple[int, int, str, Any, str]]:
        """Yields ``(message, block index, identity, block, its canonical JSON)`` for each thinking
        block, the scan holding what precedes it."""
        for offset, message in enumerate(messages):
            for event in self.events(message):
                if event[0] == "items":
                    self.hash = (self.hash * _power(event[2]) + event[1]) % _MOD
                    self.length += event[2]
                elif event[0] == "think":
                    yield start_message + offset, event[1], event[2], event[3], event[4]
                    self.chain.append(event[2])
                else:
                    self.restart = (self.hash, self.length, len(self.chain))


def _birth(step: int, answer: int, j: int, produced: str, scan: _Scan, source: Sequence[Any]) -> Birth:
    span_hash, span_len = scan.span()
    kept = source if isinstance(source, tuple) else tuple(source)
    return Birth(step, answer, j, produced, span_hash, span_len, tuple(scan.chain[scan.restart[2]:]), kept)


def _given_births(history: Sequence[Any], first_turn: int | None,
                  seen: dict[int, tuple[Any, tuple[_Event, ...]]]) -> dict[str, list[Birth]]:
    """Returns the births of the thinking in assistant turns given before the first call (a
    history that opens on an assistant turn): produced after what precedes them in the script."""
    out: dict[str, list[Birth]] = {}
    end = first_turn if first_turn is not None else len(history)
    scan = _Scan(seen)
    for i, j, key, _, produced in scan.thinking(history[:end]):
        out.setdefault(key, []).append(_birth(0, i, j, produced, scan, history[: i + 1]))
    return out


def _is_suffix(short: Sequence[str], long: Sequence[str]) -> bool:
    return len(short) <= len(long) and list(long[len(long) - len(short):]) == list(short)


def _describe(item: Item | None, where: str) -> str:
    if item is None:
        return "nothing"
    if item.block is None:
        return f"{where}[{item.message}] (a {item.text[5:]} message)"
    kind = item.text.split('"type":"', 1)[-1].split('"', 1)[0] if '"type":"' in item.text else "block"
    return f"{where}[{item.message}].content[{item.block}] ({kind})"


def _change(now: Item | None, then: Item | None, step: int) -> str:
    """Returns the first change of a prefix in words: what stands there now and what stood there
    in the request of call ``step``."""
    if now is None:
        return f"{_describe(then, 'request')} of call {step}'s request is gone, with what followed it"
    if then is None:
        return f"{_describe(now, 'request')} now stands before it, where call {step}'s request had nothing"
    return f"first at {_describe(now, 'request')} (at call {step}: {_describe(then, 'request')})"


def _first_change(now: list[Item], then: list[Item]) -> tuple[Item | None, Item | None]:
    """Returns the first items where two prefixes differ, from their start, as the provider
    names it (``None`` on a side that ended first)."""
    for k in range(min(len(now), len(then))):
        if now[k].text != then[k].text:
            return now[k], then[k]
    return (now[len(then)] if len(now) > len(then) else None), (then[len(now)] if len(then) > len(now) else None)


def prefix_problems(history: Sequence[Any], played: Play) -> list[Problem]:
    """Returns every failure of the prefix check over the requests of ``played``: each thinking
    block a request replays, judged against the request that produced it."""
    turns = answer_turns(history)
    seen: dict[int, tuple[Any, tuple[_Event, ...]]] = {}
    born = _given_births(history, turns[0] if turns else None, seen)
    problems: list[Problem] = []
    walks = _Walks()
    written = _written(history)
    for step in played.steps:  # in order: a block is judged against the births of earlier calls
        scan = _Scan(seen)
        problems.extend(_step_problems(step, played.mode, born, scan, walks, written))
        if step.answer is not None:  # the answer's thinking is born after all the request holds
            answer = history[step.answer]
            source = (*step.request, answer)  # (one tuple for all the answer's blocks: walked once)
            for _, j, key, _, produced in scan.thinking([answer], start_message=len(step.request)):
                born.setdefault(key, []).append(_birth(step.number, step.answer, j, produced, scan, source))
    return problems


def _label(step: Step, mode: str) -> str:
    where = "the last request" if step.answer is None else f"the request answered by messages[{step.answer}]"
    return f"call {step.number} ({mode}, {where})"


def _matches(scan: _Scan, birth: Birth, request: Sequence[Any], i: int, j: int, walks: _Walks,
             written: frozenset[str]) -> bool:
    """Returns whether a block's prefix now is its prefix at birth: equal, or after a compaction
    block written since (a newer one than stood before the block at birth), equal to the tail of what
    preceded it then (the kept turns of an API-written summary). Behind the very compaction block that
    stood before it at birth, what follows that block is compared whole: turns cut from there are a
    client's edit. A compaction block the API did not write (none of the script's, ``written``: one
    the client made or changed) restarts nothing: the whole prefix is compared."""
    span_hash, span_len = scan.span()
    if scan.restart[1] == 0 and not scan.restart[2]:
        return span_len == birth.length and span_hash == birth.hash
    head = walks.compaction(request, i, j)
    if head not in written:
        now = [item.text for item in walks.before(request, i, j, whole=True)]
        return now == [item.text for item in walks.before(birth.source, len(birth.source) - 1, birth.block, whole=True)]
    now = [item.text for item in walks.before(request, i, j)]  # rare: compared item by item
    then = [item.text for item in birth.prefix(walks)]
    if head == walks.compaction(birth.source, len(birth.source) - 1, birth.block):
        return now == then
    return _is_suffix(now, then)


def _written(history: Sequence[Any]) -> frozenset[str]:
    """Returns the normal form of every compaction block of the script: the ones the API wrote."""
    return frozenset(_normal(block) for message in history for block in content_blocks(message)
                     if block_kind(block) == "compaction")


def _changed(label: str, where: str, birth: Birth, request: Sequence[Any], i: int, j: int, restarted: bool,
             walks: _Walks, written: frozenset[str]) -> Callable[[], str]:
    """Returns what writes a ``thinking.prefix-unchanged`` failure: the block, its birth, and the
    first change of what precedes it (``restarted``: a compaction block stands before it; one the API
    did not write, ``written``, is compared with all that precedes it)."""

    def write() -> str:
        head = walks.compaction(request, i, j)
        if restarted and head not in written:
            items = walks.before(request, i, j, whole=True)
            then = walks.before(birth.source, len(birth.source) - 1, birth.block, whole=True)
        else:
            items, then = walks.before(request, i, j), birth.prefix(walks)
        if restarted and head in written and head != walks.compaction(birth.source, len(birth.source) - 1, birth.block):
            then = then[len(then) - len(items):]
        return (f"{label} replays {where}, produced at call {birth.step} as messages[{birth.answer}]"
                f".content[{birth.block}]; what precedes it changed since then: "
                f"{_change(*_first_change(items, then), birth.step)}; {WHAT_THE_PROVIDER_DOES}; {FIX}")

    return write


def _step_problems(step: Step, mode: str, born: Mapping[str, list[Birth]], scan: _Scan, walks: _Walks,
                   written: frozenset[str]) -> list[Problem]:
    out: list[Problem] = []
    label = _label(step, mode)
    for i, j, key, block, text in scan.thinking(step.request):
        kind = block.get("type")
        births_of = [b for b in born.get(key, []) if b.step < step.number]
        where = f"request[{i}].content[{j}] ({kind})"
        if not births_of:
            out.append(Problem("thinking.replayed-intact",
                               f"{label} sends {where}, a thinking block the model did not produce before this "
                               f"call in this conversation; {WHAT_THE_PROVIDER_DOES}"))
            continue
        intact = [b for b in births_of if b.produced == text]
        if not intact:
            first = births_of[-1]
            out.append(Problem("thinking.replayed-intact",
                               f"{label} sends {where} changed from what the model produced at call {first.step} "
                               f"(messages[{first.answer}].content[{first.block}]); {WHAT_THE_PROVIDER_DOES}"))
            continue
        prefix_ok = [b for b in intact if _matches(scan, b, step.request, i, j, walks, written)]
        if not prefix_ok:
            out.append(Problem("thinking.prefix-unchanged",
                               _changed(label, where, intact[-1], step.request, i, j, scan.restart != (0, 0, 0), walks,
                                        written)))
            continue
        chain = scan.chain[scan.restart[2]:]
        if not any(_is_suffix(chain, b.chain) for b in prefix_ok):
            birth = prefix_ok[-1]
            missing = [c for c in birth.chain if c not in chain]
            extra = [c for c in chain if c not in birth.chain]
            why = ("a thinking block put back, or one it never followed, stands before it" if extra else
                   "a thinking block that preceded it is missing from the middle of the chain" if missing else
                   "the thinking blocks before it are out of their order")
            out.append(Problem("thinking.chain-unbroken",
                               f"{label} replays {where}, produced at call {birth.step} as messages[{birth.answer}]"
                               f".content[{birth.block}]: {why} ({len(chain)} thinking blocks before it now, "
                               f"{len(birth.chain)} when it was produced); {WHAT_THE_PROVIDER_DOES}; {FIX}"))
    return out
