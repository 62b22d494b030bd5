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


def test_threshold_compaction_with_function_tools_is_never_called_safe(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The provider documents compaction while a response streams; no recording shows a tool loop
    crossing the threshold: the linter says it can, that no recording shows it, and how to find out."""
    path = _config(tmp_path, "context_management:\n  - {type: compaction, compact_threshold: 200000}\n"
                             "tools: [{type: function, name: read_file}]\n")
    assert main(["lint-config", path]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "reaches into a task in flight: can: documented, no recording shows it" in out
    assert "does not reach" not in out
    assert "conformance record --provider openai --probe openai-threshold.open-call" in out
    assert "conformance verify" in out


def test_hosted_tools_let_threshold_compaction_reach(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, "context_management:\n  - {type: compaction}\ntools: [{type: web_search}]\n")
    assert main(["lint-config", path]) == 1
    assert "web_search" in capsys.readouterr().out


CLIENT_RUN = ["custom", "computer_use_preview", "local_shell", "apply_patch"]  # calls the client answers


def test_tools_the_client_runs_are_not_called_hosted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = [{"type": t} for t in CLIENT_RUN] + [{"type": "tool_search", "execution": "client"},
                                                  {"type": "shell", "environment": {"type": "local"}}]
    path = _config(tmp_path, json.dumps({"context_management": [{"type": "compaction"}], "tools": tools}), "c.json")
    assert main(["lint-config", path]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "hosted" not in out, out
    assert "reaches into a task in flight: can: documented, no recording shows it" in out
    for name in [*CLIENT_RUN, "tool_search (execution client)", "shell (local)"]:
        assert name in out.split("the client runs ")[1].split(" as it runs function tools")[0], name


def test_hosted_tools_are_named_apart_from_those_the_client_runs(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    tools = [{"type": "custom"}, {"type": "tool_search"}, {"type": "shell", "environment": {"type": "container_auto"}},
             {"type": "web_search"}]
    path = _config(tmp_path, json.dumps({"context_management": [{"type": "compaction"}], "tools": tools}), "c.json")
    assert main(["lint-config", path, "--json", "-"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    hosted = finding["smallest_task"].split("runs hosted tools (")[1].split(") past the threshold")[0]
    assert hosted == "shell (container_auto), tool_search (execution server), web_search"
    assert not finding["documented_only"]


def test_auto_truncation_reaches_from_the_window_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _config(tmp_path, json.dumps({"model": "gpt-4o-mini", "truncation": "auto"}), "config.json")
    assert main(["lint-config", path, "--json", "-"]) == 1
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
