"""Status-like values and true/false flags the provider sets are breaking when they change; the
values the model writes into a tool call's arguments stay noise, and the shipped recordings
against themselves show no drift."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.drift.compare import compare_dirs

from .builders import edit_answer, folders

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
Edit = Callable[[dict[str, Any]], None]


def _copy_with_last_answer_edited(tmp_path: Path, server: str, probe: str, edit: Edit) -> Path:
    """Returns a copy of the shipped ``server`` recordings whose ``probe`` last answer went through ``edit``."""
    current = tmp_path / "current" / server
    shutil.copytree(CASSETTES / server, current)
    edit_answer(current / f"{probe}.yaml", edit)
    return current


def _set_top(key: str, value: Any) -> Edit:
    def edit(body: dict[str, Any]) -> None:
        assert key in body and body[key] != value  # the shipped answer holds another value
        body[key] = value
    return edit


def _reason(value: str) -> Edit:
    def edit(body: dict[str, Any]) -> None:
        assert body["input_transformations"]
        for entry in body["input_transformations"]:
            assert entry["reason"] != value
            entry["reason"] = value
    return edit


CHANGES = {  # name: (server, probe, edit, the key whose change is breaking)
    "truncation default": ("emulator-openai", "openai-threshold.after-results", _set_top("truncation", "auto"),
                           "truncation"),
    "store flag": ("emulator-openai", "openai-threshold.after-results", _set_top("store", True), "store"),
    "background flag": ("emulator-openai", "openai-threshold.after-results", _set_top("background", True),
                        "background"),
    "object of the answer": ("emulator-openai", "openai-compact.settled", _set_top("object", "response"), "object"),
    "reason a thinking block was dropped": ("emulator", "thinking-binding.edit-settled-mid-task-drop-block",
                                            _reason("model_binding_mismatch"), "reason"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_changed_status_like_value_or_flag_is_breaking(tmp_path: Path, name: str) -> None:
    server, probe, edit, key = CHANGES[name]
    drift = compare_dirs(CASSETTES / server, _copy_with_last_answer_edited(tmp_path, server, probe, edit))
    on_key = [c for c in drift["changes"] if c["probe"] == probe and c["path"].endswith(f"['{key}']")]
    assert on_key and {c["category"] for c in on_key} == {"breaking"}, drift["changes"]
    assert drift["exit_code"] == 1


def _tool_call(recursive: bool, kind: str) -> Edit:
    def edit(body: dict[str, Any]) -> None:
        body["content"].append({"type": "tool_use", "id": "toolu_01X", "name": "ls",
                                "input": {"path": "src", "recursive": recursive, "type": kind}})
    return edit


def test_a_flag_or_enum_like_key_the_model_wrote_into_a_tool_call_is_noise(tmp_path: Path) -> None:
    folders(tmp_path / "b", "json-probe", _tool_call(False, "dir"))
    _, current = folders(tmp_path / "c", "json-probe", _tool_call(True, "file"))
    drift = compare_dirs(tmp_path / "b" / "current", current)
    assert sorted((c["category"], c["path"]) for c in drift["changes"]) == [
        ("noise", "root[0]['body']['content'][2]['input']['recursive']"),
        ("noise", "root[0]['body']['content'][2]['input']['type']")]


def test_a_flag_the_provider_sets_is_breaking(tmp_path: Path) -> None:
    folders(tmp_path / "b", "json-probe", lambda b: b.update(cached=False))
    _, current = folders(tmp_path / "c", "json-probe", lambda b: b.update(cached=True))
    drift = compare_dirs(tmp_path / "b" / "current", current)
    assert [(c["category"], c["rule"]) for c in drift["changes"]] == [("breaking", "flag 'cached' flipped")]


@pytest.mark.slow
@pytest.mark.parametrize("server", ["emulator", "emulator-openai"])
def test_the_shipped_recordings_against_a_copy_of_themselves_show_no_drift(tmp_path: Path, server: str) -> None:
    current = tmp_path / server
    shutil.copytree(CASSETTES / server, current)
    drift = compare_dirs(CASSETTES / server, current)
    assert drift["counts"] == {"breaking": 0, "additive": 0, "noise": 0}
