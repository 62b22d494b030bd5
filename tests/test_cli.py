"""The command line: exit codes, target errors, JSON records, -k, known gaps."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.cli import main

from ._specs import GOOD, write

BROKEN = "tests.zoo.broken"


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "tiny.yaml", GOOD)
    return folder


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["run", "--no-provider", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reference_conforms_exit_0(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--specs", str(specs))
    assert code == 0 and "CONFORMS" in out


def test_a_failed_must_exits_1_with_ids_and_a_focused_diff(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:strip_all_thinking")
    assert code == 1
    assert "[MUST] tiny.inflight :: live.untouched-suffix" in out
    assert "output[3] is input[3] (message 1 of the task in flight), changed:" in out
    assert "content[0] (thinking) is missing" in out


def test_unimportable_target_is_one_line_exit_2(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--specs", str(specs), "--target", "no_such_module:compact")
    assert code == 2
    assert err.strip().count("\n") == 0 and "cannot import 'no_such_module'" in err
    assert "Traceback" not in err + out


def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--no-such-flag"]) == 2
    assert main(["run", "--target", "not-a-target"]) == 2


def test_json_has_one_record_per_scenario_and_invariant(specs: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "out.json"
    code, out, _ = run(capsys, "--specs", str(specs), "--json", str(out_file), "--target", f"{BROKEN}:raises")
    data = json.loads(out_file.read_text())
    assert code == 1 and data["exit_code"] == 1
    keys = {(r["scenario"], r["invariant"]) for r in data["records"]}
    assert len(keys) == len(data["records"])
    record = next(r for r in data["records"] if r["invariant"] == "call.completes" and r["scenario"] == "tiny.inflight")
    assert record["outcome"] == "error" and record["level"] == "MUST"
    assert "RuntimeError: compactor crashed" in record["message"]
    assert {"scenario", "invariant", "level", "outcome", "message"} <= set(record)
    # one error record per scenario; every check that needs an output is recorded as not run
    assert data["summary"]["outcomes"]["error"] == 2 and data["summary"]["outcomes"]["pass"] == 2  # input.unmutated
    not_run = [r for r in data["records"] if r["outcome"] == "skip"]
    assert not_run and all(r["details"]["blocked_by"] == "call.completes" for r in not_run)
    assert data["summary"]["not_run"] == len(not_run)
    assert data["summary"]["total"] == len(data["records"]) == sum(data["summary"]["outcomes"].values())
    # the traceback: once for the two scenarios that raised it, in the target's own frames
    (key, entry), = data["tracebacks"].items()
    assert entry["count"] == 2 and record["details"]["traceback_id"] == key
    assert 'zoo/broken.py", line' in entry["text"] and "in raises" in entry["text"]
    assert "conformance/engine/target.py" not in entry["text"]
    assert out.count("traceback (the target's frames):") == 1 and "call.completes: 2 scenarios" in out
    assert "zoo/broken.py" in out and not re.search(r"\b2 skip", out)
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:raises", "-v")  # every failure
    assert out.count("traceback (the target's frames):") == 1 and out.count("(same traceback as ") == 1


def test_keyword_selects_scenarios(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--specs", str(specs), "-k", "settled and not inflight")
    assert code == 0 and "1 scenario, " in out and "1 scenarios" not in out
    assert main(["run", "--no-provider", "--specs", str(specs), "-k", "and and"]) == 2


def test_known_gap_turns_failure_into_xfail_and_unexpected_pass_fails(specs: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    gaps = write(tmp_path, "gaps.yaml", "format_version: 1\ngaps:\n  - scenario: tiny.inflight\n"
                 "    reason: strips reasoning everywhere\n    link: https://example.invalid/1\n")
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:strip_all_thinking",
                       "--expectations", str(gaps))
    assert code == 0, out
    assert " pass, 2 xfail -- CONFORMS (with 2 known-gap failures)" in out and "fail," not in out
    code, out, _ = run(capsys, "--specs", str(specs), "--expectations", str(gaps))
    assert code == 1 and "expectations.gap-still-open" in out
    listed = write(tmp_path, "listed.yaml", "format_version: 1\ngaps:\n  - scenario: tiny.settled\n"
                   "    reason: thought it failed\n    invariants: [live.untouched-suffix]\n")
    code, out, _ = run(capsys, "--specs", str(specs), "--expectations", str(listed))
    assert code == 1 and "xpass" in out


def test_known_gap_file_with_unknown_id_is_a_usage_error(specs: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    gaps = write(tmp_path, "gaps.yaml", "format_version: 1\ngaps:\n  - scenario: renamed.case\n    reason: x\n")
    code, _, err = run(capsys, "--specs", str(specs), "--expectations", str(gaps))
    assert code == 2 and "gaps.yaml:3: gaps[0].scenario: unknown scenario id 'renamed.case'" in err


@pytest.mark.slow
def test_hanging_target_is_a_failed_check_not_a_stuck_run(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:hangs", "--time-limit", "0.2")
    assert code == 1 and "the call hung" in out


def test_several_targets_in_one_run(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--specs", str(specs), "--target", "conformance_reference:compact",
                       "--target", "tests.zoo.correct:noop")
    assert code == 0
    assert "target conformance_reference:compact" in out and "target tests.zoo.correct:noop" in out


def test_params_reach_only_targets_that_accept_them(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "--specs", str(specs), "--target", "tests.zoo.correct:noop")
    assert code == 0  # noop takes no keep_turns: passing it would raise TypeError


def test_catalog_prints_every_invariant(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import CATALOG
    assert main(["catalog"]) == 0
    out = capsys.readouterr().out
    assert all(f"`{inv.id}`" in out for inv in CATALOG)


@pytest.mark.slow
def test_known_gaps_and_keywords_reach_provider_probes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gaps = write(tmp_path, "gaps.yaml", "format_version: 1\ngaps:\n  - scenario: compact.mid-task\n"
                 "    reason: assumed to contradict\n    invariants: [provider.verdict-matches-prediction]\n")
    code = main(["run", "-k", "compact.mid-task", "--expectations", str(gaps)])
    out = capsys.readouterr().out
    assert code == 1 and "compact.mid-task :: provider.verdict-matches-prediction (xpass)" in out
    code = main(["run", "-k", "compact.mid-task"])
    out = capsys.readouterr().out
    assert code == 0 and "provider recordings: 1 probe replayed" in out


def test_zero_scenarios_is_exit_2_never_conforms(specs: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--specs", str(specs), "-k", "nomatch")
    assert code == 2 and "CONFORMS" not in out
    assert "-k 'nomatch' selects none of the 2 scenarios" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["run", "--specs", str(empty)])  # the provider replay alone does not make it a run of ours
    captured = capsys.readouterr()
    assert code == 2 and f"no scenario found in {empty}" in captured.err and "CONFORMS" not in captured.out


def test_a_run_where_every_check_is_skipped_checks_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import CATALOG
    skips = "".join(f"        {inv.id}: not today\n" for inv in CATALOG if inv.level != "REFERENCE")
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "skipped.yaml", GOOD.split("  - id: tiny.settled")[0].replace(
        "    expect:\n", "    expect:\n      skip:\n" + skips, 1))
    code, out, err = run(capsys, "--specs", str(folder), "--target", "tests.zoo.correct:noop")
    assert code == 2 and "NOTHING CHECKED" in out and "CONFORMS" not in out
    assert "no MUST check of tests.zoo.correct:noop passed or failed" in err


@pytest.mark.slow
def test_with_a_target_the_provider_replay_is_opt_in(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--specs", str(specs), "--target", "conformance_reference:compact"])
    out = capsys.readouterr().out
    assert code == 0 and "provider recordings" not in out
    code = main(["run", "--specs", str(specs), "--target", "conformance_reference:compact", "--provider",
                 "-k", "tiny or compact.mid-task"])
    out = capsys.readouterr().out
    assert code == 0 and "provider recordings: 1 probe replayed" in out and "2 scenarios" in out


def test_json_may_overwrite_a_file_but_paths_are_checked_first(specs: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    existing = write(tmp_path, "old.json", "{}")
    code, _, _ = run(capsys, "--specs", str(specs), "--json", str(existing))
    assert code == 0 and json.loads(existing.read_text())["exit_code"] == 0
    code, out, err = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:raises",
                         "--json", str(tmp_path / "missing" / "r.json"))
    assert code == 2 and out == "" and err.count("\n") == 1  # refused before any target was called
    code, _, _ = run(capsys, "--specs", str(specs), "--report", str(tmp_path / "new"),
                     "--json", str(tmp_path / "new" / "r.json"))  # the --report folder is made for both
    assert code == 0 and (tmp_path / "new" / "r.json").is_file() and (tmp_path / "new" / "index.html").is_file()


def test_a_failure_quotes_both_sides_with_reasoning_redacted(specs: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "r.json"
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:strip_all_thinking",
                       "--json", str(out_file))
    assert code == 1
    assert 'expected input[3]: {"role": "assistant", "content": [{"type": "thinking"' in out
    assert 'returned output[3]: {"role": "assistant", "content": [{"type": "tool_use"' in out
    assert "plan 2" not in out and "plan 2" not in out_file.read_text()
    record = next(r for r in json.loads(out_file.read_text())["records"]
                  if r["invariant"] == "live.untouched-suffix" and r["outcome"] == "fail")
    assert record["details"]["expected"].startswith("input[3]: ") and record["details"]["returned"].startswith("output[3]: ")


def test_a_traceback_shows_no_reasoning_text_and_no_credential(specs: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-abcdefghijklmnop")
    (tmp_path / "leaky_target.py").write_text(
        "import os\n"
        "def compact(history):\n"
        "    return _deeper(history)\n"
        "def _deeper(history):\n"
        "    secret = history[3]['content'][0]['thinking']\n"
        "    raise ValueError(f'cannot keep {secret!r} with key {os.environ[\"ANTHROPIC_API_KEY\"]}')\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    out_file = tmp_path / "r.json"
    code, out, _ = run(capsys, "--specs", str(specs), "--target", "leaky_target:compact", "--json", str(out_file),
                       "-k", "inflight")
    text = out + out_file.read_text()
    assert code == 1 and "leaky_target.py\", line 6, in _deeper" in out
    assert "plan 2" not in text and "abcdefghijklmnop" not in text
    assert "[redacted" in out


def test_a_key_read_from_a_secrets_file_reaches_no_output(specs: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Keys of no sk-/Bearer shape, in no environment variable, in a URL's query and in request
    headers a target prints and raises, reach neither the terminal, --json nor --report."""
    gemini, azure, basic = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "8f2c3b9e4d1a4f6b9c7e2d5a1b3c4d5e", "dXNlcjpodW50ZXIy"
    (tmp_path / "secrets.json").write_text(json.dumps({"gemini": gemini, "azure": azure, "basic": basic}))
    (tmp_path / "keyed_target.py").write_text(
        "import json, pathlib\n"
        "SECRETS = json.loads(pathlib.Path(__file__).with_name('secrets.json').read_text())\n"
        "def compact(history):\n"
        "    url = f\"https://gen.example/v1beta/models/m:generateContent?key={SECRETS['gemini']}\"\n"
        "    headers = {'api-key': SECRETS['azure'], 'x-goog-api-key': SECRETS['gemini'],\n"
        "               'Authorization': 'Basic ' + SECRETS['basic']}\n"
        "    print(f'POST {url} headers={headers}')\n"
        "    raise RuntimeError(f'400 Client Error: Bad Request for url: {url} (sent {headers})')\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    out_file, report = tmp_path / "r.json", tmp_path / "report"
    code, out, err = run(capsys, "--specs", str(specs), "--target", "keyed_target:compact", "--json", str(out_file),
                         "--report", str(report))
    written = [out, err, out_file.read_text(), *(p.read_text() for p in sorted(report.iterdir()))]
    assert code == 1 and len(written) >= 5 and "[redacted credential]" in out
    for text in written:
        assert gemini not in text and azure not in text and basic not in text


@pytest.mark.slow
def test_a_gaps_file_that_excuses_every_must_gives_no_verdict(specs: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "wrecker.py").write_text("def compact(history):\n    history.clear()\n    raise RuntimeError('no')\n",
                                         encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    gaps = write(tmp_path, "gaps.yaml", "format_version: 1\ntarget: wrecker:compact\ngaps:\n"
                 "  - {scenario: tiny.inflight, reason: everything}\n  - {scenario: tiny.settled, reason: everything}\n")
    code, out, err = run(capsys, "--specs", str(specs), "--target", "wrecker:compact", "--expectations", str(gaps))
    assert code == 2 and "NOTHING CHECKED" in out and "CONFORMS" not in out
    assert "every one was skipped, not run or a known gap" in err
    one_gap = write(tmp_path, "one.yaml", "format_version: 1\ntarget: wrecker:compact\ngaps:\n"
                    "  - {scenario: tiny.inflight, reason: everything}\n")
    code, out, _ = run(capsys, "--specs", str(specs), "--target", "wrecker:compact", "--expectations", str(one_gap))
    assert code == 1  # tiny.settled still counts


@pytest.mark.slow
def test_the_report_fits_100_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped run (provider table included) and a failing run's evidence fit 100 columns; a
    failure's head line (it names the file) and a traceback's frames stay whole, to copy."""
    assert main(["run", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "REACHES TASK IN FLIGHT" in out and "    configuration: " in out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert main(["run", "--no-progress", "--no-provider", "--in-process", "--target", f"{BROKEN}:keep_last_n"]) == 1
    lines = capsys.readouterr().out.splitlines()
    evidence = [line for line in lines if not line.startswith("[")]
    assert any(line.startswith("    expected input[") for line in evidence)
    assert max(len(line) for line in evidence) <= 100


@pytest.mark.slow
def test_a_reader_that_closes_the_pipe_ends_the_command_quietly() -> None:
    """``conformance ... | head``: no traceback, and exit 141 (or 0 when everything was written first)."""
    import os
    import subprocess
    import sys

    read, write_end = os.pipe()
    os.close(read)  # the reader is gone before the command writes a line
    try:
        done = subprocess.run([sys.executable, "-m", "conformance", "catalog"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert done.stderr == ""


def test_a_closed_pipe_in_process_is_141_without_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    class Gone:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Gone())
    assert main(["catalog"]) == 141
    assert capsys.readouterr().err == ""


def test_bare_conformance_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: conformance")
    assert "{run," in err and "conformance --help" in err


def test_the_help_of_v_says_what_the_output_says_it_does(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "-v, --verbose show every failure in full, known gaps too" in help_text
    code, out, _ = run(capsys, "--specs", str(specs), "--target", f"{BROKEN}:strip_all_thinking")
    assert code == 1 and "-v: every one, known gaps too)" in out


@pytest.mark.parametrize(("expression", "words", "expected"), [
    ("edges", ["edges.one-request", "edges"], True),
    ("not edges", ["edges.one-request", "edges"], False),
    ("edges and not one", ["edges.one-request", "edges"], False),
    ("arith or edges and one", ["arithmetic.inflight", "arithmetic"], True),
    ("(arith or edges) and one", ["arithmetic.inflight", "arithmetic"], False),
    ("not not edges", ["edges.x", "edges"], True),
    ("__import__ or exit", ["edges.x"], False),  # words like any other, never run as code
    ("", ["anything"], True),
])
def test_the_k_expression_is_parsed_as_pytest_reads_it(expression: str, words: list[str], expected: bool) -> None:
    from conformance.engine.runner import keyword_filter

    assert keyword_filter(expression).matches(*words) is expected


@pytest.mark.parametrize("expression", ["and and", "edges and", "(edges", "edges)", "not", "edges edges",
                                        "__import__('os')"])
def test_a_k_expression_that_does_not_parse_is_a_usage_error(expression: str) -> None:
    from conformance.errors import UsageError
    from conformance.engine.runner import keyword_filter

    with pytest.raises(UsageError, match="does not parse"):
        keyword_filter(expression)
