"""Streamed recordings are compared as the final object they assemble to, for each provider's
stream; a stream that cannot be put together is compared by its events, never as an empty body."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.drift import normalise
from conformance.drift.compare import compare_dirs

from .builders import load, save

SHIPPED_OPENAI = Path(__file__).resolve().parents[2] / "cassettes" / "emulator-openai"
STREAMED = "openai-threshold.settled-stream"
Event = tuple[str, dict[str, Any]]


def _events(text: str) -> list[Event]:
    """Returns the ``(event name, data)`` of each event of a recorded stream, in order."""
    found = []
    for chunk in text.split("\n\n"):
        lines = chunk.strip().splitlines()
        if lines:
            name = next(line[6:].strip() for line in lines if line.startswith("event:"))
            found.append((name, json.loads(next(line[5:] for line in lines if line.startswith("data:")))))
    return found


def _stream(events: list[Event]) -> str:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def _copy_with_stream_edit(tmp_path: Path, edit: Callable[[list[Event]], list[Event]]) -> Path:
    """Returns a copy of the shipped OpenAI recordings whose streamed probe's last answer got ``edit``."""
    current = tmp_path / "current"
    shutil.copytree(SHIPPED_OPENAI, current)
    path = current / f"{STREAMED}.yaml"
    data = load(path)
    response = data["interactions"][-1]["response"]
    response["body"]["string"] = _stream(edit(_events(response["body"]["string"])))
    save(path, data)
    return current


def _incomplete(events: list[Event]) -> list[Event]:
    """Returns the events with the terminal ``response.completed`` turned into ``response.incomplete``
    (stopped at the output limit)."""
    out = []
    for name, data in events:
        if name == "response.completed":
            response = {**data["response"], "status": "incomplete",
                        "incomplete_details": {"reason": "max_output_tokens"}}
            name, data = "response.incomplete", {**data, "type": "response.incomplete", "response": response}
        out.append((name, data))
    return out


def test_the_shipped_streamed_probe_ends_in_response_completed() -> None:
    response = load(SHIPPED_OPENAI / f"{STREAMED}.yaml")["interactions"][-1]["response"]
    names = [name for name, _ in _events(response["body"]["string"])]
    assert names[0] == "response.created" and names[-1] == "response.completed"


def test_a_responses_stream_that_ends_incomplete_is_breaking(tmp_path: Path) -> None:
    drift = compare_dirs(SHIPPED_OPENAI, _copy_with_stream_edit(tmp_path, _incomplete))
    breaking = [(c["probe"], c["path"], c["before"], c["after"]) for c in drift["changes"]
                if c["category"] == "breaking"]
    assert (STREAMED, "root[0]['body']['status']", "completed", "incomplete") in breaking
    assert drift["exit_code"] == 1


def test_a_responses_stream_reads_as_its_final_response() -> None:
    events = [("response.created", {"type": "response.created", "response": {"object": "response",
                                                                             "status": "in_progress", "output": []}}),
              ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                             "item": {"type": "message", "role": "assistant", "content": []}}),
              ("response.completed", {"type": "response.completed", "response": {
                  "object": "response", "status": "completed",
                  "output": [{"type": "message", "role": "assistant", "content": []}]}})]
    body = normalise.body(_stream(events), "text/event-stream")
    assert body["status"] == "completed" and [i["type"] for i in body["output"]] == ["message"]


def test_a_stream_the_reader_cannot_put_together_keeps_its_events() -> None:
    # a delta for a block that never started: the reader cannot assemble the message
    events = [("message_start", {"type": "message_start", "message": {"type": "message", "content": []}}),
              ("content_block_delta", {"type": "content_block_delta", "index": 3,
                                       "delta": {"type": "text_delta", "text": "x"}})]
    body = normalise.body(_stream(events), "text/event-stream")
    assert body == {"object": "event-stream", "events": [data for _, data in events]}


def test_a_stream_with_an_event_that_is_not_json_keeps_its_events() -> None:
    text = 'event: response.created\ndata: {"type": "response.created", "response": {}}\n\nevent: x\ndata: {oops\n\n'
    body = normalise.body(text, "text/event-stream")
    assert body == {"object": "event-stream", "events": [{"type": "response.created", "response": {}}, "{oops"]}


def _with_reasoning(summary: str) -> Callable[[list[Event]], list[Event]]:
    """Returns an edit that puts a reasoning item with ``summary`` first in the streamed response."""
    item = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": summary}],
            "encrypted_content": f"enc-{summary}"}

    def edit(events: list[Event]) -> list[Event]:
        out = []
        for name, data in events:
            if name == "response.completed":
                data = {**data, "response": {**data["response"], "output": [item, *data["response"]["output"]]}}
            out.append((name, data))
        return out
    return edit


def test_no_reasoning_text_of_a_streamed_response_reaches_the_changes(tmp_path: Path) -> None:
    baseline = _copy_with_stream_edit(tmp_path / "b", _with_reasoning("PLAN-ALPHA check the replica"))
    current = _copy_with_stream_edit(tmp_path / "c", _with_reasoning("PLAN-BETA check the pager"))
    drift = compare_dirs(baseline, current)
    assert "PLAN-" not in json.dumps(drift)
    # no response.created nor a terminal event: the stream cannot be put together, its events are kept
    events = [("response.reasoning_summary_text.delta", {"type": "response.reasoning_summary_text.delta",
                                                         "delta": "PLAN-GAMMA"})]
    kept = normalise.mask(normalise.body(_stream(events), "text/event-stream"))
    assert kept["object"] == "event-stream" and "PLAN-" not in json.dumps(kept)


def test_a_reasoning_items_kind_and_state_stay_while_its_text_is_masked() -> None:
    from conformance.drift.normalise import STAND_IN, mask

    item = {"type": "reasoning", "id": "rs_1", "status": "incomplete", "encrypted_content": "gAAAAB-secret",
            "summary": [{"type": "summary_text", "text": "the model's own summary of its reasoning"}]}
    masked = mask(item)
    assert masked["status"] == "incomplete" and masked["summary"][0]["type"] == "summary_text"
    assert masked["summary"][0]["text"] == STAND_IN["reasoning"] and masked["encrypted_content"] == STAND_IN["reasoning"]
