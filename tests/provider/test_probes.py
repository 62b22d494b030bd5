"""Probe specs: the shipped set covers what it must, and bad specs fail with file, line and field."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from typing import Any
from pathlib import Path

import pytest

from conformance.provider.anthropic import semantics as sem
from conformance.provider.anthropic.probes import Probe
from conformance.provider.probes import load_file, load_probes

from .conftest import SPECS
from .._yaml import load_yaml


def test_every_probe_file_points_editors_at_the_schema() -> None:
    for path in sorted(SPECS.glob("*.yaml")):
        assert path.read_text().startswith("# yaml-language-server: $schema=../../conformance/schema/probe.schema.json")


def test_shipped_probes_cover_every_edit_and_verdict(probes: dict[str, Probe]) -> None:
    kinds = {e["type"] for p in probes.values() for e in sem.edits_of(p.request)}
    assert kinds == set(sem.EDIT_TYPES)
    assert any(p.request.get("compaction") for p in probes.values())
    assert {p.predict["verdict"] for p in probes.values()} == {"settled-only", "reached-live-task", "no-edit", "rejected",
                                                               "live-reasoning-lost"}
    assert any(len(sem.edits_of(p.request)) > 1 for p in probes.values())


def test_tool_result_sizes_identify_which_results_were_cleared(probes: dict[str, Probe]) -> None:
    for probe in probes.values():
        sizes = sorted(s.result_tokens for s in sem.tool_steps(probe.messages()) if s.result_tokens > 100)
        assert len(sizes) == len(set(sizes)), probe.id


MINIMAL = """\
format_version: 1
probes:
  - id: t.one
    description: one probe
    request:
      model: m
      max_tokens: 10
      betas: [context-management-2025-06-27]
      context_management:
        edits:
          - {type: clear_tool_uses_20250919, trigger: {type: tool_uses, value: 0}, keep: {type: tool_uses, value: 0}}
    history:
      - {role: user, content: go}
      - role: assistant
        content: [{type: tool_use, id: toolu_1, name: s, input: {}}]
      - role: user
        content: [{type: tool_result, tool_use_id: toolu_1, content: out}]
    live: {from_message: 0, tool_use_ids: [toolu_1], thinking_turns: []}
    predict: {verdict: reached-live-task, cleared_tool_use_ids: [toolu_1]}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "probe.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_minimal_probe_loads(tmp_path: Path) -> None:
    probes, errors = load_file(write(tmp_path, MINIMAL))
    assert not errors and probes[0].family == "clear_tool_uses"


@pytest.mark.parametrize(("old", "new", "line", "needle"), [
    ("verdict: reached-live-task", "verdict: maybe", 19, "predict.verdict"),
    ("type: clear_tool_uses_20250919,", "type: clear_tool_results_20991231,", 11, "edits[0].type"),
    ("tool_use_ids: [toolu_1]", "tool_use_ids: []", 18, "live.tool_use_ids"),
    ("from_message: 0", "from_message: 2", 18, "live.from_message"),
    ("cleared_tool_use_ids: [toolu_1]", "cleared_tool_use_ids: []", 19, "predict.cleared_tool_use_ids"),
    ("tool_uses, value: 0}}", "tool_uses, value: 5}}", 19, "predict.verdict"),
    ("keep: {type: tool_uses, value: 0}", "keep: {type: turns, value: 0}", 11, "edits[0].keep"),
])
def test_bad_probes_are_located(tmp_path: Path, old: str, new: str, line: int, needle: str) -> None:
    assert old in MINIMAL
    probes, errors = load_file(write(tmp_path, MINIMAL.replace(old, new)))
    assert not probes and len(errors) == 1
    assert errors[0].line == line and needle in errors[0].field, str(errors[0])


def test_duplicate_ids_across_files_are_errors(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(MINIMAL)
    (tmp_path / "b.yaml").write_text(MINIMAL)
    probes, errors = load_probes([tmp_path])
    assert list(probes) == ["t.one"] and "duplicate probe id" in str(errors[0])


def test_scenario_files_are_not_probe_files(tmp_path: Path) -> None:
    probes, errors = load_file(write(tmp_path, "format_version: 1\nscenarios: []\n"))
    assert not probes and "not a probe file" in str(errors[0])


THINKING = """\
format_version: 1
probes:
  - id: t.two
    description: two tasks
    request: {model: m, max_tokens: 10}
    script: {thinking: {type: enabled, budget_tokens: 1024}}
    history:
      - {role: user, content: first}
      - role: assistant
        content: [{type: thinking, thinking: plan, signature: s}, {type: text, text: done}]
      - {role: user, content: second}
      - role: assistant
        content: [{type: thinking, thinking: plan, signature: s}, {type: tool_use, id: toolu_2, name: s, input: {q: x}}]
      - role: user
        content: [{type: tool_result, tool_use_id: toolu_2, content: out}]
    padding: [{message: 4, block: 0, tokens: 5}]
    live: {from_message: 2, tool_use_ids: [toolu_2], thinking_turns: [2]}
    predict: {verdict: no-edit}
"""


@pytest.mark.parametrize(("old", "new", "needle"), [
    ("from_message: 2,", "from_message: 0,", "a settled assistant answer follows it"),
    ("thinking_turns: [2]", "thinking_turns: [1, 2]", "thinking turns are [2]"),
    ("{message: 4, block: 0, tokens: 5}", "{message: 9, block: 0, tokens: 5}", "points at no content block"),
    ("{message: 4, block: 0, tokens: 5}", "{message: 0, block: 0, tokens: 5}", "points at no content block"),
    ("{message: 4, block: 0, tokens: 5}", "{message: 3, block: 1, tokens: 5}", "needs `field`"),
    ("{message: 4, block: 0, tokens: 5}", "{message: 1, block: 0, tokens: 5}", "pad only user messages"),
    ("    script: {thinking: {type: enabled, budget_tokens: 1024}}\n", "", "thinking cannot be written by hand"),
])
def test_live_span_and_padding_are_checked(tmp_path: Path, old: str, new: str, needle: str) -> None:
    assert old in THINKING
    probes, errors = load_file(write(tmp_path, THINKING.replace(old, new)))
    assert not probes and needle in str(errors[0]), [str(e) for e in errors]


def test_thinking_probe_loads_and_an_unanswered_request_is_refused(tmp_path: Path) -> None:
    probes, errors = load_file(write(tmp_path, THINKING))
    assert not errors and probes[0].messages()[4]["content"][0]["content"].startswith("out ")
    unanswered = THINKING.replace("content: [{type: thinking, thinking: plan, signature: s}, {type: text, text: done}]",
                                  "content: [{type: thinking, thinking: plan, signature: s}, {type: tool_use, id: t1, name: s, input: {}}]").replace(
        "- {role: user, content: second}", "- {role: user, content: [{type: tool_result, tool_use_id: t1, content: r}, {type: text, text: second}]}")
    probes, errors = load_file(write(tmp_path, unanswered))
    assert not probes and "an earlier user request is still unanswered" in str(errors[0])


def test_blocks_without_text_cannot_be_padded(tmp_path: Path) -> None:
    text = THINKING.replace("{type: text, text: done}]", "{type: text, text: done}, {type: redacted_thinking, data: x}]")
    probes, errors = load_file(write(tmp_path, text.replace("{message: 4, block: 0, tokens: 5}", "{message: 1, block: 2, tokens: 5}")))
    assert not probes and "cannot pad a redacted_thinking block" in str(errors[0])


@pytest.mark.slow
def test_the_compiled_probe_check_accepts_nothing_the_located_validator_refuses() -> None:
    """Every value of every shipped probe file, swapped in turn for values of other types: the
    compiled check (the fast path) never accepts a document the located validator has errors in."""
    import jsonschema

    from conformance.provider.probes import _compiled, schema

    check = _compiled()
    assert check is not None, "the probe schema uses keywords the compiled validator reads differently"
    validator = jsonschema.Draft202012Validator(schema())
    document = load_yaml((SPECS / "clear-tool-uses.yaml").read_text(encoding="utf-8"))
    document["probes"] = document["probes"][:1]
    replacements = [None, True, 0, 1.5, "", "(", [], {"unknown": 1}]
    swapped = refused = 0

    def places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        if path:
            yield path
        if isinstance(node, dict):
            for key, value in node.items():
                yield from places(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node[:1]):
                yield from places(value, (*path, index))

    for path in places(document):
        for value in replacements:
            mutated = json.loads(json.dumps(document))
            parent = mutated
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = value
            swapped += 1
            try:
                check(mutated)
            except Exception:  # noqa: BLE001 - refused fast: the located validator reads it
                refused += 1
                continue
            assert not list(validator.iter_errors(mutated)), (path, value)
    assert swapped > 300 and refused > swapped // 4, (swapped, refused)
