"""The guard scans each conversation's resent bytes once for the words that make a request worth
judging (``conformance.guard.scanned``): whatever a request resends, adds or changes, and wherever a
word falls (in the new bytes, across the end of the resent ones, in an edit of an earlier message),
its answer is the whole scan's; memory stays within its bounds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.guard import Guard
from conformance.guard.scanned import KEY, Scanned
from conformance.provider.anthropic.judge import JUDGE

MANAGED = JUDGE.watch.words  # the words the Messages judge asks a request to name

URL = "https://api.anthropic.com/v1/messages"


def sent(messages: list[dict[str, Any]]) -> bytes:
    """Returns the bytes the SDK sends for a plain Messages call with ``messages``."""
    body = {"max_tokens": 1024, "messages": messages, "model": "claude-sonnet-4-6"}
    return json.dumps(body, separators=(",", ":")).encode()


def whole(raw: bytes) -> bool:
    """Returns the whole scan's answer: ``raw`` names none of the words."""
    return not any(word in raw for word in MANAGED)


# One step of a client: a conversation (0-2) sends its next request, which adds a message of some
# text (a word may be in it, spelled whole or split by the end of the resent bytes), or rewrites an
# earlier message of it.
STEP = st.tuples(st.integers(0, 2), st.sampled_from(["add", "edit"]),
                 st.sampled_from(["plain words", "compaction", '"thinking"', "block_binding", "context_management"]),
                 st.integers(0, 40))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=40))
def test_the_answer_is_the_whole_scans_whatever_the_client_sends(steps: list[tuple[int, str, str, int]]) -> None:
    scanned = Scanned(MANAGED, conversations=2, budget=1 << 20)  # (fewer kept than there are conversations)
    histories: dict[int, list[dict[str, Any]]] = {}
    for who, change, text, at in steps:
        history = histories.setdefault(who, [{"role": "user", "content": f"conversation {who}: " + "x" * KEY}])
        filler = "y" * at
        if change == "edit" and len(history) > 1:
            history[at % len(history)] = {"role": "user", "content": filler + text}
        else:
            history.append({"role": "assistant" if len(history) % 2 else "user", "content": filler + text})
        raw = sent(history)
        assert scanned.clean(raw) is whole(raw), raw[-200:]


def test_a_word_that_starts_in_the_resent_bytes_and_ends_in_the_new_ones_is_found() -> None:
    scanned = Scanned(MANAGED, conversations=4, budget=1 << 20)
    head = b'{"max_tokens":1,"messages":[{"role":"user","content":"' + b"x" * KEY + b' ... compac'
    assert scanned.clean(head + b"t" * 60 + b'"}]}')  # (what it shares with the next ends inside the word)
    assert not scanned.clean(head + b'tion"}]}')


def test_memory_stays_within_the_bounds() -> None:
    scanned = Scanned(MANAGED, conversations=3, budget=40_000)
    for n in range(20):
        assert scanned.clean(sent([{"role": "user", "content": f"conversation {n} " + "z" * 9_000}]))
        assert len(scanned._kept) <= 3 and scanned.kept_bytes <= 40_000


def test_a_guard_keeping_nothing_gives_the_same_verdicts() -> None:
    answer = json.dumps({"type": "message", "role": "assistant", "content": [{"type": "text", "text": "ok"}],
                         "usage": {"input_tokens": 1, "output_tokens": 1}}).encode()
    keeping, whole_scan = Guard(policy=[]), Guard(policy=[], conversations=0)
    history: list[dict[str, Any]] = [{"role": "user", "content": "start " + "x" * KEY}]
    for n in range(8):
        history.append({"role": "assistant", "content": [{"type": "text", "text": f"step {n}"}]})
        history.append({"role": "user", "content": "and a compaction block" if n == 5 else f"go on {n}"})
        raw = sent(history)
        first, second = (guard.judge(URL, "POST", raw, answer, 200, "application/json")
                         for guard in (keeping, whole_scan))
        assert (first.verdict, first.evidence) == (second.verdict, second.evidence)
        scanned = keeping._plain[0].scanned  # the Messages judge's: the one that declares words
        assert scanned is not None and (scanned.kept_bytes > 0) is (n < 5)  # (kept while clean)


@pytest.mark.parametrize("conversations", [4, 0])
def test_a_word_written_with_an_escaped_letter_is_never_passed_unparsed(conversations: int) -> None:
    guard = Guard(policy=[], conversations=conversations)
    history: list[dict[str, Any]] = [{"role": "user", "content": "start " + "x" * KEY}]
    first = sent(history)
    assert guard.passes_unparsed("/v1/messages", first, b"{}", 200) == "anthropic"  # (kept as clean)
    history.append({"role": "assistant", "content": "ok"})
    managed = sent(history)[:-1] + b',"\\u0063ontext_management":{"edits":[]}}'  # the same key, one letter escaped
    assert json.loads(managed)["context_management"] == {"edits": []}
    assert guard.passes_unparsed("/v1/messages", managed, b"{}", 200) is None
    # an escape of a non-ASCII letter, or of "<", is no letter of a word: it passes
    texts = json.dumps({"max_tokens": 1, "messages": [{"role": "user", "content": "caf\u00e9 <b>"}]}).replace(
        "<", "\\u003c").encode()
    assert guard.passes_unparsed("/v1/messages", texts, b"{}", 200) == "anthropic"
