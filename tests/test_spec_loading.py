"""The fast way in (libyaml, JSON, a compiled validator) accepts exactly what the located way
accepts, and every problem still comes back located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import LoadResult, load, load_file
from conformance.engine.invariant_entries import INVARIANT_IDS
from conformance.engine.invariants import CATALOG
from conformance.engine._compiled_schema import _draft7_safe
from conformance.engine.spec import _load_fast, _load_located, _message_shape, _whole_file_check

from ._specs import GOOD, write
from ._yaml import load_yaml

BAD_EDITS = [
    ("format_version: 1", "format_version: true"),
    ("format_version: 1", "format_version: 2"),
    ("truth: {live_start: 2}\n    expect", "truth: {live_start: 2.0}\n    expect"),
    ("truth: {live_start: 2}\n    expect", "truth: {live_start: -1}\n    expect"),
    ("truth: {live_start: 2}\n    expect", "truth: {live_start: 9}\n    expect"),
    ("family: tiny\n    params", "family: Tiny\n    params"),
    ("id: tiny.inflight", "id: tiny.inflight.\n"),
    ("{role: user, content: \"first\"}", "{role: human, content: \"first\"}"),
    ("{role: user, content: \"first\"}", "{role: user, content: 3}"),
    ("{type: thinking, thinking: \"plan\", signature: \"s1\"}", "{type: thinking, thinking: \"plan\"}"),
    ("{type: tool_use, id: toolu_01, name: ls, input: {}}", "{type: tool_use, id: toolu_01, name: ls}"),
    ("{type: text, text: \"first done\"}", "{type: \"\", text: \"first done\"}"),
    ("params: {keep_turns: 4}", "params: {keep_turns: 4}\n    features: [a, a]"),
    ("params: {keep_turns: 4}", "params: {keep_turns: 4}\n    expect: {invariants: [no.such-invariant]}"),
    ("params: {keep_turns: 4}", "params: {keep_turns: 4}\n    colour: blue"),
    ("    family: tiny\n    params", "    family: tiny\n    family: again\n    params"),
    ("truth: {live_start: 2}\n    expect", "truth: {live_start: 2, unanswered: [toolu_01]}\n    expect"),
]


@pytest.mark.parametrize("old, new", BAD_EDITS)
def test_every_broken_file_is_refused_with_a_located_error(tmp_path: Path, old: str, new: str) -> None:
    assert old in GOOD
    result = load_file(write(tmp_path, "bad.yaml", GOOD.replace(old, new, 1)))
    assert result.errors, new
    assert all(e.line is not None and e.path.endswith("bad.yaml") for e in result.errors)


@pytest.mark.parametrize("old, new", BAD_EDITS)
def test_the_fast_way_accepts_nothing_the_located_way_refuses(tmp_path: Path, old: str, new: str) -> None:
    text = GOOD.replace(old, new, 1)
    path = write(tmp_path, "bad.yaml", text)
    assert _load_located(path, text, INVARIANT_IDS).errors
    assert _load_fast(path, text, INVARIANT_IDS) is None


@pytest.mark.slow
def test_the_shipped_specs_load_the_same_both_ways(shipped: LoadResult) -> None:
    fast = {s.id: s for s in shipped.scenarios}
    for path in sorted({s.path for s in fast.values()}):
        located = _load_located(Path(path), Path(path).read_text(encoding="utf-8"), INVARIANT_IDS)
        assert not located.errors
        for scenario in located.scenarios:
            assert scenario == fast[scenario.id]


def test_a_json_spec_loads_like_its_yaml(tmp_path: Path) -> None:
    data = load_yaml(GOOD)
    json_path = write(tmp_path, "tiny.json", json.dumps(data, indent=2))
    from_json = load_file(json_path)
    from_yaml = load_file(write(tmp_path / "..", "tiny-as.yaml", GOOD))
    assert not from_json.errors and len(from_json.scenarios) == 2
    assert [s.history for s in from_json.scenarios] == [s.history for s in from_yaml.scenarios]
    lines = json_path.read_text().splitlines()
    assert [lines[s.line - 1].strip() for s in from_json.scenarios] == [
        '"id": "tiny.inflight",', '"id": "tiny.settled",']
    assert {p.name for p in [Path(s.path) for s in load([tmp_path]).scenarios]} == {"tiny.json"}


def test_a_bad_json_spec_is_located(tmp_path: Path) -> None:
    data = load_yaml(GOOD)
    data["scenarios"][1]["colour"] = "blue"
    text = json.dumps(data, indent=2)
    (error,) = load_file(write(tmp_path, "bad.json", text)).errors
    assert error.field == "scenarios[1].colour" and error.line == text.splitlines().index('      "colour": "blue"') + 1
    (error,) = load_file(write(tmp_path, "broken.json", text[:-3])).errors
    assert "invalid JSON" in error.message and error.line is not None
    duplicated = text.replace('"family": "tiny",', '"family": "tiny", "family": "x",', 1)
    (error,) = load_file(write(tmp_path, "dup.json", duplicated)).errors
    assert "duplicate key" in error.message


def test_non_utf8_bytes_are_a_located_spec_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(GOOD.replace("first done", "premi\xe8re").encode("latin-1"))
    (error,) = load([tmp_path]).errors
    line = GOOD.replace("first done", "premi\xe8re").splitlines().index(
        "          - {type: text, text: \"premi\xe8re\"}") + 1
    assert error.line == line and "not UTF-8" in error.message and "byte 0xe8" in error.message


def _expecting(names: list[str]) -> str:
    """Returns GOOD with its last scenario (the settled one) requiring the invariants ``names``."""
    return GOOD + f"    expect: {{invariants: [{', '.join(names)}]}}\n"


def test_the_spec_loader_accepts_every_invariant_id_of_the_catalog(tmp_path: Path) -> None:
    loaded = load([write(tmp_path, "every.yaml", _expecting([inv.id for inv in CATALOG]))])
    assert loaded.errors == []
    (settled,) = [s for s in loaded.scenarios if s.id == "tiny.settled"]
    assert list(settled.expect.invariants or ()) == [inv.id for inv in CATALOG]


def test_the_spec_loader_refuses_an_unknown_invariant_id_with_file_line_and_field(tmp_path: Path) -> None:
    path = write(tmp_path, "unknown.yaml", _expecting(["call.completes", "call.finishes"]))
    (error,) = load([path]).errors
    assert error.path == str(path) and error.line == GOOD.count("\n") + 1
    assert error.field.endswith("expect.invariants[1]") and "unknown invariant id 'call.finishes'" in error.message


def test_the_fast_checks_read_the_shipped_schema() -> None:
    assert _whole_file_check() is not None, "the schema uses keywords the compiled validator reads differently"
    assert not _draft7_safe({"properties": {"a": {"$ref": "#/$defs/a", "minimum": 1}}})
    assert not _draft7_safe({"prefixItems": [{"type": "string"}]})
    shape = _message_shape()
    assert shape is not None, "the schema says more of messages than the fast check reads: extend it"
    roles, needs = shape
    assert set(roles) == {"user", "assistant", "system"} and needs["tool_use"] == ("id", "name", "input")
