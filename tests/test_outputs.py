"""No command writes an output over one of its inputs: an output option given before the inputs
(``analyze --json a.yaml b.yaml``), an output that names an input, one inside a folder the command
reads, or one over an existing file of another kind is refused with exit code 2, nothing written."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.errors import UsageError
from conformance.outputs import Output, check_outputs, json_output, report_output

ROOT = Path(__file__).resolve().parents[1]
CASSETTES = sorted((ROOT / "cassettes" / "emulator").glob("*.yaml"))
SPEC = ROOT / "specs" / "edges.yaml"
CONVERSATIONS = ROOT / "specs" / "egress" / "anthropic.yaml"
CONFIG = "edits:\n  - {type: clear_thinking_20251015, keep: all}\n"
OFFLINE = "http://127.0.0.1:9"  # nothing listens there: a recording that slipped through sends nothing out


@dataclass(frozen=True)
class Case:
    """A command line whose output option comes before its inputs; ``kind``: what a.yaml and b.yaml hold."""

    argv: list[str]
    kind: str = "cassette"
    codes: tuple[int, ...] = (2,)  # the exit codes allowed: 2, or the command's own for its intended meaning


def _inputs(tmp_path: Path, kind: str) -> tuple[Path, Path]:
    """Writes a.yaml and b.yaml of ``kind`` into ``tmp_path``; returns their paths."""
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    if kind == "cassette":
        shutil.copyfile(CASSETTES[0], a)
        shutil.copyfile(CASSETTES[1], b)
    elif kind == "config":
        a.write_text(CONFIG, encoding="utf-8")
        b.write_text(CONFIG, encoding="utf-8")
    elif kind == "spec":
        shutil.copyfile(SPEC, a)
        shutil.copyfile(SPEC, b)
    else:
        shutil.copyfile(CONVERSATIONS, a)
        shutil.copyfile(CONVERSATIONS, b)
    return a, b


# {a}, {b}: the input files; {base}, {current}: folders of recordings holding a copy of b.yaml
CASES: dict[str, Case] = {
    "analyze --json": Case(["analyze", "--json", "{a}", "{b}"]),
    "analyze --report": Case(["analyze", "--report", "{a}", "{b}"]),
    "lint-config --json": Case(["lint-config", "--json", "{a}", "{b}"], "config"),
    "verify --json": Case(["verify", "--json", "{a}", "{b}"]),
    "verify --report": Case(["verify", "--report", "{a}", "{b}"]),
    "run --json": Case(["run", "--no-provider", "--json", "{a}", "--specs", "{b}"], "spec"),
    "run --report": Case(["run", "--no-provider", "--report", "{a}", "--specs", "{b}"], "spec"),
    "run --write-gaps": Case(["run", "--no-provider", "--write-gaps", "{a}", "--specs", "{b}"], "spec"),
    "egress --json": Case(["egress", "--target", "json:dumps", "--surface", "log", "--in-process", "--json", "{a}",
                           "--specs", "{b}"], "conversation"),
    "egress --report": Case(["egress", "--target", "json:dumps", "--surface", "log", "--in-process", "--report",
                             "{a}", "--specs", "{b}"], "conversation"),
    "drift --json": Case(["drift", "--json", "{a}", "--baseline", "{base}", "--current", "{current}"]),
    "drift --markdown": Case(["drift", "--markdown", "{a}", "--baseline", "{base}", "--current", "{current}"]),
    "drift --update-baseline-delta": Case(["drift", "--update-baseline-delta", "{a}", "--baseline", "{base}",
                                           "--current", "{current}"]),
    "drift --report": Case(["drift", "--report", "{a}", "--baseline", "{base}", "--current", "{current}"]),
    "record --out": Case(["record", "--out", "{a}", "--base-url", OFFLINE, "--specs", "{b}"]),
    "fuzz --out": Case(["fuzz", "--out", "{a}", "--target", "reference", "--examples", "1"]),
    "matrix --out": Case(["matrix", "--out", "{a}", "--specs", "{b}"], "spec"),
    "matrix --readme": Case(["matrix", "--out", "{tmp}/m", "--readme", "{a}", "--specs", "{b}"], "spec"),
    "egress-matrix --out": Case(["egress-matrix", "--out", "{a}", "--specs", "{b}"], "conversation"),
    "audit --fix": Case(["audit", "--fix", "{a}", "{b}"], codes=(0, 1)),  # --fix is a flag: both are inputs
}


def _argv(case: Case, tmp_path: Path, a: Path, b: Path) -> list[str]:
    base, current = tmp_path / "base", tmp_path / "current"
    for folder in (base, current):
        folder.mkdir(exist_ok=True)
        shutil.copyfile(b, folder / b.name)
    names = {"a": str(a), "b": str(b), "base": str(base), "current": str(current), "tmp": str(tmp_path)}
    return [word.format(**names) for word in case.argv]


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_output_option_before_the_inputs_loses_no_input(name: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")  # record gets as far as its output check
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    monkeypatch.chdir(tmp_path)  # a default output (fuzz-failures/) lands here
    case = CASES[name]
    a, b = _inputs(tmp_path, case.kind)
    before = {path: path.read_bytes() for path in (a, b)}
    code = main(_argv(case, tmp_path, a, b))
    err = capsys.readouterr().err
    assert {path: path.read_bytes() for path in (a, b)} == before, (name, err)
    assert code in case.codes, (name, code, err)
    if code == 2:
        assert str(a) in err and "Traceback" not in err, (name, err)
    made = {p.name for p in tmp_path.iterdir() if p.is_file()} - {"a.yaml", "b.yaml"}
    assert not made or (name == "audit --fix" and made <= {"a.scrubbed.yaml", "b.scrubbed.yaml"}), made


# each command's --json given one of its own inputs, and the input it names
SAME: dict[str, tuple[list[str], str]] = {
    "analyze": (["analyze", "{a}", "{b}", "--json", "{a}"], "cassette"),
    "analyze, a JSON recording": (["analyze", "{c}", "--json", "{c}"], "cassette"),
    "lint-config": (["lint-config", "{a}", "--json", "{a}"], "config"),
    "lint-config, a JSON config": (["lint-config", "{c}", "--json", "{c}"], "config"),
    "verify": (["verify", "{a}", "{b}", "--json", "{a}"], "cassette"),
    "run": (["run", "--no-provider", "--specs", "{a}", "{b}", "--json", "{a}"], "spec"),
    "egress": (["egress", "--target", "json:dumps", "--surface", "log", "--in-process", "--specs", "{a}",
                "--json", "{a}"], "conversation"),
}


@pytest.mark.parametrize("name", sorted(SAME))
def test_json_naming_an_input_is_refused(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, kind = SAME[name]
    a, b = _inputs(tmp_path, kind)
    c = tmp_path / "c.json"
    if kind == "config":
        c.write_text(json.dumps({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}), encoding="utf-8")
    else:
        shutil.copyfile(ROOT / "tests" / "provider" / "dialects" / "nock.openai.json", c)
    before = {path: path.read_bytes() for path in (a, b, c)}
    code = main([word.format(a=a, b=b, c=c) for word in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert {path: path.read_bytes() for path in (a, b, c)} == before
    assert "is the input file" in err and "nothing was written" in err, err


def test_an_output_inside_a_folder_the_command_reads_is_refused(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    shutil.copyfile(CASSETTES[0], folder / "a.yaml")
    assert main(["analyze", str(folder), "--json", str(folder / "out.json")]) == 2
    assert "inside the input folder" in capsys.readouterr().err
    assert main(["analyze", str(folder), "--report", str(folder / "report")]) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["a.yaml"]


def test_a_json_recording_swallowed_by_json_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recording = tmp_path / "first.json"
    shutil.copyfile(ROOT / "tests" / "provider" / "dialects" / "nock.openai.json", recording)
    before = recording.read_bytes()
    assert main(["analyze", "--json", str(recording), str(CASSETTES[0])]) == 2
    assert recording.read_bytes() == before
    assert "reads as a recording" in capsys.readouterr().err


def test_json_output_of_an_earlier_run_is_replaced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    for _ in range(2):  # the second run writes over the first one's output
        assert main(["analyze", str(CASSETTES[0]), "--json", str(out)]) in (0, 1)
    assert json.loads(out.read_text(encoding="utf-8"))
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    findings = tmp_path / "findings.json"
    for _ in range(2):
        assert main(["lint-config", str(config), "--json", str(findings)]) == 0
    assert isinstance(json.loads(findings.read_text(encoding="utf-8")), list)


@pytest.mark.parametrize("argv", [["analyze", "{a}", "--json"], ["lint-config", "{a}", "--json"]])
def test_json_takes_a_value(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = _inputs(tmp_path, "cassette")
    assert main([word.format(a=a) for word in argv]) == 2
    assert "--json: expected one argument" in capsys.readouterr().err


# check_outputs itself

def _refused(outputs: list[Output], inputs: list[Path | str], text: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_outputs(outputs, inputs)
    assert text in str(caught.value), str(caught.value)


def test_the_same_file_by_another_name_is_an_input(tmp_path: Path) -> None:
    source = tmp_path / "a.json"
    source.write_text("{}", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(source)
    hard = tmp_path / "hard.json"
    os.link(source, hard)
    for name in (link, hard, tmp_path / "." / "a.json"):
        _refused([json_output(str(name))], [source], "is the input file")


def test_a_report_folder_never_writes_over_an_input(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    source = tmp_path / "report" / "summary.md"
    source.write_text("mine", encoding="utf-8")
    _refused([report_output(str(tmp_path / "report"))], [source], "would write")
    _refused([report_output(str(tmp_path))], [tmp_path], "is the input folder")


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path) -> None:
    out = str(tmp_path / "x.json")
    _refused([json_output(out), Output("--update-baseline-delta", out, suffixes=(".json",))], [], "name the same path")


@pytest.mark.parametrize(("output", "text"), [
    (json_output(""), "--json needs a file name (or - for standard output)"),
    (report_output("-"), "standard output is not a folder"),
])
def test_empty_and_dash_values(output: Output, text: str) -> None:
    _refused([output], [], text)


@pytest.mark.parametrize(("name", "content", "refuse", "allowed"), [
    ("out.json", "[]", None, True),
    ("out.yaml", "a: 1", None, False),
    ("out.json", "{}", lambda path: "holds a configuration", False),
])
def test_an_existing_file_of_another_kind_is_kept(tmp_path: Path, name: str, content: str,
                                                  refuse: Callable[[Path], str | None] | None,
                                                  allowed: bool) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    output = json_output(str(path), refuse=refuse)
    if allowed:
        check_outputs([output])
    else:
        _refused([output], [], "is not written over")


def test_standard_output_and_devices_are_never_refused(tmp_path: Path) -> None:
    check_outputs([json_output("-"), Output("--json", os.devnull, suffixes=(".json",))], [tmp_path])
