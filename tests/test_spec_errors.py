"""Bad input gets a clear error naming file, line and field, and loses nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import load
from conformance.cli import main

from ._specs import GOOD, write


def errors_for(tmp_path: Path, text: str) -> list[str]:
    write(tmp_path, "good.yaml", GOOD)
    write(tmp_path, "bad.yaml", text)
    result = load([tmp_path])
    assert {s.id for s in result.scenarios} >= {"tiny.inflight", "tiny.settled"}
    return [str(e) for e in result.errors]


def test_bad_yaml_names_file_and_line(tmp_path: Path) -> None:
    (error,) = errors_for(tmp_path, "format_version: 1\nscenarios: [\n  {id: x\n")
    assert "bad.yaml:" in error and "invalid YAML" in error


def test_unknown_key_names_the_key_and_its_line(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.inflight", "other.one").replace("tiny.settled", "other.two").replace(
        "    family: tiny\n    history:\n      - {role: user, content: \"hi\"}",
        "    family: tiny\n    colour: blue\n    history:\n      - {role: user, content: \"hi\"}")
    (error,) = errors_for(tmp_path, text)
    line = text.splitlines().index("    colour: blue") + 1
    assert error == f"{tmp_path / 'bad.yaml'}:{line}: scenarios[1].colour: unknown key"


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "wt.").replace("truth: {live_start: 2}\n    expect", "truth: {live_start: two}\n    expect")
    (error,) = errors_for(tmp_path, text)
    assert "scenarios[0].truth.live_start" in error and "'two' is not of type 'integer'" in error


def test_missing_truth_is_an_error_and_the_sibling_still_loads(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "mt.")
    text = text[: text.rindex("    truth:")]  # the second scenario loses its truth
    write(tmp_path, "bad.yaml", text)
    result = load([tmp_path])
    assert "mt.inflight" in {s.id for s in result.scenarios}
    assert any("scenarios[1]" in str(e) and "'truth' is a required property" in str(e) for e in result.errors)


def test_duplicate_id_across_files_names_both_places(tmp_path: Path) -> None:
    (error,) = errors_for(tmp_path, GOOD.replace("tiny.settled", "tiny.other"))
    assert "duplicate id 'tiny.inflight'" in error and "good.yaml:3" in error


def test_duplicate_key_is_an_error(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "dk.").replace("    family: tiny\n    params", "    family: tiny\n    family: again\n    params")
    (error,) = errors_for(tmp_path, text)
    assert "duplicate key" in error and "scenarios[0].family" in error


def test_truth_past_the_end_is_an_error(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "pe.").replace("history:\n      - {role: user, content: \"hi\"}\n      - {role: assistant, content: \"hello\"}\n    truth: {live_start: 2}",
                                                "history:\n      - {role: user, content: \"hi\"}\n      - {role: assistant, content: \"hello\"}\n    truth: {live_start: 3}")
    (error,) = errors_for(tmp_path, text)
    assert "truth.live_start" in error and "past the end" in error


def test_cli_exits_2_on_a_spec_error_and_still_runs_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "good.yaml", GOOD)
    write(tmp_path, "bad.yaml", "format_version: 1\nscenarios: [\n")
    code = main(["run", "--specs", str(tmp_path), "--no-provider"])
    out = capsys.readouterr().out
    assert code == 2
    assert "spec error:" in out and "bad.yaml" in out
    assert "target conformance_reference:compact: 2 scenarios" in out


def test_a_block_missing_its_fields_names_message_and_block(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "bb.").replace("{type: tool_use, id: toolu_01, name: ls, input: {}}\n      - role: user",
                                                 "{type: tool_use, name: ls, input: {}}\n      - role: user", 1)
    (error,) = errors_for(tmp_path, text)
    line = text.splitlines().index("          - {type: tool_use, name: ls, input: {}}") + 1
    assert error == f"{tmp_path / 'bad.yaml'}:{line}: scenarios[0].history[3].content[1]: 'id' is a required property"


def test_an_unknown_invariant_id_in_skip_is_an_error_not_a_silent_no_op(tmp_path: Path) -> None:
    text = GOOD.replace("tiny.", "ui.").replace("    truth: {live_start: 2}\n    expect:\n",
                                                "    truth: {live_start: 2}\n    expect:\n"
                                                "      skip: {live.untouched-sufix: typo}\n", 1)
    (error,) = errors_for(tmp_path, text)
    assert "scenarios[0].expect.skip.live.untouched-sufix: unknown invariant id" in error


def test_an_unclosed_quote_is_reported_where_it_opens_not_at_the_end(tmp_path: Path) -> None:
    text = ("format_version: 1\nscenarios:\n  - id: x.one\n    description: \"never closed\n"
            "    family: edges\n    history: []\n  - id: x.two\n    description: fine\n")
    (error,) = errors_for(tmp_path, text)
    assert "bad.yaml:4: invalid YAML" in error, error
    assert "never closed" in error and "line 9" in error  # where the reader gave up, said once


@pytest.mark.parametrize(("text", "line"), [
    ("format_version: 1\nscenarios: [\n", 2),  # the file ends inside the flow sequence
    ("format_version: 1\nscenarios: [ {id: x,\n   description: y\n", 2),  # innermost opener still open
    ("format_version: 1\nscenarios: [1, 2\nother: 3\n", 2),  # the sequence runs into the next key
])
def test_an_unclosed_bracket_is_reported_where_it_opens(tmp_path: Path, text: str, line: int) -> None:
    (error,) = errors_for(tmp_path, text)
    assert f"bad.yaml:{line}: invalid YAML" in error and "never closed" in error, error


def test_a_problem_mid_file_is_still_reported_where_the_reader_stopped(tmp_path: Path) -> None:
    (error,) = errors_for(tmp_path, "format_version: 1\nscenarios:\n  - id: x\n description: y\n    family: z\n")
    assert "bad.yaml:4: invalid YAML" in error, error


def test_every_schema_error_of_a_file_is_shown_with_its_line_and_field(tmp_path: Path) -> None:
    text = ("format_version: 2\n"
            "extra: 1\n"
            "scenarios:\n"
            "  - id: x.one\n"
            "    description: one\n"
            "    family: edges\n"
            "    histori: []\n"
            "    truth: {live_start: 0}\n"
            "  - id: x.two\n"
            "    description: 3\n"
            "    family: edges\n"
            "    history: [{role: user, content: hi}, {role: robot, content: []}]\n"
            "    truth: {live_start: 0}\n")
    errors = errors_for(tmp_path, text)
    expected = ["bad.yaml:1: format_version", "bad.yaml:2: extra: unknown key",
                "bad.yaml:4: scenarios[0]: 'history' is a required property",
                "bad.yaml:7: scenarios[0].histori: unknown key",
                "bad.yaml:10: scenarios[1].description: 3 is not of type 'string'",
                "bad.yaml:12: scenarios[1].history[1].role: 'robot'"]
    assert len(errors) == len(expected), errors
    for error, start in zip(errors, expected):
        assert start in error, (start, errors)


def test_a_bad_header_loads_no_scenario_of_its_file(tmp_path: Path) -> None:
    bad = GOOD.replace("tiny.inflight", "other.one").replace("tiny.settled", "other.two").replace(
        "format_version: 1", "format_version: 7")
    (error,) = errors_for(tmp_path, bad)
    assert "format_version" in error
    assert not {s.id for s in load([tmp_path]).scenarios} & {"other.one", "other.two"}
