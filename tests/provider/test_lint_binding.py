"""``lint-config`` on ``thinking.block_binding``: ``drop_block`` hides a client's edit rather than
fixing it (a failing finding, with the fix and a safer configuration), ``error`` passes, and with a
model named it says what that model does when a thinking block sent back fails its prefix check.

The expected outcomes per model are the research note's table (preserved thinking, section 2.1):
Fable 5.2 and Mythos 5.2 reject on every account; Fable 5.1, Opus 5.5, Sonnet 5.5 and Haiku 5.5
reject by default on accounts created from 2026-08-31; Mythos 5.1's documentation disagrees;
earlier models run no check.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.provider.anthropic.lint import checked_safer_config, lint

DROP = {"thinking": {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}}
ERROR = {"thinking": {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "error"}}}


def write(tmp_path: Path, config: dict[str, Any], name: str = "c.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(config))
    return str(path)


def findings(path: str, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    code = main(["lint-config", path, "--json", "-", *args])
    return code, json.loads(capsys.readouterr().out)


def binding(found: list[dict[str, Any]]) -> dict[str, Any]:
    [only] = [f for f in found if f["edit"] == "thinking.block_binding"]
    return only


def test_drop_block_hides_the_edit_and_the_lint_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, DROP)
    assert main(["lint-config", path]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "thinking.block_binding (prefix_mismatch_behavior drop_block)" in out
    assert "the edit is hidden, not fixed" in out and "goes on without its reasoning" in out
    assert "set prefix_mismatch_behavior to error" in out and "change settled history only at a task boundary" in out
    assert "lint-config: reaches into a task in flight via thinking.block_binding" in out
    assert "safer configuration (lints clean):" in out and "block_binding: {prefix_mismatch_behavior: error}" in out


def test_the_safer_configuration_keeps_the_rest_and_lints_clean() -> None:
    config = {**DROP, "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}}
    found, rejected = lint(config)
    assert rejected is None and [f.reaches for f in found] == [False, True]
    safer = checked_safer_config(config, found, None)
    assert safer == {**ERROR, "context_management": config["context_management"]}
    again, _ = lint(safer)
    assert not any(f.reaches for f in again)


def test_error_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = findings(write(tmp_path, ERROR), capsys)
    assert code == 0
    assert binding(found)["reaches"] is False and "never a silent loss" in binding(found)["smallest_task"]
    assert binding(found)["on_failed_check"] == ""  # no model named: nothing said about one


def test_a_configuration_without_thinking_or_model_says_nothing_of_it(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]})
    code, found = findings(path, capsys)
    assert code == 0 and [f["edit"] for f in found] == ["clear_thinking_20251015"]


# model -> (words of its line, whether drop_block is still a failing finding on it)
MODELS = {
    "claude-fable-5-2": ("(Claude Fable 5.2 / Mythos 5.2) runs the prefix check", "on every account", True),
    "claude-mythos-5-2": ("(Claude Fable 5.2 / Mythos 5.2) runs the prefix check", "on every account", True),
    "claude-fable-5-1": ("(Claude Fable 5.1) runs the prefix check", "created on or after 2026-08-31", True),
    "claude-opus-5-5": ("enforced as Claude Fable 5.1) runs the prefix check", "thinking_mismatch_allowed", True),
    "claude-sonnet-5-5": ("(Claude Sonnet 5.5) runs the prefix check", "created on or after 2026-08-31", True),
    "claude-haiku-5-5-20261101": ("(Claude Haiku 5.5) runs the prefix check", "on older accounts", True),
    "anthropic.claude-opus-5-5-v1:0": ("runs the prefix check", "created on or after 2026-08-31", True),
    "claude-fable-5.2": ("(Claude Fable 5.2 / Mythos 5.2) runs the prefix check", "on every account", True),
    "anthropic/claude-sonnet-5.5": ("(Claude Sonnet 5.5) runs the prefix check", "created on or after 2026-08-31", True),
    "claude-fable-5-10": ("not a model the table this lint rests on names", "cannot be said", True),
    "claude-mythos-5-1": ("may or may not run the prefix check", "the documentation disagrees", True),
    "claude-sonnet-5": ("(models before Claude Fable 5.1) does not run the prefix check", "nothing reports it", False),
    "claude-opus-5-20260101": ("does not run the prefix check", "nothing reports it", False),
    "claude-haiku-4-5": ("does not run the prefix check", "nothing reports it", False),
    "claude-3-5-sonnet-20241022": ("does not run the prefix check", "nothing reports it", False),
    "claude-fable-6": ("not a model the table this lint rests on names", "cannot be said", True),
    "gpt-5.2": ("not a model the table this lint rests on names", "cannot be said", True),
}


@pytest.mark.parametrize("model", sorted(MODELS))
def test_a_model_named_says_what_it_does_when_the_field_is_unset(model: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    runs, unset, _ = MODELS[model]
    code, found = findings(write(tmp_path, {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}), capsys,
                           "--model", model)
    assert code == 0
    line = binding(found)
    assert line["label"] == f"prefix_mismatch_behavior unset, model {model}" and line["reaches"] is False
    assert line["on_failed_check"].startswith(model) and runs in line["on_failed_check"]
    assert unset in line["on_failed_check"]


# unset, the research table's outcome depends on the account's creation date on these (a 400 from
# 2026-08-31, the block reaching the model before): not a failing finding, but not "none" either
BY_ACCOUNT = {"claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5-20261101",
              "anthropic.claude-opus-5-5-v1:0", "anthropic/claude-sonnet-5.5"}


@pytest.mark.parametrize("model", sorted(MODELS))
def test_unset_says_when_it_depends_on_the_account(model: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, found = findings(write(tmp_path, {"thinking": {"type": "adaptive"}, "context_management": {
        "edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}}), capsys, "--model", model)
    line = binding(found)
    assert code == 0 and line["reaches"] is False
    depends = line["smallest_task"].startswith("depends on the account's creation date")
    assert depends == (model in BY_ACCOUNT)
    if depends:
        assert "reach the model" in line["smallest_task"] and "2026-08-31" in line["smallest_task"]
        assert "before 2026-08-31" in line["avoid"] and "set prefix_mismatch_behavior to error" in line["avoid"]


@pytest.mark.parametrize("model", sorted(MODELS))
def test_drop_block_on_a_model(model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, hides = MODELS[model]
    keep_all = {"context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}}
    code, found = findings(write(tmp_path, {**DROP, **keep_all}), capsys, "--model", model)  # the binding alone
    line = binding(found)
    assert (code, line["reaches"]) == ((1, True) if hides else (0, False))
    if hides:
        assert "the edit is hidden, not fixed" in line["smallest_task"]
    else:  # a model that runs no check drops nothing: the setting changes nothing there
        assert "changes nothing" in line["smallest_task"] and "nothing is dropped" in line["on_failed_check"]


def test_error_on_a_checking_model_is_a_400(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, found = findings(write(tmp_path, ERROR), capsys, "--model", "claude-fable-5-1")
    assert code == 0
    assert "with prefix_mismatch_behavior error: a 400" in binding(found)["on_failed_check"]


def test_the_model_of_the_configuration_is_read_and_the_option_wins(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, {**DROP, "model": "claude-sonnet-5"})
    code, found = findings(path, capsys)
    assert code == 0 and binding(found)["label"].endswith("model claude-sonnet-5")
    code, found = findings(path, capsys, "--model", "claude-fable-5-2")
    assert code == 1 and "on every account" not in binding(found)["on_failed_check"]  # (drop_block's outcome)
    assert binding(found)["on_failed_check"].startswith("claude-fable-5-2 (Claude Fable 5.2 / Mythos 5.2)")


def test_the_table_names_the_model_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint-config", write(tmp_path, DROP), "--model", "claude-opus-5-5"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "on a failed prefix check: claude-opus-5-5 (Claude Opus 5.5, enforced as Claude Fable 5.1)" in out
    assert "drop_block: 200, the failing block and every later thinking block dropped" in out


@pytest.mark.parametrize(("config", "field"), [
    ({"thinking": {"block_binding": {"prefix_mismatch_behavior": "ignore"}}}, "prefix_mismatch_behavior"),
    ({"thinking": {"block_binding": {}}}, "block_binding"),
    ({"thinking": {"type": "adaptive", "binding": {}}}, "thinking"),
    ({**ERROR, "model": ""}, "model"),
])
def test_a_bad_thinking_setting_exits_2_naming_the_field(config: dict[str, Any], field: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint-config", write(tmp_path, config)]) == 2
    err = capsys.readouterr().err
    assert field in err and "c.json" in err


def test_a_model_for_a_configuration_whose_lint_reads_none_is_a_usage_error(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "openai.yaml"
    path.write_text("truncation: disabled\n")
    assert main(["lint-config", str(path), "--model", "claude-fable-5-1"]) == 2
    assert "--model" in capsys.readouterr().err
