"""``semantics.live_start`` answers the documented shapes without converting the items: it must say
what the full conversion says (the index, or the same error) for any input, tricky ones included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.formats.base import FormatError
from conformance.provider.openai import semantics as sem

TEXTS = st.sampled_from(["", "hi", "done", "é"])
PART = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["input_text", "output_text"]), "text": TEXTS}),
    st.fixed_dictionaries({"type": st.just("input_text")}),  # no text
    st.sampled_from(["bare string", 3, None]),
)
ARGUMENTS = st.sampled_from(['{"city": "Paris"}', "{}", "not json", "[1, 2", '"x"', 7, None])
OUTPUT = st.one_of(TEXTS, st.lists(st.one_of(st.fixed_dictionaries({"type": st.just("input_text"), "text": TEXTS}),
                                             st.just({"type": "input_text"}), st.just("x")), max_size=2),
                   st.sampled_from([None, 5, {}]))


def _drop(value: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k not in keys}


ITEM = st.one_of(
    st.builds(lambda role, content: {"type": "message", "role": role, "content": content},
              st.sampled_from(["user", "assistant", "system", "developer", None]),
              st.one_of(TEXTS, st.lists(PART, max_size=3), st.sampled_from([None, [], {}, 5, {"text": "x"}]))),
    st.builds(lambda role, content: {"role": role, "content": content},  # a message without a type
              st.sampled_from(["user", "assistant"]), TEXTS),
    st.builds(lambda args, drop: _drop({"type": "function_call", "call_id": "c1", "name": "f", "arguments": args}, drop),
              ARGUMENTS, st.lists(st.sampled_from(["call_id", "name", "arguments"]), max_size=1)),
    st.builds(lambda output, drop: _drop({"type": "function_call_output", "call_id": "c1", "output": output}, drop),
              OUTPUT, st.lists(st.sampled_from(["call_id", "output"]), max_size=1)),
    st.sampled_from([{"type": "reasoning", "summary": []}, {"type": "web_search_call", "id": "ws"},
                     {"type": "compaction", "encrypted_content": "x"}, {"type": "compaction_trigger"},
                     {"type": None}, {"type": 5}, {"type": ["message"]}, {"type": "hologram"}, "not an item", 3]),
    st.sampled_from([  # calls the client runs, and their outputs, in the shapes the SDK gives (and without ids)
        {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "not json"},
        {"type": "custom_tool_call", "input": "x"}, {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
        {"type": "computer_call_output", "call_id": "c1", "output": {"type": "computer_screenshot"}},
        {"type": "local_shell_call_output", "id": "c1", "output": "ok"}, {"type": "mcp_approval_request", "id": "m"},
        {"type": "tool_search_call", "call_id": "c1", "execution": "client"},
        {"type": "tool_search_call", "execution": "server"}, {"type": "tool_search_output", "execution": "server"},
        {"type": "tool_search_output", "call_id": "c1", "execution": "client"},
        {"type": "tool_search_call", "call_id": "c1"}, {"type": "tool_search_output", "call_id": "c1"},  # (echoed)
        {"type": "tool_search_output", "call_id": "c1", "execution": "server"},
        {"type": "tool_search_call", "call_id": None}, {"type": "tool_search_output"}]),
)


def _outcome(function: Any, items: list[Any]) -> tuple[str, Any]:
    try:
        return "index", function(items)
    except FormatError as exc:
        return "format error", str(exc)
    except Exception as exc:  # noqa: BLE001 - whatever the conversion raises, both must raise it
        return type(exc).__name__, None


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.lists(ITEM, max_size=7))
def test_the_plain_reading_says_what_the_conversion_says(items: list[Any]) -> None:
    assert _outcome(sem.live_start, items) == _outcome(sem.live_start_converted, items)


def test_the_common_shapes_are_answered_without_converting() -> None:
    settled = [{"type": "message", "role": "user", "content": "hi"},
               {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}]
    in_flight = [*settled, {"type": "message", "role": "user", "content": "next"},
                 {"type": "reasoning", "summary": []},
                 {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                 {"type": "function_call_output", "call_id": "c1", "output": "ok"}]
    for items, expected in ((settled, 2), (in_flight, 2), ([], 0)):
        assert sem._live_start_plain(items) == expected == sem.live_start_converted(items)
    # a call whose arguments do not read is left to the conversion, which words the error
    broken = [*settled, {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{"}]
    assert sem._live_start_plain(broken) is None
    assert _outcome(sem.live_start, broken)[0] == "format error"
