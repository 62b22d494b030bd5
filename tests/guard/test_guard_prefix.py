"""The guard decodes each conversation's resent prefix once (``conformance.guard.prefix``): over long
conversations, interleaved, with the client's own edits of earlier messages and carried compaction
blocks, every request decodes to the value a whole decode gives (keys in order) and every verdict is
the one the guard gives without keeping anything; memory stays within its bounds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance import _json
from conformance.guard import Guard
from conformance.guard.prefix import Conversations
from conformance.provider.analyze.model import Judgement

from ..provider.test_analyze import call, cleared, compaction_block, final, message, request, result, tool_edit, user

URL = "https://api.anthropic.com/v1/messages"


def sent(body: dict[str, Any]) -> bytes:
    """Returns the bytes the SDKs send for ``body`` (the standard library's compact writer, UTF-8)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def conversation(name: str, tasks: int = 12) -> Iterator[tuple[bytes, bytes]]:
    """Yields the (request, response) bytes of one agent's calls: tasks of tool calls, each call
    resending the whole history; a compaction block carried from task 4 on; the client rewrites
    an old tool result once (task 7); the answers clear a tool result of the task in flight, of a
    settled task, or nothing."""
    history: list[dict[str, Any]] = []
    for t in range(tasks):
        history.append(user(f"{name}: task {t} — naïve “quotes” \u2028"))
        for s in range(3):
            if t == 4 and s == 0:
                history.append({"role": "assistant", "content": [compaction_block(f"{name} before task 4"),
                                                                 {"type": "tool_use", "id": f"{name}{t}c",
                                                                  "name": "read", "input": {"n": 1.5e-7}}]})
                history.append(result(f"{name}{t}c", 3))
            history.append(call(f"{name}{t}{s}"))
            answer = [message(applied=[cleared(1, 40)]), message(), message(applied=[cleared(2, 80)])][(t + s) % 3]
            yield sent(request(history, tool_edit(keep=1))), sent(answer)
            history.append(result(f"{name}{t}{s}", 10 + s))
        if t == 7:  # the client edits settled history: the next request does not continue the last
            history[2] = result(history[2]["content"][0]["tool_use_id"], 1)
        history.append(final(f"{name} {t} done"))
        yield sent(request(history, tool_edit(keep=1))), sent(message())


def interleaved() -> list[tuple[bytes, bytes]]:
    """Returns the calls of two conversations, taken in turn."""
    found: list[tuple[bytes, bytes]] = []
    for pair in zip(conversation("A"), conversation("B"), strict=True):
        found += pair
    return found


def _record(found: Judgement) -> tuple[Any, ...]:
    return found.verdict, found.strategy, found.live_start, found.history, found.evidence


def test_each_request_decodes_to_the_whole_decodes_value_and_most_are_continued() -> None:
    decoder = Conversations()
    calls = interleaved()
    for raw, _ in calls:
        value, _resent = decoder.decode(raw)
        whole = _json.loads(raw)
        assert value == whole and list(value) == list(whole)
        assert [list(m) for m in value["messages"]] == [list(m) for m in whole["messages"]]
    assert decoder.hits >= len(calls) * 0.8 and len(decoder) == 2


def test_verdicts_are_the_same_with_and_without_the_kept_prefixes() -> None:
    kept, whole = Guard(policy=[]), Guard(policy=[], conversations=0)
    calls = interleaved()
    verdicts = [(_record(kept.judge(URL, "POST", raw, answer, 200, "application/json")),
                 _record(whole.judge(URL, "POST", raw, answer, 200, "application/json"))) for raw, answer in calls]
    assert all(a == b for a, b in verdicts)
    assert kept.conversations is not None and kept.conversations.hits >= len(calls) * 0.8
    assert {v[0][0] for v in verdicts} >= {"reached-live-task", "settled-only", "no-edit"}
    assert any("compaction block at message" in line for v in verdicts for line in v[0][4])  # (carried blocks judged)


def test_a_changed_earlier_message_is_read_as_changed() -> None:
    decoder = Conversations()
    history = [user("task"), call("t1"), result("t1", 5)]
    decoder.decode(sent(request(history)))
    history[2] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "y" * 20}]}
    raw = sent(request([*history, call("t2")]))  # (the same length: only the bytes tell the edit)
    value, resent = decoder.decode(raw)
    assert resent is not None and resent.count == 0 and value == _json.loads(raw) and value["messages"][2]["content"][0]["content"] == "y" * 20


def test_memory_stays_within_the_bounds() -> None:
    few = Conversations(conversations=4)
    small = Conversations(budget=20_000)
    for n in range(40):
        raw = sent(request([user(f"conversation {n}"), call("t1"), result("t1", 1000)]))
        for decoder in (few, small):
            assert decoder.decode(raw)[0] == _json.loads(raw)
    assert len(few) == 4 and 0 < small.kept_bytes <= 20_000
    assert len(small) < 40  # (each request keeps about 4 KB: the budget holds a few)


def test_bytes_another_writer_made_are_decoded_whole_every_time() -> None:
    decoder = Conversations()
    history = [user("task"), call("t1")]
    for _ in range(3):
        raw = json.dumps(request(history), indent=1).encode()  # (another writer's spacing)
        value, resent = decoder.decode(raw)
        assert value == json.loads(raw) and resent is None
        history.append(result("t1", 1))
    assert decoder.hits == 0 and len(decoder) == 0


KINDS = {"ask": user("next task"), "answer": final("done"), "use": call("t"), "result": result("t", 1),
         "system": {"role": "system", "content": "note"}}


@pytest.mark.slow
@given(st.lists(st.lists(st.sampled_from(sorted(KINDS)), max_size=5), min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_the_live_start_from_the_new_messages_is_the_whole_historys(steps: list[list[str]]) -> None:
    # each step appends a few messages to the conversation; the judge is told the rest was resent
    from conformance.guard.prefix import Resent
    from conformance.provider.anthropic.judge import _live_start

    messages: list[dict[str, Any]] = []
    notes: dict[str, Any] = {}
    for step in steps:
        resent = Resent(len(messages), messages := [*messages, *(KINDS[k] for k in step)], notes)
        assert _live_start(messages, resent) == _live_start(list(messages)), [m["role"] for m in messages]


def test_messages_another_writer_spaced_are_decoded_whole_after_one_look() -> None:
    decoder = Conversations()
    looks: list[int] = []
    import conformance.guard.prefix as prefix

    writings = prefix._writings

    def counted(values: list[Any]) -> Any:
        looks.append(len(values))
        return writings(values)

    prefix._writings = counted  # type: ignore[assignment]
    try:
        texts = ["a", "b"]  # (two messages from the first request on: the spacing shows at once)
        for n in range(4):
            raw = ('{"model":"m","messages":[{"role":"user","content":"a"}'
                   + "".join(f', {{"role":"user","content":"{t}{k}"}}' for k, t in enumerate(texts[1:]))
                   + '],"max_tokens":5}').encode()
            value, _ = decoder.decode(raw)
            assert value == json.loads(raw) and list(value) == ["model", "messages", "max_tokens"]
            texts.append(f"t{n}")
    finally:
        prefix._writings = writings  # type: ignore[assignment]
    assert decoder.hits == 0 and len([n for n in looks if n > 1]) <= 1  # the whole list written once at most


@pytest.mark.parametrize("key", ['"messages"', '"m\\u0065ssages"'])
def test_a_second_messages_key_is_read_as_a_whole_decode_reads_it(key: str) -> None:
    # the second list's bytes are those of the first one's new message: only the key tells them apart
    decoder = Conversations()
    history = [user("task"), call("t1")]
    decoder.decode(sent(request(history)))
    decoder.decode(sent(request([*history, result("t1", 1)])))  # (where the messages end is found)
    plain = sent(request([*history, result("t1", 1), call("t2")]))
    raw = plain[:-1] + b"," + key.encode() + b":" + sent([call("t2")]) + b"}"
    value, _ = decoder.decode(raw)
    assert value == _json.loads(raw) and list(value) == list(_json.loads(raw))
    assert value["messages"] == [call("t2")] != _json.loads(plain)["messages"]
