"""lint-config exit codes and what it says about each edit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.lint import lint, smallest_tool_task


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_thinking_keep_is_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_thinking_20251015, keep: {type: thinking_turns, value: 1}}\n")
    assert main(["lint-config", path]) == 0
    assert "does not reach" in capsys.readouterr().out


def test_default_tool_clearing_reaches_from_four_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.json", json.dumps({"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}}))
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    assert "4 tool steps" in out and "100000 input tokens" in out and "--max-task-steps" in out


def test_keep_covering_the_longest_task_is_safe(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 6}}\n")
    assert main(["lint-config", path, "--max-task-steps", "6"]) == 0
    assert main(["lint-config", path, "--max-task-steps", "7"]) == 1


def test_tool_uses_trigger_and_clear_at_least_shape_the_smallest_task() -> None:
    assert smallest_tool_task({"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 9},
                               "keep": {"type": "tool_uses", "value": 2}})[0] == 10
    steps, tokens = smallest_tool_task({"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000},
                                        "keep": {"type": "tool_uses", "value": 1},
                                        "clear_at_least": {"type": "input_tokens", "value": 5000}})
    assert steps == 2 and tokens > 10000


def test_threshold_compaction_reaches_and_names_the_alternative(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: compact_20260112}\n")
    assert main(["lint-config", path, "--json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["reaches"] and "150000" in finding["smallest_task"] and "settled answer" in finding["avoid"]


def test_on_demand_compaction_alone_does_not_reach() -> None:
    findings, rejected = lint({"compaction": {"type": "summarize"}})
    assert rejected is None and not findings[0].reaches


@pytest.mark.parametrize("text", [
    "edits:\n  - {type: clear_tool_uses_20250919, keep: 3}\n",
    "edits:\n  - {type: forget_everything}\n",
    "{not yaml",
])
def test_invalid_configs_exit_2(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint-config", write(tmp_path, "c.yaml", text)]) == 2
    assert "lint-config" in capsys.readouterr().err


def test_configs_the_api_rejects_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ("edits:\n  - {type: clear_tool_uses_20250919}\n"
            "  - {type: clear_thinking_20251015, keep: {type: thinking_turns, value: 1}}\n")
    assert main(["lint-config", write(tmp_path, "c.yaml", text)]) == 2
    assert "must be listed first" in capsys.readouterr().err


def test_a_keep_beyond_the_search_still_reaches_without_a_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 250}}\n")
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    assert "251 tool steps" in out and "None" not in out
    assert main(["lint-config", path, "--max-task-steps", "250"]) == 0
    assert "none up to 250 tool steps" in capsys.readouterr().out


def test_max_task_steps_below_one_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919}\n")
    assert main(["lint-config", path, "--max-task-steps", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
