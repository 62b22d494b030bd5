"""``conformance explain FILE --interaction N``: one interaction of a real recording, judged by the
analyzer, its history listed with the task in flight marked (verdicts as tests/provider/real/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[1] / "provider"
REAL = ROOT / "real"
GATEWAY = ROOT / "dialects" / "gateway-messages.anthropic.jsonl"


def _explain(capsys: pytest.CaptureFixture[str], path: Path | str, *args: str) -> tuple[int, list[str], str]:
    code = main(["explain", str(path), *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def _at(lines: list[str], start: str) -> int:
    return next(n for n, line in enumerate(lines) if line.lstrip().startswith(start))


def test_a_folded_request_is_marked_in_flight_and_reached(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = _explain(capsys, REAL / "ruby_llm" / "anthropic_compacts_a_long_conversation.yml",
                                "--interaction", "0")
    assert code == 1 and not err  # reached into the task in flight: exit 1, as analyze gives
    boundary = _at(lines, "──── task in flight starts here: live_start = 0")
    assert lines[boundary + 1].lstrip().startswith("[0] user") and _at(lines, "request history (1 message)") < boundary
    assert "verdict: reached-live-task" in lines and _at(lines, "verdict:") > boundary
    assert "  - folded into the summary: the request (message 0)" in lines
    assert any(line.startswith("response: compaction #") for line in lines)  # the summary as hash and length


def test_a_carried_block_is_followed_to_its_interaction_and_settled(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _explain(capsys, REAL / "anthropic" / "test_anthropic_compaction_end_to_end.yaml",
                              "--interaction", "1")
    assert code == 0
    boundary = _at(lines, "──── task in flight starts here: live_start = 2")
    assert lines[boundary - 1].lstrip().startswith("[1] assistant compaction #")
    assert lines[boundary + 1].lstrip().startswith("[2] user")
    assert "verdict: settled-only" in lines
    assert any("(from interaction 0)" in line for line in lines)


def test_a_previous_response_id_chain_is_rebuilt_from_the_same_file(capsys: pytest.CaptureFixture[str]) -> None:
    path = REAL / "openai" / "test_openai_responses_compact_with_auto_previous_response_id_chain.yaml"
    code, lines, _ = _explain(capsys, path, "--interaction", "2")
    assert code == 0 and "request history (4 items):" in lines  # its own input is empty: the chain gives 4
    assert [line.split("]")[0].strip() for line in lines if line.startswith("  [")] == ["[0", "[1", "[2", "[3"]
    assert _at(lines, "──── no task in flight: the history ends settled (live_start = 4)") > _at(lines, "[3]")
    assert "verdict: settled-only" in lines


def test_a_bad_index_a_missing_file_and_no_index_are_one_line_errors(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path) -> None:
    path = REAL / "anthropic" / "test_anthropic_compaction_end_to_end.yaml"
    not_a_recording = tmp_path / "notes.txt"
    not_a_recording.write_text("hello\n", encoding="utf-8")
    for args, says in [((path, "--interaction", "2"), "holds interactions 0 to 1: no interaction 2"),
                       ((path, "--interaction", "-1"), "0 or more"),
                       ((tmp_path / "gone.yaml", "--interaction", "0"), "no such file"),
                       ((not_a_recording, "--interaction", "0"), "notes.txt"),
                       ((path,), "give --interaction N")]:
        code, lines, err = _explain(capsys, *args)
        assert code == 2 and not lines, args
        assert err.count("\n") == 1 and says in err and "Traceback" not in err, (args, err)


def test_an_unreadable_line_is_exit_2_and_the_line_before_it_is_explained(capsys: pytest.CaptureFixture[str],
                                                                          tmp_path: Path) -> None:
    path = tmp_path / "gateway.jsonl"
    path.write_text(GATEWAY.read_text(encoding="utf-8").splitlines()[0] + "\n{not json\n", encoding="utf-8")
    code, lines, err = _explain(capsys, path, "--interaction", "1")
    assert code == 2 and not lines and err.count("\n") == 1 and "line 2 cannot be read" in err
    code, lines, _ = _explain(capsys, path, "--interaction", "0")
    assert code == 1 and "verdict: reached-live-task" in lines


def test_reasoning_in_the_history_shows_as_hash_and_length_only(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    record = json.loads(GATEWAY.read_text(encoding="utf-8").splitlines()[0])
    canary = "I should quietly consider the secret plan before answering the question"
    record["messages"] += [{"role": "assistant", "content": [{"type": "thinking", "thinking": canary, "signature": "s"},
                                                             {"type": "text", "text": "A fox."}]},
                           {"role": "user", "content": "And which dog?"}]
    path = tmp_path / "thinking.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, lines, _ = _explain(capsys, path, "--interaction", "0")
    out = "\n".join(lines)
    assert code == 1 and "thinking #" in out and f"({len(canary)} chars)" in out
    assert canary[:20] not in out and "secret plan" not in out
    assert lines[_at(lines, "[1]")].lstrip().startswith("[1] assistant thinking #")


def test_an_openai_reasoning_item_shows_as_hash_and_length_only(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    record = json.loads((ROOT / "dialects" / "gateway-request-body.openai.jsonl").read_text(encoding="utf-8")
                        .splitlines()[0])
    canary = "First weigh which forest animal the user secretly prefers, then"
    record["request_body"]["input"] += [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": canary}],
         "encrypted_content": "gAAAA" + "x" * 40},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Once upon a time"}]},
        {"role": "user", "content": "Another one?"}]
    path = tmp_path / "reasoning.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code, lines, _ = _explain(capsys, path, "--interaction", "0")
    out = "\n".join(lines)
    assert code == 0 and "request history (4 items):" in lines
    assert lines[_at(lines, "[1]")].lstrip().startswith("[1] reasoning rs_1 #") and f"({len(canary)} chars)" in out
    assert "encrypted (45 chars)" in out and "gAAAA" not in out
    assert canary[:20] not in out and "secretly" not in out
