"""Malformed input to ``lint-config`` and ``drift``: exit 2, a message naming the file (and line or
field where there is one), and never a traceback. A corrupt fresh recording is breaking drift (1)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "cassettes" / "emulator"
GOOD = b"edits:\n  - {type: clear_tool_uses_20250919}\n"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Returns the exit code of the command line and what it wrote to stderr; argparse's exit counts."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err


# --- lint-config: each case writes a file (or not) and names what the message must locate ---

def _file(name: str, data: bytes) -> Callable[[Path], str]:
    def make(tmp: Path) -> str:
        (tmp / name).write_bytes(data)
        return str(tmp / name)
    return make


CONFIGS: dict[str, tuple[Callable[[Path], str], list[str]]] = {
    "non-UTF-8 byte in YAML": (_file("c.yaml", b"edits:\n  - {type: clear_tool_uses_20250919, \xff}\n"),
                               ["c.yaml:2:", "not UTF-8", "0xff"]),
    "non-UTF-8 byte in JSON": (_file("c.json", b'{"edits": []}\n\n\xc3\x28\n'), ["c.json:3:", "not UTF-8"]),
    "empty file": (_file("c.yaml", b""), ["c.yaml:", "empty file"]),
    "only a comment": (_file("c.yaml", b"# nothing here\n"), ["c.yaml:", "empty YAML document"]),
    "missing file": (lambda tmp: str(tmp / "absent.yaml"), ["absent.yaml:", "cannot read"]),
    "a folder": (lambda tmp: str(tmp), [": cannot read"]),
    "YAML that does not parse": (_file("c.yaml", b"edits:\n  - {type: clear_tool_uses_20250919\n  - x: [\n"),
                                 ["c.yaml:", "not valid YAML"]),
    "JSON that does not parse": (_file("c.json", b'{"edits": [\n  {"type": }\n]}\n'), ["c.json:2:", "not valid JSON"]),
    "keep as a bare number": (_file("c.yaml", b"edits:\n  - {type: clear_tool_uses_20250919, keep: 3}\n"),
                              ["c.yaml:", "edits.0.keep"]),
    "a list at the top": (_file("c.yaml", b"- {type: clear_tool_uses_20250919}\n"), ["c.yaml:"]),
}


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_a_malformed_config_exits_2_with_a_located_message(case: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    make, expected = CONFIGS[case]
    code, err = _run(["lint-config", make(tmp_path)], capsys)
    assert code == 2
    assert err.startswith("conformance lint-config: ")
    for text in expected:
        assert text in err, (case, err)


@pytest.mark.parametrize("extra", [["--max-task-steps", "0"], ["--max-task-steps", "-3"], ["--max-task-steps", "many"],
                                   ["--max-task-steps"], ["--unknown-flag"]])
def test_bad_lint_config_arguments_exit_2(extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file("c.yaml", GOOD)(tmp_path)
    code, err = _run(["lint-config", path, *extra], capsys)
    assert code == 2 and ("max-task-steps" in err or "unrecognized arguments" in err)


def test_lint_config_without_a_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["lint-config"], capsys)
    assert code == 2 and "FILE" in err


@pytest.mark.slow
def test_a_non_utf8_config_exits_2_from_the_real_process(tmp_path: Path) -> None:
    path = _file("c.yaml", b"edits:\n  - {type: clear_tool_uses_20250919}\n# caf\xe9\n")(tmp_path)
    done = subprocess.run([sys.executable, "-m", "conformance", "lint-config", path], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 2, done.stderr
    assert f"{path}:3: not UTF-8" in done.stderr and "Traceback" not in done.stderr


# --- drift: folders and arguments ---

def _copy(tmp: Path, name: str) -> Path:
    target = tmp / name / "emulator"
    shutil.copytree(SHIPPED, target)
    return target


def _corrupt(folder: Path, data: bytes) -> Path:
    path = folder / "clear-tool-uses.keep-below-live-task.yaml"
    path.write_bytes(data)
    return path


DRIFT_CASES: dict[str, tuple[Callable[[Path], list[str]], list[str]]] = {
    "empty baseline": (lambda tmp: ["--baseline", str(_mkdir(tmp / "empty")), "--current", str(SHIPPED)],
                       ["--baseline", "empty", "no recordings"]),
    "empty current": (lambda tmp: ["--baseline", str(SHIPPED), "--current", str(_mkdir(tmp / "empty"))],
                      ["--current", "empty", "no recordings"]),
    "baseline with no cassette, only notes": (
        lambda tmp: ["--baseline", str(_mkdir(tmp / "notes", {"README.md": b"# notes\n"})), "--current", str(SHIPPED)],
        ["notes", "no recordings"]),
    "missing baseline": (lambda tmp: ["--baseline", str(tmp / "nope"), "--current", str(SHIPPED)],
                         ["nope", "no such folder"]),
    "baseline is a file": (lambda tmp: ["--baseline", str(SHIPPED / "compact.mid-task.yaml"), "--current", str(SHIPPED)],
                           ["compact.mid-task.yaml", "not a folder"]),
    "non-UTF-8 baseline cassette": (
        lambda tmp: ["--baseline", str(_corrupted(tmp, b"interactions:\n- request: {}\n  x: \"\xfe\"\n")),
                     "--current", str(SHIPPED)],
        ["keep-below-live-task.yaml:3:", "not UTF-8"]),
    "baseline cassette that is not YAML": (
        lambda tmp: ["--baseline", str(_corrupted(tmp, b"interactions:\n  - [unclosed\n")), "--current", str(SHIPPED)],
        ["keep-below-live-task.yaml:", "not valid YAML"]),
    "json output is a folder": (lambda tmp: ["--baseline", str(SHIPPED), "--current", str(SHIPPED), "--json", str(tmp)],
                                ["is a folder, not a file to write"]),
}


def _mkdir(path: Path, files: dict[str, bytes] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, data in (files or {}).items():
        (path / name).write_bytes(data)
    return path


def _corrupted(tmp: Path, data: bytes) -> Path:
    folder = _copy(tmp, "baseline")
    _corrupt(folder, data)
    return folder


@pytest.mark.parametrize("case", sorted(DRIFT_CASES))
def test_unusable_drift_input_exits_2_with_a_located_message(case: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    make, expected = DRIFT_CASES[case]
    code, err = _run(["drift", *make(tmp_path)], capsys)
    assert code == 2, (case, err)
    assert err.startswith("conformance drift: error: ")
    for text in expected:
        assert text in err, (case, err)


@pytest.mark.parametrize("argv", [["drift"], ["drift", "--baseline", "x"], ["drift", "--current", "x"],
                                  ["drift", "--baseline", "a", "--current", "b", "--bogus"]])
def test_bad_drift_arguments_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(argv, capsys)
    assert code == 2 and err


@pytest.mark.slow
def test_a_corrupt_fresh_recording_is_breaking_not_green(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    current = _copy(tmp_path, "current")
    _corrupt(current, b"interactions:\n- \xff\n")
    code, _ = _run(["drift", "--baseline", str(SHIPPED), "--current", str(current),
                    "--update-baseline-delta", str(tmp_path / "update.json")], capsys)
    assert code == 1
    assert (tmp_path / "update.json").is_file()  # the readable recordings still get their update
    from conformance.drift.delta import apply, read_delta, snapshots

    baseline, _ = snapshots(SHIPPED, SHIPPED)
    updated = apply(baseline, read_delta(tmp_path / "update.json"))
    unreadable = [key for key in baseline if key.endswith("clear-tool-uses.keep-below-live-task")]
    assert unreadable and all(updated[key] == baseline[key] for key in unreadable)  # kept, not deleted
