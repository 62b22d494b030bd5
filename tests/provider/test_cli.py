"""The provider subcommands end to end: record (with and without a key), verify, exit codes."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.cli import register
from conformance.provider.anthropic import semantics as sem
from conformance.provider.anthropic.emulator import Emulator

from .conftest import CASSETTES, SPECS


def test_register_adds_the_four_commands() -> None:
    parser = argparse.ArgumentParser()
    written: list[tuple[object, ...]] = []
    register(parser.add_subparsers(dest="command"), lambda *a, **k: written.append(a))
    for argv in (["verify"], ["record"], ["audit"], ["lint-config", "f.yaml"]):
        args = parser.parse_args(argv)
        assert callable(args.func)
    assert parser.parse_args(["verify"]).open_report is parser.parse_args(["analyze", "x"]).open_report


def test_record_without_a_key_prints_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["record", "--base-url", "http://127.0.0.1:9"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert "ANTHROPIC_API_KEY is not set" in captured.err


def test_record_then_verify_through_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0, ["clear-live-despite-keep"]) as emulator:
        code = main(["record", "--base-url", emulator.url, "--out", str(tmp_path), "--specs", str(SPECS),
                     "--probe", "clear-tool-uses.keep-equals-live-task", "--probe", "clear-thinking.keep-one-turn"])
    assert code == 0
    folder = tmp_path / "emulator+clear-live-despite-keep"
    assert sorted(p.name for p in folder.iterdir()) == ["clear-thinking.keep-one-turn.yaml",
                                                        "clear-tool-uses.keep-equals-live-task.yaml"]
    capsys.readouterr()
    assert main(["verify", str(folder), "--specs", str(SPECS)]) == 1
    out = capsys.readouterr().out
    assert "reached-live-task (emulator)  settled-only" in out
    assert "LIVE: cleared the tool results of toolu_b1,toolu_b2,toolu_b3" in " ".join(out.split())
    assert main(["audit", str(folder)]) == 0


def test_record_rejects_unknown_probe_ids(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    assert main(["record", "--probe", "no.such-probe", "--specs", str(SPECS), "--base-url", "http://127.0.0.1:9"]) == 2
    assert "unknown probe id" in capsys.readouterr().err


def test_record_reports_an_unreachable_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0) as emulator:
        url = emulator.url
    code = main(["record", "--base-url", url, "--out", str(tmp_path), "--specs", str(SPECS),
                 "--probe", "compact.below-trigger"])
    assert code == 1 and "cannot connect" in capsys.readouterr().out
    assert not list(tmp_path.rglob("*.yaml"))


@pytest.mark.slow
def test_verify_shipped_exit_0_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(CASSETTES), "--specs", str(SPECS)]) == 0
    out = capsys.readouterr().out
    assert "REACHES TASK IN FLIGHT" in out and "YES from 3 steps" in out and "verify: 16 findings, 57 pass (local emulator" in out
    assert "avoided in: compaction.after-settled-answer (settled-only)" in out  # on demand, right after an answer
    assert "YES from 0 steps/0 turns" in out and "summarised the request of the task in flight (message 6)" in out
    prose = " ".join(out.split())  # each reading is stated once, below the table it decides
    assert prose.count(" ".join(sem.TURN_READING.split())) == 1 and prose.count(" ".join(sem.REQUEST_READING.split())) == 1
    assert max(len(line) for line in out.splitlines()) <= 100


def test_verify_with_a_bad_spec_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("format_version: 1\nprobes: [{id: X}]\n")
    assert main(["verify", str(CASSETTES), "--specs", str(tmp_path)]) == 2
