"""No reasoning text reaches the terminal, the JSON records or a pytest failure, whatever a target does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main

from ._specs import GOOD, write

SECRET = "plan 2"  # the thinking text of the tiny scenario's task in flight


def edit_thinking(history: list) -> list:
    """Rewrites every thinking block, quoting the original text in the new one and in an error."""
    return [{**m, "content": [{**b, "thinking": b["thinking"] + " (edited)"} if b["type"] == "thinking" else b
                              for b in m["content"]]} if isinstance(m["content"], list) else m for m in history]


def raise_with_thinking(history: list) -> list:
    """Raises an error whose message quotes a thinking block."""
    text = next(b["thinking"] for m in history if isinstance(m["content"], list) for b in m["content"]
                if b["type"] == "thinking")
    raise ValueError(f"could not parse thinking {text!r}")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["edit_thinking", "raise_with_thinking"])
def test_cli_output_and_json_hold_no_reasoning_text(name: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "tiny.yaml", GOOD)
    out_file = tmp_path / "out.json"
    code = main(["run", "--no-provider", "--specs", str(folder), "--target", f"tests.test_no_reasoning_text:{name}",
                 "--json", str(out_file)])
    printed = capsys.readouterr().out
    assert code == 1
    assert "thinking" in printed  # the failures are reported...
    assert SECRET not in printed and SECRET not in out_file.read_text()  # ...without their text
    assert json.loads(out_file.read_text())["records"]


LONG = "First check the replica lag, then compare it with the paging threshold before answering."


def quote_a_piece_of_thinking(history: list) -> list:
    """Keeps everything, but adds a note quoting 40 characters from the middle of a thinking block."""
    piece = LONG[12:52]
    return [*history[:-1], {**history[-1], "content": [*history[-1]["content"],
                                                       {"type": "text", "text": f"note: {piece}..."}]}]


@pytest.mark.slow
def test_a_quoted_piece_of_reasoning_is_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "tiny.yaml", GOOD.replace('thinking: "plan 2"', f'thinking: "{LONG}"'))
    out_file = tmp_path / "out.json"
    code = main(["run", "--no-provider", "--specs", str(folder), "--json", str(out_file),
                 "--target", "tests.test_no_reasoning_text:quote_a_piece_of_thinking"])
    printed = capsys.readouterr().out + out_file.read_text()
    assert code == 1 and "live.untouched-suffix" in printed
    assert not [LONG[i:i + 30] for i in range(len(LONG) - 30) if LONG[i:i + 30] in printed]


def test_a_piece_shared_by_several_reasoning_texts_is_cut_out_whole() -> None:
    from conformance.engine.redaction import Redactor

    texts = ["Step 1: call grep on TODO and look at what comes back.",
             "Step 1: call run_command on pytest and look at what comes back."]
    quoted = texts[0][5:]  # 49 characters; its tail is also a grid chunk of the second text
    redacted = Redactor(texts).text(f"cannot compact near: {quoted} (end)")
    assert redacted.startswith("cannot compact near:") and redacted.endswith(" (end)")
    assert "[redacted thinking #" in redacted
    assert not [quoted[i:i + 12] for i in range(len(quoted) - 12) if quoted[i:i + 12] in redacted]


def test_a_form_two_reasoning_texts_share_is_redacted_the_same_way_in_every_process() -> None:
    """One text's raw form is another's escaped form: the placeholder names the first text given,
    not whichever a set's hash order put first (which differed from process to process)."""
    from conformance.engine.redaction import Redactor, fingerprint

    escaped = "weigh the plan\\nthen check the totals twice"  # a backslash and an n
    broken = "weigh the plan\nthen check the totals twice"  # a line break: its repr is ``escaped``
    assert repr(broken)[1:-1] == escaped
    for first, second in ((escaped, broken), (broken, escaped)):
        redacted = Redactor([first, second]).text(f"quoted: {escaped}")
        assert redacted == f"quoted: [redacted thinking #{fingerprint(first)}]"
