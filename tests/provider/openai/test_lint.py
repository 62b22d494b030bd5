"""`conformance lint-config` reads an OpenAI configuration: context_management compaction and truncation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.openai import semantics as sem


def _config(tmp_path: Path, text: str, name: str = "config.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_threshold_compaction_with_function_tools_folds_settled_work_only(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, "context_management:\n  - {type: compaction, compact_threshold: 200000}\n"
                             "tools: [{type: function, name: read_file}]\n")
    assert main(["lint-config", path]) == 0
    assert "does not reach into a task in flight" in capsys.readouterr().out


def test_hosted_tools_let_threshold_compaction_reach(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, "context_management:\n  - {type: compaction}\ntools: [{type: web_search}]\n")
    assert main(["lint-config", path]) == 1
    assert "web_search" in capsys.readouterr().out


def test_auto_truncation_reaches_from_the_window_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps({"model": "gpt-4o-mini", "truncation": "auto"}), "config.json")
    assert main(["lint-config", path, "--json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["reaches"] and finding["smallest_tokens"] == sem.window_limit("gpt-4o-mini") + 1
    disabled = _config(tmp_path, "truncation: disabled\n")
    assert main(["lint-config", disabled]) == 0


def test_a_bad_openai_configuration_names_its_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, "truncation: sometimes\n")
    assert main(["lint-config", path]) == 2
    assert "truncation" in capsys.readouterr().err
    path = _config(tmp_path, "context_management:\n  - {type: compaction, compact_threshold: 0}\n")
    assert main(["lint-config", path]) == 2
