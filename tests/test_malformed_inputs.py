"""Every scenario-side command over malformed inputs: exit 2, a located message, never a traceback.

Each case names what it feeds in (spec files, known-gaps files, arguments) and the text that must
locate the problem: the file and line, or the argument. Provider-side inputs (cassettes, configs)
are covered beside the provider's own tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.cli import main

from ._specs import GOOD

GOOD_ENTRY = GOOD.split("scenarios:\n", 1)[1]  # the two scenarios, as list items


@dataclass(frozen=True)
class Case:
    """A command line over files written into a fresh folder; ``located`` must appear in the output."""

    name: str
    files: dict[str, str | bytes]
    argv: list[str]
    located: list[str]


def _spec(body: str) -> str:
    return "format_version: 1\nscenarios:\n" + body


_MISSING_TRUTH = GOOD_ENTRY.replace("    truth: {live_start: 2}\n    expect:", "    expect:", 1)
_LAST_TRUTH = "truth: {live_start: 7}"
_NO_DESCRIPTION = GOOD_ENTRY.replace("    description: one settled task then a one-step task in flight\n", "", 1)

_AT_REFERENCE = GOOD.index("      reference:\n        output:")
_RAISES_NOT_A_CLASS = (GOOD[:_AT_REFERENCE] + '      reference:\n        raises: "value error"\n'
                       + GOOD[GOOD.index("  - id:", _AT_REFERENCE):])

SPEC_CASES = [
    Case("reference-raises-not-a-class-name", {"s.yaml": _RAISES_NOT_A_CLASS}, [],
         ["s.yaml:24", "expect.reference.raises", "does not match"]),
    Case("yaml-syntax", {"s.yaml": "format_version: 1\nscenarios: [\n  - id: x\n"}, [], ["s.yaml:3", "invalid YAML"]),
    Case("yaml-tab-indent", {"s.yaml": "format_version: 1\nscenarios:\n\t- id: x\n"}, [], ["s.yaml:3", "invalid YAML"]),
    Case("format-version-wrong-type", {"s.yaml": GOOD.replace("format_version: 1", "format_version: one")},
         [], ["s.yaml:1", "format_version"]),
    Case("scenarios-not-a-list", {"s.yaml": "format_version: 1\nscenarios: {a: 1}\n"}, [], ["s.yaml:2", "scenarios"]),
    Case("top-level-list", {"s.yaml": "- 1\n- 2\n"}, [], ["s.yaml:1"]),
    Case("unknown-top-level-key", {"s.yaml": GOOD + "colour: red\n"}, [], ["s.yaml:42", "colour: unknown key"]),
    Case("unknown-scenario-key", {"s.yaml": GOOD.replace("    family: tiny\n    params", "    family: tiny\n"
                                                          "    colour: x\n    params", 1)},
         [], ["s.yaml:6", "scenarios[0].colour: unknown key"]),
    Case("missing-description", {"s.yaml": _spec(_NO_DESCRIPTION)}, [], ["s.yaml:3", "description"]),
    Case("missing-truth", {"s.yaml": _spec(_MISSING_TRUTH)}, [], ["s.yaml:3", "truth"]),
    Case("live-start-wrong-type", {"s.yaml": GOOD.replace("truth: {live_start: 2}", "truth: {live_start: two}", 1)},
         [], ["s.yaml:21", "live_start"]),
    Case("live-start-past-end", {"s.yaml": _LAST_TRUTH.join(GOOD.rsplit("truth: {live_start: 2}", 1))},
         [], ["s.yaml:41", "past the end"]),
    Case("history-not-a-list", {"s.yaml": GOOD.replace("      - {role: user, content: \"hi\"}\n"
                                                       "      - {role: assistant, content: \"hello\"}\n",
                                                       "      {role: user}\n")},
         [], ["s.yaml:38", "history"]),
    Case("role-wrong-type", {"s.yaml": GOOD.replace("{role: user, content: \"hi\"}", "{role: 7, content: \"hi\"}")},
         [], ["s.yaml:39", "role"]),
    Case("duplicate-key", {"s.yaml": GOOD.replace("    family: tiny\n    params", "    family: tiny\n"
                                                  "    family: other\n    params", 1)},
         [], ["s.yaml:6", "duplicate key"]),
    Case("duplicate-id-in-file", {"s.yaml": GOOD.replace("id: tiny.settled", "id: tiny.inflight")},
         [], ["s.yaml:35", "duplicate id 'tiny.inflight'"]),
    Case("duplicate-id-across-files", {"a.yaml": GOOD, "b.yaml": GOOD.replace("tiny.settled", "tiny.other")},
         [], ["b.yaml:3", "duplicate id 'tiny.inflight'"]),
    Case("unknown-invariant-in-expect", {"s.yaml": GOOD.replace("    truth: {live_start: 2}\n    expect:\n",
                                                                "    truth: {live_start: 2}\n    expect:\n"
                                                                "      invariants: [live.no-such-check]\n", 1)},
         [], ["s.yaml:23", "unknown invariant id 'live.no-such-check'"]),
    Case("empty-file", {"s.yaml": ""}, [], ["s.yaml:1", "empty document"]),
    Case("comment-only-file", {"s.yaml": "# nothing here\n"}, [], ["s.yaml:1", "empty document"]),
    Case("empty-scenario-list", {"s.yaml": "format_version: 1\nscenarios: []\n"}, [], ["s.yaml:2", "scenarios"]),
]

# A known-gaps file is read against the good spec file.
_GAP = "format_version: 1\n{target}gaps:\n  - scenario: {scenario}\n    reason: we drop reasoning\n{extra}"


def _gaps(scenario: str = "tiny.inflight", target: str = "", extra: str = "") -> str:
    return _GAP.format(scenario=scenario, target=target, extra=extra)


GAP_CASES = [
    Case("gaps-bad-yaml", {"g.yaml": "format_version: 1\ngaps: [\n"}, [], ["g.yaml:2", "invalid YAML"]),
    Case("gaps-unknown-scenario", {"g.yaml": _gaps("renamed.case")}, [], ["g.yaml:3", "unknown scenario id 'renamed.case'"]),
    Case("gaps-unknown-invariant", {"g.yaml": _gaps(extra="    invariants: [reasoning.nope]\n")},
         [], ["g.yaml:5", "unknown invariant id 'reasoning.nope'"]),
    Case("gaps-invariants-not-a-list", {"g.yaml": _gaps(extra="    invariants: reasoning.live-preserved\n")},
         [], ["g.yaml:5", "invariants"]),
    Case("gaps-wrong-target", {"g.yaml": _gaps(target="target: mypkg.memory:compact\n")},
         [], ["g.yaml:2", "'mypkg.memory:compact' is not a target of this run"]),
    Case("gaps-target-not-a-string", {"g.yaml": _gaps(target="target: [a, b]\n")}, [], ["g.yaml:2", "target"]),
    Case("gaps-non-utf8", {"g.yaml": b"format_version: 1\ngaps:\n  - scenario: tiny.inflight\n    reason: caf\xe9\n"},
         [], ["g.yaml:4", "not UTF-8"]),
    Case("gaps-format-version", {"g.yaml": _gaps().replace("format_version: 1", "format_version: 2")},
         [], ["g.yaml:1", "format_version: must be 1"]),
    Case("gaps-no-reason", {"g.yaml": "format_version: 1\ngaps:\n  - scenario: tiny.inflight\n"},
         [], ["g.yaml:3", "a gap needs a reason"]),
    Case("gaps-not-a-list", {"g.yaml": "format_version: 1\ngaps: {scenario: tiny.inflight}\n"}, [], ["g.yaml:2", "gaps"]),
    Case("gaps-unknown-key", {"g.yaml": _gaps(extra="    ticket: 412\n")}, [], ["g.yaml:5", "ticket: unknown key"]),
    Case("gaps-unknown-top-key", {"g.yaml": _gaps() + "owner: me\n"}, [], ["g.yaml:5", "owner"]),
    Case("gaps-empty", {"g.yaml": ""}, [], ["g.yaml:1", "empty document"]),
    Case("gaps-missing-file", {}, [], ["g.yaml", "cannot read"]),
    Case("gaps-same-check-twice", {"g.yaml": _gaps() + "  - scenario: tiny.inflight\n    reason: again\n"},
         [], ["g.yaml:5", "a second gap for 'tiny.inflight'"]),
]

ARG_CASES = [
    Case("bad-k", {}, ["-k", "and and"], ["-k expression does not parse: 'and and'"]),
    Case("k-selects-nothing", {}, ["-k", "nomatch"], ["-k 'nomatch' selects none of the 2 scenarios"]),
    Case("target-without-colon", {}, ["--target", "not-a-target"], ["'not-a-target' is not of the form MODULE:ATTR"]),
    Case("target-not-importable", {}, ["--target", "no_such_module:compact"], ["cannot import 'no_such_module'"]),
    Case("target-attribute-missing", {}, ["--target", "conformance_reference:no_such"], ["has no attribute 'no_such'"]),
    Case("target-not-callable", {}, ["--target", "conformance:__version__"], ["'conformance:__version__' is a str"]),
    Case("missing-specs-path", {}, ["--specs", "{tmp}/nowhere"], ["nowhere", "no such file or folder"]),
    Case("json-into-missing-folder", {}, ["--json", "{tmp}/absent/out.json"], ["--json", "absent does not exist"]),
    Case("json-onto-a-folder", {"out/keep": ""}, ["--json", "{tmp}/out"], ["--json", "is a folder"]),
    Case("report-onto-a-file", {"r.txt": "x"}, ["--report", "{tmp}/r.txt"], ["--report", "r.txt: is a file"]),
    Case("report-under-a-file", {"r.txt": "x"}, ["--report", "{tmp}/r.txt/sub"], ["--report", "r.txt is not a folder"]),
    Case("negative-time-limit", {}, ["--time-limit", "-1"], ["--time-limit must be a positive number", "-1"]),
    Case("zero-time-limit", {}, ["--time-limit", "0"], ["--time-limit must be a positive number"]),
    Case("nan-time-limit", {}, ["--time-limit", "nan"], ["--time-limit must be a positive number"]),
    Case("time-limit-not-a-number", {}, ["--time-limit", "soon"], ["--time-limit", "'soon'"]),
    Case("negative-generated", {}, ["--generated", "-3"], ["--generated must be 0 or more"]),
    Case("provider-and-no-provider", {}, ["--provider", "--no-provider"], ["--no-provider contradicts --provider"]),
    Case("unknown-option", {}, ["--no-such-flag"], ["--no-such-flag"]),
]

ALL = SPEC_CASES + GAP_CASES + ARG_CASES


def _materialise(case: Case, tmp: Path) -> list[str]:
    for name, content in case.files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    argv = ["run", "--no-provider" if "--provider" not in case.argv else "--target=conformance_reference:compact"]
    if case in SPEC_CASES:
        return [*argv, "--specs", str(tmp)]
    good = tmp / "specs" / "tiny.yaml"
    good.parent.mkdir(exist_ok=True)
    good.write_text(GOOD, encoding="utf-8")
    argv += ["--specs", str(good.parent)]
    if case in GAP_CASES:
        argv += ["--expectations", str(tmp / "g.yaml")]
    return argv + [a.replace("{tmp}", str(tmp)) for a in case.argv]


def _assert_usage_error(code: int, out: str, err: str, located: list[str]) -> None:
    text = out + err
    assert code == 2, text
    assert "Traceback" not in text and 'File "' not in text, text
    for part in located:
        assert part in text, f"{part!r} not in:\n{text}"


@pytest.mark.parametrize("case", ALL, ids=[c.name for c in ALL])
def test_malformed_input_is_exit_2_located_without_traceback(case: Case, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_materialise(case, tmp_path))
    captured = capsys.readouterr()
    _assert_usage_error(code, captured.out, captured.err, case.located)


def test_there_are_at_least_thirty_cases() -> None:
    assert len(ALL) >= 30 and len({c.name for c in ALL}) == len(ALL)


def test_non_utf8_spec_file_is_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.yaml").write_bytes(GOOD.replace("first done", "caf\xe9 done").encode("latin-1"))
    code = main(["run", "--no-provider", "--specs", str(tmp_path)])
    captured = capsys.readouterr()
    _assert_usage_error(code, captured.out, captured.err, ["s.yaml:", "UTF-8"])


def test_an_empty_spec_folder_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not a spec", encoding="utf-8")
    code = main(["run", "--specs", str(tmp_path)])  # with the provider replay: still nothing of ours ran
    captured = capsys.readouterr()
    _assert_usage_error(code, captured.out, captured.err, [f"no scenario found in {tmp_path}"])
    assert "CONFORMS" not in captured.out


def test_an_unwritable_output_folder_is_refused_before_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    real_access = os.access
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode))
    called: list[str] = []
    monkeypatch.setattr("conformance.run_command.run", lambda *a, **k: called.append("run"))
    for option, value in (("--json", locked / "out.json"), ("--report", locked), ("--report", locked / "sub")):
        code = main(["run", "--no-provider", option, str(value)])
        captured = capsys.readouterr()
        _assert_usage_error(code, captured.out, captured.err, [option, "locked is not writable"])
    assert not called


COMMANDS: list[tuple[str, list[str], list[str]]] = [
    ("unknown-command", ["frobnicate"], ["frobnicate"]),
    ("no-command", [], ["command"]),
    ("explain-unknown-id", ["explain", "no.such.scenario", "--specs", "{specs}"], ["no scenario or probe 'no.such.scenario'"]),
    ("explain-bad-target", ["explain", "tiny.inflight", "--specs", "{specs}", "--target", "nowhere:x"],
     ["cannot import 'nowhere'"]),
    ("explain-missing-specs", ["explain", "tiny.inflight", "--specs", "{tmp}/absent"], ["absent", "no such file"]),
    ("catalog-extra-argument", ["catalog", "extra"], ["extra"]),
]


@pytest.mark.parametrize(("argv", "located"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_other_commands_refuse_bad_input(argv: list[str], located: list[str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    code = main([a.replace("{specs}", str(specs)).replace("{tmp}", str(tmp_path)) for a in argv])
    captured = capsys.readouterr()
    _assert_usage_error(code, captured.out, captured.err, located)


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "conformance", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=120, check=False)


@pytest.mark.slow
def test_smoke_in_a_real_process(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("format_version: 1\nscenarios: [\n", encoding="utf-8")
    checks: list[tuple[list[str], str]] = [
        (["run", "--no-provider", "--specs", str(tmp_path / "s.yaml")], "s.yaml:2"),  # where the "[" opens
        (["run", "--no-provider", "--json", str(tmp_path / "absent" / "x.json")], "absent does not exist"),
        (["nonsense"], "nonsense"),
    ]
    for argv, located in checks:
        done = _cli(*argv, cwd=tmp_path)
        _assert_usage_error(done.returncode, done.stdout, done.stderr, [located])


def test_when_no_spec_loads_nothing_runs_and_nothing_is_replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A missing --specs path, or a folder whose every spec is broken: exit 2, no table, no replay."""
    from conformance import run_command

    replayed: list[object] = []
    monkeypatch.setattr(run_command, "_start_replay", lambda args: replayed.append(args))  # a replay started is one too many
    (tmp_path / "b.yaml").write_text("format_version: 1\nscenarios: [\n", encoding="utf-8")
    for specs in (str(tmp_path / "nosuchdir"), str(tmp_path)):
        code = main(["run", "--in-process", "--no-progress", "--specs", specs])
        captured = capsys.readouterr()
        assert code == 2 and captured.out == "", captured.out
        assert "so nothing was run" in captured.err or "no such file or folder" in captured.err
    assert replayed == []


def test_when_some_specs_load_they_run_and_the_run_ends_spec_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "b.yaml").write_text("format_version: 1\nscenarios: [\n", encoding="utf-8")
    (tmp_path / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    code = main(["run", "--in-process", "--no-progress", "--no-provider", "--specs", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 2
    assert "b.yaml:2: invalid YAML" in out
    assert "target conformance_reference:compact: 2 scenarios" in out, out
    assert out.rstrip().endswith("pass -- SPEC ERRORS (1)"), out
