"""``lint-config`` on the thinking clearing a model does by default, with thinking on and no
``clear_thinking_20251015`` edit.

The expected outcomes are the research note's reading of the context-editing page ("Default behavior:
The default varies by model class"), which holds with no ``context_management`` at all: Claude Haiku
through 4.5, Sonnet 4.5 and earlier and Opus 4.1 and earlier keep only the last turn's thinking (as
``keep: {type: thinking_turns, value: 1}`` does); Opus 4.5 and later, Sonnet 4.6 and later, Fable and
Mythos keep every turn's. Keep 1 reaches a task of 2 steps whose tool results carry text (the first
step's thinking is a turn older than the last).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.provider.anthropic.lint import checked_safer_config, lint

THINKING = {"type": "enabled", "budget_tokens": 4096}
TOOLS_KEEP_20 = {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 20}}
KEEP_ALL = {"type": "clear_thinking_20251015", "keep": {"type": "all"}}
DEFAULT = "default thinking clearing"

LAST_TURN_ONLY = ["claude-haiku-4-5", "claude-haiku-4-5-20251001", "claude-sonnet-4-5", "claude-sonnet-4-20250514",
                  "claude-opus-4-1", "claude-opus-4-20250514", "claude-3-7-sonnet-20250219",
                  "anthropic.claude-haiku-4-5-20251001-v1:0"]
EVERY_TURN = ["claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-5-5", "claude-fable-5-1",
              "claude-mythos-5-2"]
NOT_IN_THE_TABLE = ["claude-haiku-5-5", "gpt-5.2"]


def lint_json(tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str],
              *args: str) -> tuple[int, list[dict[str, Any]]]:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    code = main(["lint-config", str(path), "--json", "-", *args])
    return code, json.loads(capsys.readouterr().out)


def default_of(found: list[dict[str, Any]]) -> dict[str, Any]:
    [only] = [f for f in found if f["edit"] == DEFAULT]
    return only


@pytest.mark.parametrize("model", LAST_TURN_ONLY)
def test_an_older_model_clears_thinking_of_a_task_in_flight_without_an_edit(
        model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {"model": model, "thinking": THINKING, "context_management": {"edits": [TOOLS_KEEP_20]}}
    code, found = lint_json(tmp_path, config, capsys, "--task-size", "20")
    assert code == 1
    line = default_of(found)
    assert line["reaches"] is True and line["smallest_steps"] == 2
    assert model in line["label"] and "default" in line["label"] and "no clear_thinking edit" in line["label"]
    assert "clear_thinking_20251015 with keep {type: all}" in line["avoid"] and "first" in line["avoid"]
    assert found[0]["edit"] == DEFAULT  # said first, where its edit goes


def test_the_default_is_the_same_finding_as_an_explicit_keep_of_one(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    implicit = {"model": "claude-haiku-4-5", "thinking": THINKING, "context_management": {"edits": [TOOLS_KEEP_20]}}
    explicit = {**implicit, "context_management": {"edits": [
        {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}, TOOLS_KEEP_20]}}
    for size in ("1", "20"):
        code_implicit, found = lint_json(tmp_path, implicit, capsys, "--task-size", size)
        code_explicit, given = lint_json(tmp_path, explicit, capsys, "--task-size", size)
        assert code_implicit == code_explicit == (0 if size == "1" else 1)
        assert default_of(found)["smallest_steps"] == given[0]["smallest_steps"]
        assert [f["edit"] for f in given].count(DEFAULT) == 0  # an explicit edit replaces the default


def test_no_context_management_at_all_still_clears_by_default(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    config = {"model": "claude-opus-4-1", "thinking": {"type": "adaptive"}}
    code, found = lint_json(tmp_path, config, capsys)
    assert code == 1 and default_of(found)["reaches"] is True


@pytest.mark.parametrize("config", [
    {"model": "claude-haiku-4-5", "thinking": THINKING, "context_management": {"edits": [TOOLS_KEEP_20]}},
    {"model": "claude-sonnet-4-5", "thinking": THINKING},
    {"model": "claude-haiku-4-5", "thinking": THINKING, "compaction": {"type": "summarize"}},
])
def test_the_safer_configuration_adds_keep_all_first_and_lints_clean(config: dict[str, Any]) -> None:
    found, rejected = lint(config, 20)
    assert rejected is None and any(f.reaches for f in found)
    safer = checked_safer_config(config, found, 20)
    assert safer is not None
    edits = safer["context_management"]["edits"]
    assert edits[0] == KEEP_ALL
    assert edits[1:] == (config.get("context_management") or {}).get("edits", [])
    again, rejected = lint(safer, 20)
    assert rejected is None and not any(f.reaches for f in again)


@pytest.mark.parametrize("model", EVERY_TURN)
def test_a_model_that_keeps_every_turn_passes(model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = lint_json(tmp_path, {"model": model, "thinking": THINKING}, capsys)
    assert code == 0
    assert default_of(found)["reaches"] is False and "keeps every turn's thinking" in default_of(found)["smallest_task"]


@pytest.mark.parametrize("args", [[], *(["--model", m] for m in NOT_IN_THE_TABLE)])
def test_without_a_known_model_it_says_it_depends_on_the_model(args: list[str], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, found = lint_json(tmp_path, {"thinking": THINKING, "context_management": {"edits": [TOOLS_KEEP_20]}},
                            capsys, "--task-size", "20", *args)
    assert code == 0
    line = default_of(found)
    assert line["reaches"] is False and line["smallest_task"].startswith("depends on the model")
    assert "Haiku 4.5" in line["smallest_task"] and "keep {type: all}" in line["avoid"]


@pytest.mark.parametrize("config", [
    {"model": "claude-haiku-4-5", "context_management": {"edits": [TOOLS_KEEP_20]}},  # thinking not given
    {"model": "claude-haiku-4-5", "thinking": {"type": "disabled"}},
    {"model": "claude-haiku-4-5", "thinking": THINKING, "context_management": {"edits": [KEEP_ALL]}},
])
def test_no_default_finding_without_thinking_or_with_an_edit(config: dict[str, Any], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, found = lint_json(tmp_path, config, capsys, "--task-size", "20")
    assert code == 0 and DEFAULT not in [f["edit"] for f in found]
