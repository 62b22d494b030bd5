"""A failure of a target that speaks another format quotes, beside the converted (Anthropic-shaped)
view, what the target was given and returned in its own format and numbering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
PARALLEL = ROOT / "specs" / "parallel-tools.yaml"
SECRET = "a private line of reasoning about the file listing"
THINKING = f"""\
format_version: 1
scenarios:
  - id: thought.inflight
    description: a task in flight whose call was reasoned about
    family: tiny
    history:
      - {{role: user, content: "list the files"}}
      - role: assistant
        content:
          - {{type: thinking, thinking: "{SECRET}", signature: "c2lnMQ=="}}
          - {{type: tool_use, id: toolu_01, name: ls, input: {{}}}}
      - role: user
        content:
          - {{type: tool_result, tool_use_id: toolu_01, content: "a b"}}
    truth: {{live_start: 0}}
"""


def drop_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Chat Completions compactor that drops every tool message."""
    return [m for m in messages if m.get("role") != "tool"]


def clear_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Chat Completions compactor that clears each tool message's text."""
    return [{**m, "content": "[cleared]"} if m.get("role") == "tool" else m for m in messages]


def drop_the_last_two(contents: list[Any]) -> list[Any]:
    """Drops the last two messages (a GenAI compactor here: the model's reasoned call and its answer)."""
    return contents[:-2]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["run", "--no-provider", *argv]) == 1
    return capsys.readouterr().out


@pytest.mark.slow
def test_a_failure_in_openai_chat_quotes_the_target_items_with_their_own_indices(
        capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--specs", str(PARALLEL), "--format", "openai-chat", "-v",  # -v: every failure
               "--target", "tests.formats.test_format_failures:drop_tool_messages")
    lines = out.splitlines()
    at = next(k for k, line in enumerate(lines) if "expected input[8]: " in line
              and "window-edge-inside-settled-batch" in "\n".join(lines[k - 4:k]))
    # two tool messages stand for the one Anthropic message of two results: the numbering differs
    assert any("as the target was given it (openai-chat): input[9:11]: [{\"role\": \"tool\"" in line
               for line in lines[at:at + 4]), "\n".join(lines[at - 4:at + 8])
    assert any("as the target returned it (openai-chat)" in line and "tool_calls" in line
               for line in lines), out


@pytest.mark.slow
def test_a_changed_tool_result_shows_the_tool_message_the_target_returned(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--specs", str(PARALLEL), "--format", "openai-chat",
               "--target", "tests.formats.test_format_failures:clear_tool_messages")
    assert "as the target returned it (openai-chat): output[" in out
    native = [line for line in out.splitlines() if "as the target returned it (openai-chat)" in line]
    assert native and all('"role": "tool"' in line or '"role"' in line for line in native)


@pytest.mark.slow
def test_the_anthropic_format_adds_no_second_quote(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--specs", str(PARALLEL), "--target", "tests.formats.test_format_failures:drop_the_last_two")
    assert "expected input[" in out and "as the target" not in out


def test_the_own_format_quote_shows_no_reasoning_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "thought.yaml"
    spec.write_text(THINKING, encoding="utf-8")
    out = _run(capsys, "--specs", str(spec), "--format", "google-genai",
               "--target", "tests.formats.test_format_failures:drop_the_last_two")
    assert "as the target was given it (google-genai): input[1]" in out, out
    assert SECRET not in out and "private line" not in out


SUMMARY = "Summary: look at replica lag against the paging threshold, then answer"


def summarize_reasoning(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A Responses compactor that swaps each reasoning item's raw content for a summary of it (as
    OpenAI's own reasoning items carry one), keeping its ciphertext."""
    out = []
    for item in items:
        if item.get("type") == "reasoning" and item.get("content"):
            item = {k: v for k, v in item.items() if k != "content"}
            item["summary"] = [{"type": "summary_text", "text": SUMMARY}]
        out.append(item)
    return out


def test_a_reasoning_summary_the_target_returns_is_not_quoted(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The summary is reasoning text the Anthropic view drops (the item reads as redacted_thinking):
    its own-format quote shows it as hash and length, in the terminal and the --json records."""
    spec = tmp_path / "thought.yaml"
    spec.write_text(THINKING, encoding="utf-8")
    records = tmp_path / "out.json"
    out = _run(capsys, "--specs", str(spec), "--format", "openai-responses", "--json", str(records),
               "--target", "tests.formats.test_format_failures:summarize_reasoning")
    assert "as the target returned it (openai-responses): output[" in out and '"summary_text"' in out, out
    for text in (out, records.read_text()):
        assert SUMMARY not in text and "replica lag" not in text and "paging threshold" not in text
        assert SECRET not in text


def test_explain_quotes_the_target_items_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "parallel-tools.window-edge-inside-settled-batch", "--specs", str(PARALLEL),
                 "--format", "openai-chat", "--target", "tests.formats.test_format_failures:drop_tool_messages"]) == 1
    out = capsys.readouterr().out  # (1: the target fails a MUST check, as run exits for it)
    assert "as the target was given it (openai-chat): input[9:11]" in out, out


def test_every_failure_quotes_the_target_in_its_own_format(capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever the invariant, a failure of a target in another format quotes that target's own items."""
    out = _run(capsys, "--specs", str(PARALLEL), "--format", "openai-chat", "-v", "--in-process",
               "--target", "tests.formats.test_format_failures:drop_tool_messages")
    failures, current = [], None
    for line in out.splitlines():
        if line.startswith(("[MUST]", "[SHOULD]")):
            current = [line]
            failures.append(current)
        elif current is not None and line.startswith("    "):
            current.append(line)
        else:
            current = None
    assert len(failures) >= 5
    unquoted = [f[0] for f in failures if not any("as the target" in line for line in f)]
    assert not unquoted, unquoted
