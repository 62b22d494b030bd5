"""Each kind of change comes out in its category: breaking, additive or noise, and nothing else."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.drift.compare import compare_dirs
from conformance.drift.render import describe

from .builders import SERVER, folders, load, save

Edit = Callable[[dict[str, Any]], None]


def _set(path: tuple[Any, ...], value: Any) -> Edit:
    def edit(body: dict[str, Any]) -> None:
        node = body
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
    return edit


def _delete(path: tuple[Any, ...]) -> Edit:
    def edit(body: dict[str, Any]) -> None:
        node = body
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]
    return edit


def _changes(tmp_path: Path, edit: Edit | None, probe: str = "json-probe") -> dict[str, Any]:
    baseline, current = folders(tmp_path, probe, edit)
    return compare_dirs(baseline, current)


def _only(drift: dict[str, Any]) -> dict[str, Any]:
    assert len(drift["changes"]) == 1, drift["changes"]
    return drift["changes"][0]


BREAKING = {
    "stop_reason changed": (_set(("stop_reason",), "max_tokens"), "enum value 'stop_reason' changed"),
    "edit type changed": (_set(("context_management", "applied_edits", 0, "type"), "clear_tool_uses_20260101"),
                          "enum value 'type' changed"),
    "key disappeared": (_delete(("context_management",)), "key 'context_management' disappeared"),
    "type changed": (_set(("context_management", "applied_edits", 0, "cleared_tool_uses"), "2"),
                     "type changed: int → str"),
    "block type disappeared": (lambda b: b["content"].pop(0), "block or edit type 'thinking' disappeared"),
    "edit type disappeared": (lambda b: b["context_management"]["applied_edits"].clear(),
                              "block or edit type 'clear_tool_uses_20250919' disappeared"),
    "error appeared": (_set(("error",), {"type": "invalid_request_error", "message": "no"}), "an error appeared"),
    "token count became text": (_set(("usage", "input_tokens"), "many"), "type changed: int → str"),
    "block order changed": (lambda b: b["content"].reverse(), "the order of block or edit types changed"),
}
ADDITIVE = {
    "new key": (_set(("context_management", "applied_edits", 0, "cleared_inputs"), 1), "new key 'cleared_inputs'"),
    "new block type": (lambda b: b["content"].append({"type": "context_note", "note": "x"}),
                       "new block or edit type 'context_note'"),
    "new edit type": (lambda b: b["context_management"]["applied_edits"].append({"type": "clear_files_20270101"}),
                      "new block or edit type 'clear_files_20270101'"),
}
NOISE = {
    "text changed": (_set(("content", 1, "text"), "Hi."), "value of 'text' changed"),
    "count changed": (_set(("context_management", "applied_edits", 0, "cleared_tool_uses"), 3),
                      "value of 'cleared_tool_uses' changed"),
    "one more block of a known type": (lambda b: b["content"].append({"type": "text", "text": "More."}),
                                       "one more 'text' item"),
}
SET_ASIDE = {
    "ids": _set(("id",), "msg_01ZZZ"),
    "dates": _set(("created_at",), "2027-01-01T00:00:00Z"),
    "token counts": _set(("usage", "output_tokens"), 999),
    "cleared token counts": _set(("context_management", "applied_edits", 0, "cleared_input_tokens"), 5),
    "scrubbed placeholders": _set(("content", 0, "thinking"), "[scrubbed:ba9876543210]"),
}


@pytest.mark.parametrize("name", sorted(BREAKING))
def test_breaking(tmp_path: Path, name: str) -> None:
    edit, rule = BREAKING[name]
    drift = _changes(tmp_path, edit)
    change = _only(drift)
    assert (change["category"], change["rule"]) == ("breaking", rule)
    assert drift["exit_code"] == 1


@pytest.mark.parametrize("name", sorted(ADDITIVE))
def test_additive(tmp_path: Path, name: str) -> None:
    edit, rule = ADDITIVE[name]
    drift = _changes(tmp_path, edit)
    change = _only(drift)
    assert (change["category"], change["rule"]) == ("additive", rule)
    assert drift["exit_code"] == 0 and drift["counts"] == {"breaking": 0, "additive": 1, "noise": 0}


@pytest.mark.parametrize("name", sorted(NOISE))
def test_noise(tmp_path: Path, name: str) -> None:
    edit, rule = NOISE[name]
    drift = _changes(tmp_path, edit)
    change = _only(drift)
    assert (change["category"], change["rule"]) == ("noise", rule)
    assert drift["exit_code"] == 0 and drift["counts"] == {"breaking": 0, "additive": 0, "noise": 1}


@pytest.mark.parametrize("name", sorted(SET_ASIDE))
def test_volatile_values_are_set_aside(tmp_path: Path, name: str) -> None:
    drift = _changes(tmp_path, SET_ASIDE[name])
    assert drift["changes"] == [] and drift["exit_code"] == 0


def test_identical_recordings_have_no_drift(tmp_path: Path) -> None:
    drift = _changes(tmp_path, None)
    assert drift["counts"] == {"breaking": 0, "additive": 0, "noise": 0}
    assert {p["status"] for p in drift["probes"]} == {"unchanged"}


def test_error_status_is_breaking(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path)
    path = current / SERVER / "json-probe.yaml"
    data = load(path)
    data["interactions"][0]["response"]["status"] = {"code": 400, "message": "Bad Request"}
    data["interactions"][0]["response"]["body"]["string"] = (
        '{"type":"error","error":{"type":"invalid_request_error","message":"no"},"request_id":"req_1"}')
    save(path, data)
    drift = compare_dirs(baseline, current)
    rules = {c["rule"] for c in drift["changes"] if c["category"] == "breaking"}
    assert "an error code appeared" in rules and "enum value 'type' changed" in rules


def test_missing_and_new_recordings(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path)
    (current / "api.example" / "sse-probe.yaml").rename(current / "api.example" / "other-probe.yaml")
    drift = compare_dirs(baseline, current)
    by_probe = {c["probe"]: (c["category"], c["change"]) for c in drift["changes"]}
    assert by_probe == {"api.example/sse-probe": ("breaking", "probe_removed"),
                        "api.example/other-probe": ("additive", "probe_added")}


def test_servers_with_different_names_pair_by_probe(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path, edit=_set(("stop_reason",), "refusal"))
    (current / "api.example").rename(current / "emulator+fault")
    drift = compare_dirs(baseline, current)
    assert [(c["probe"], c["category"]) for c in drift["changes"]] == [("json-probe", "breaking")]


def _between(tmp_path: Path, before: Edit, after: Edit) -> dict[str, Any]:
    """Returns the drift between two edited copies of the fixture recordings."""
    folders(tmp_path / "b", "json-probe", before)
    _, current = folders(tmp_path / "c", "json-probe", after)
    return compare_dirs(tmp_path / "b" / "current", current)


def _texts(*texts: str) -> Edit:
    return _set(("content",), [{"type": "text", "text": t} for t in texts])


def _citations(*quotes: str) -> Edit:
    return _set(("content",), [{"type": "text", "text": "A.", "citations": list(quotes)}])


@pytest.mark.parametrize(("before", "after", "rule"), [
    (_texts("A.", "B."), _texts("A."), "one fewer 'text' item"),
    (_citations("x"), _citations("x", "y"), "an untyped list item came"),
    (_citations("x", "y"), _citations("x"), "an untyped list item went"),
], ids=["one fewer block of a known type", "an untyped item came", "an untyped item went"])
def test_noise_between_two_edits(tmp_path: Path, before: Edit, after: Edit, rule: str) -> None:
    change = _only(_between(tmp_path, before, after))
    assert (change["category"], change["rule"]) == ("noise", rule)


def _interactions(count: int) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        data = load(path)
        data["interactions"] = (data["interactions"] * count)[:count]
        save(path, data)
    return edit


@pytest.mark.parametrize(("before", "after", "category", "rule"), [
    (1, 2, "additive", "a new interaction"),
    (2, 1, "breaking", "an interaction disappeared"),
])
def test_interactions_within_a_recording(tmp_path: Path, before: int, after: int, category: str, rule: str) -> None:
    baseline, current = folders(tmp_path / "c")
    base_copy = tmp_path / "b"
    shutil.copytree(baseline, base_copy)
    _interactions(before)(base_copy / SERVER / "json-probe.yaml")
    _interactions(after)(current / SERVER / "json-probe.yaml")
    change = _only(compare_dirs(base_copy, current))
    assert (change["category"], change["rule"]) == (category, rule)


def test_a_changed_request_is_noise(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path)
    path = current / SERVER / "json-probe.yaml"
    data = load(path)
    data["interactions"][0]["request"]["body"] = data["interactions"][0]["request"]["body"].replace("64", "65")
    save(path, data)
    change = _only(compare_dirs(baseline, current))
    assert (change["category"], change["change"]) == ("noise", "request_changed")


def test_an_unreadable_recording_is_breaking(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path)
    (current / SERVER / "json-probe.yaml").write_text("interactions: not a list\n", encoding="utf-8")
    change = _only(compare_dirs(baseline, current))
    assert (change["category"], change["change"]) == ("breaking", "unreadable")
    line = describe(change)  # says what happened, never "null → null"
    assert "the current recording is unreadable" in line and "'readable' → 'unreadable'" in line
    assert "null" not in line and "null" not in describe({**change, "before": None, "after": None})


@pytest.mark.parametrize(("code", "rule"), [(201, "the status changed"), (500, "an error code appeared")])
def test_every_status_change_is_breaking(tmp_path: Path, code: int, rule: str) -> None:
    baseline, current = folders(tmp_path)
    path = current / SERVER / "json-probe.yaml"
    data = load(path)
    data["interactions"][0]["response"]["status"]["code"] = code
    save(path, data)
    change = _only(compare_dirs(baseline, current))
    assert (change["category"], change["rule"]) == ("breaking", rule)


def test_thinking_no_longer_first_is_breaking_even_when_a_block_is_added(tmp_path: Path) -> None:
    drift = _changes(tmp_path, lambda b: b.update(content=[b["content"][1], b["content"][0],
                                                           {"type": "text", "text": "More."}]))
    found = {(c["category"], c["rule"]) for c in drift["changes"]}
    assert found == {("breaking", "the order of block or edit types changed"), ("noise", "one more 'text' item")}
    assert drift["exit_code"] == 1


def test_reordered_blocks_of_one_type_are_noise(tmp_path: Path) -> None:
    def two_texts(body: dict[str, Any]) -> None:
        body["content"] = [{"type": "text", "text": "A."}, {"type": "text", "text": "B."}]

    def swapped(body: dict[str, Any]) -> None:
        body["content"] = [{"type": "text", "text": "B."}, {"type": "text", "text": "A."}]

    folders(tmp_path / "b", "json-probe", two_texts)
    _, current = folders(tmp_path / "c", "json-probe", swapped)
    drift = compare_dirs(tmp_path / "b" / "current", current)
    assert drift["exit_code"] == 0 and drift["counts"]["breaking"] == 0 and drift["counts"]["noise"] >= 1


def test_no_reasoning_text_in_a_change_even_under_a_new_key(tmp_path: Path) -> None:
    drift = _changes(tmp_path, lambda b: b["content"][0].update(summary="SECRET-PLAN-TEXT of the model"))
    change = _only(drift)
    assert (change["category"], change["rule"], change["after"]) == ("additive", "new key 'summary'", "<reasoning>")
    drift = _changes(tmp_path / "2", _set(("content", 0, "thinking"), {"text": "SECRET-PLAN-TEXT of the model"}))
    assert "SECRET-PLAN-TEXT" not in json.dumps(drift)


def test_equal_values_of_another_type_are_still_a_change() -> None:
    from conformance.drift.classify import classify

    one = [{"request": {"digest": "d"}, "response": {"status": 200, "body": {"n": 1}}}]
    assert classify("p", one, json.loads(json.dumps(one))) == []
    for other in (1.0, True):
        changed = [{"request": {"digest": "d"}, "response": {"status": 200, "body": {"n": other}}}]
        assert classify("p", one, changed), other
