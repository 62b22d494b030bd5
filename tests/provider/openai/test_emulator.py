"""The OpenAI emulator answers as the recorded service does, closely enough for the openai SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from conformance.provider.openai import semantics as sem
from conformance.provider.openai.emulator import FAULTS, Emulator, folded_truth

if TYPE_CHECKING:  # the SDK is imported when a test runs, not at collection
    import openai

TOOLS = [{"type": "function", "name": "read_file", "description": "Read a file.",
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}, "strict": False}]
BIG = "logs " + sem.filler(1500)
THRESHOLD = [{"type": "compaction", "compact_threshold": 1000}]


def _bad_request() -> type[Exception]:
    """Returns ``openai.BadRequestError``, imported when a test needs it."""
    import openai

    return openai.BadRequestError


@pytest.fixture(scope="module")
def client() -> Iterator[openai.OpenAI]:
    from conformance.provider.openai.run import make_client

    with Emulator(0) as emulator, make_client("dummy", emulator.url) as sdk:
        yield sdk


def test_threshold_compaction_follows_the_final_answer(client: openai.OpenAI) -> None:
    response = client.responses.create(model="gpt-4.1-mini", input=BIG, context_management=THRESHOLD)
    assert [o.type for o in response.output] == ["message", "compaction"]
    item = response.output[1]
    assert item.id.startswith("cmp_") and item.encrypted_content.startswith("gAAAAA")
    assert folded_truth(item.encrypted_content)["folded"][0][1] == "user"
    assert response.usage is not None and response.usage.output_tokens > 300  # the pass bills as output


def test_the_service_waits_while_a_call_is_open(client: openai.OpenAI) -> None:
    response = client.responses.create(model="gpt-4.1-mini", input=BIG, tools=TOOLS, tool_choice="required",
                                       context_management=THRESHOLD)
    assert [o.type for o in response.output] == ["function_call"]


def test_the_stream_has_the_real_event_names_in_order(client: openai.OpenAI) -> None:
    events = list(client.responses.create(model="gpt-4.1-mini", input=BIG, stream=True,
                                          context_management=THRESHOLD))
    kinds = [e.type for e in events]
    assert kinds == ["response.created", "response.in_progress", "response.output_item.added",
                     "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                     "response.content_part.done", "response.output_item.done", "response.output_item.added",
                     "response.output_item.done", "response.completed"]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    added, done = events[8].item, events[9].item
    assert added.type == done.type == "compaction" and len(added.encrypted_content) < len(done.encrypted_content)


def test_previous_response_id_state_and_unknown_ids(client: openai.OpenAI) -> None:
    first = client.responses.create(model="gpt-4.1-mini", input="read it", tools=TOOLS, tool_choice="required")
    call_id = first.output[0].call_id
    second = client.responses.create(model="gpt-4.1-mini", previous_response_id=first.id,
                                     input=[{"type": "function_call_output", "call_id": call_id, "output": "ok"}])
    assert second.output[0].type == "message"
    with pytest.raises(_bad_request()) as caught:
        client.responses.create(model="gpt-4.1-mini", previous_response_id="resp_nope", input="x")
    assert caught.value.code == "previous_response_not_found"
    with pytest.raises(_bad_request()) as caught:
        client.responses.compact(model="gpt-4.1-mini", previous_response_id=first.id)
    assert "No tool output found for function call" in caught.value.message


def test_compact_keeps_user_messages_with_new_ids_and_refuses_stream(client: openai.OpenAI) -> None:
    window = [{"type": "message", "role": "user", "content": "a", "id": "msg_old"},
              {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "b",
                                                                    "annotations": []}]}]
    raw = client.responses.with_raw_response.compact(model="gpt-4.1-mini", input=window).http_response.json()
    assert raw["object"] == "response.compaction"
    assert [(o["type"], o.get("role")) for o in raw["output"]] == [("message", "user"), ("compaction", None)]
    assert raw["output"][0]["id"] != "msg_old" and raw["output"][0]["content"][0]["type"] == "input_text"
    with pytest.raises(_bad_request()) as caught:
        client.responses.compact(model="gpt-4.1-mini", input=window, extra_body={"stream": True})
    assert caught.value.code == "unknown_parameter"


def test_trigger_must_be_last_and_truncation_disabled_refuses_an_oversized_input(client: openai.OpenAI) -> None:
    with pytest.raises(_bad_request()) as caught:
        client.responses.create(model="gpt-4.1-mini", input=[{"type": "compaction_trigger"},
                                                             {"type": "message", "role": "user", "content": "x"}])
    assert caught.value.body["message"] == sem.TRIGGER_NOT_LAST
    huge = [{"type": "message", "role": "user", "content": sem.filler(120_000)}]
    with pytest.raises(_bad_request()) as caught:
        client.responses.create(model="gpt-4o-mini", input=huge)
    assert caught.value.code == sem.CONTEXT_EXCEEDED


def test_input_token_counts_agree_with_usage(client: openai.OpenAI) -> None:
    count = client.responses.input_tokens.count(model="gpt-4.1-mini", input="hello there")
    response = client.responses.create(model="gpt-4.1-mini", input="hello there")
    assert response.usage is not None and count.input_tokens == response.usage.input_tokens


def test_faults_are_named_and_unknown_ones_refused() -> None:
    assert set(FAULTS) == {"compacts-open-call", "drops-kept-reasoning", "truncates-live-task", "usage-contradicts"}
    with pytest.raises(ValueError, match="unknown fault"):
        Emulator(0, ["no-such-fault"])
