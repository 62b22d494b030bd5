"""Malformed provider input: each is exit 2 with the file (and line or field) named, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider import cassettes

from .conftest import SPECS
from .._yaml import load_yaml

CASSETTE = "clear-tool-uses.keep-below-live-task.yaml"


def _edit_yaml(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        data = load_yaml(path.read_text())
        change(data)
        path.write_text(cassettes.dump(data))
    return apply


def _replace_bytes(old: bytes, new: bytes) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        raw = path.read_bytes()
        assert old in raw
        path.write_bytes(raw.replace(old, new, 1))
    return apply


# name -> (how the cassette is broken, what the message must say)
BROKEN_CASSETTES: dict[str, tuple[Callable[[Path], None], str]] = {
    "bad YAML": (lambda p: p.write_text("version: 1\ninteractions: [ {request: \n"), ":2: invalid YAML"),  # where the "{" opens
    "non-UTF-8 byte": (_replace_bytes(b"interactions:", b"interactions:\xff"), ":1: not UTF-8: byte 0xff at byte offset 13 (column 14)"),
    "no interactions": (_edit_yaml(lambda d: d.__setitem__("interactions", [])), "interactions: no interactions recorded"),
    "truncated body": (_edit_yaml(lambda d: d["interactions"][1]["response"]["body"].__setitem__(
        "string", d["interactions"][1]["response"]["body"]["string"][:40])), "response body is not JSON"),
    "wrong probe id": (_edit_yaml(lambda d: d["metadata"].__setitem__("probe", "clear-tool-uses.no-such-probe")),
                       "no probe spec has id 'clear-tool-uses.no-such-probe'"),
    "stored 5xx answer": (_edit_yaml(lambda d: d["interactions"][1]["response"]["status"].update(
        code=503, message="Service Unavailable")), "interactions[1] stores a 503 Service Unavailable answer"),
    "empty file": (lambda p: p.write_text(""), "empty cassette file"),
    "request that is not the probe's": (_edit_yaml(lambda d: d["interactions"][1]["request"].__setitem__(
        "body", d["interactions"][1]["request"]["body"].replace("toolu_b1", "toolu_zz"))), "does not match its probe"),
}


def _no_traceback(captured: pytest.CaptureResult[str]) -> None:
    assert "Traceback" not in captured.out + captured.err


@pytest.mark.parametrize("name", sorted(BROKEN_CASSETTES))
def test_a_malformed_cassette_is_a_located_usage_error(name: str, shipped_copy: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    breaks, needle = BROKEN_CASSETTES[name]
    path = shipped_copy / CASSETTE
    breaks(path)
    assert main(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    _no_traceback(captured)
    problem = [line for line in captured.out.splitlines() if line.startswith("  ERROR")]
    assert problem and str(path) in problem[0] and needle in problem[0], captured.out


PROBE = """\
format_version: 1
probes:
  - id: t.rejected
    description: a request the documented rules reject
    request: {model: m, max_tokens: 10, compaction: {type: summarize}}
    history:
      - {role: user, content: hello}
    live: {from_message: 0, tool_use_ids: [], thinking_turns: []}
    predict:
      verdict: rejected
      error_code: invalid_request_error
      error: {type: invalid_request_error, message: "compaction"}
"""

# name -> (edit of the probe file, the located message)
BROKEN_SPECS: dict[str, tuple[Callable[[str], str], str]] = {
    "unknown field": (lambda t: t.replace("      verdict: rejected", "      verdict: rejected\n      colour: red"),
                      ":9: probes[0].predict: Additional properties are not allowed ('colour' was unexpected)"),
    "rejected without its error": (lambda t: t.replace('      error: {type: invalid_request_error, message: "compaction"}\n', ""),
                                   ":9: probes[0].predict: 'error' is a required property"),
    "error that is not a pattern": (lambda t: t.replace('message: "compaction"', 'message: "compaction("'),
                                    ":12: probes[0].predict.error.message: not a regular expression"),
    "error code the rules do not give": (
        lambda t: t.replace('message: "compaction"}', 'code: compaction_incomplete_turn}'),
        ":12: probes[0].predict.error.code: the documented semantics give error 'invalid_request_error'"),
    "error without code or message": (lambda t: t.replace(', message: "compaction"', ""),
                                      ":12: probes[0].predict.error: {'type': 'invalid_request_error'} is not valid"),
    "prediction the rules do not give": (lambda t: t.replace(", compaction: {type: summarize}", ""),
                                         ":10: probes[0].predict.verdict: the documented semantics give 'no-edit'"),
    "expected error on a request the rules accept": (
        lambda t: t.replace(", compaction: {type: summarize}", "").replace("verdict: rejected", "verdict: no-edit")
        .replace("      error_code: invalid_request_error\n", ""),
        ":11: probes[0].predict.error: the documented semantics do not reject this request (no-edit)"),
    "non-UTF-8 spec": (lambda t: t.replace("hello", "hel\udcfflo"), ":7: not UTF-8: byte 0xff"),
}


@pytest.mark.parametrize("name", sorted(BROKEN_SPECS))
def test_a_malformed_probe_spec_is_a_located_usage_error(name: str, tmp_path: Path, shipped_copy: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    edit, needle = BROKEN_SPECS[name]
    spec = tmp_path / "probe.yaml"
    assert edit(PROBE) != PROBE
    spec.write_bytes(edit(PROBE).encode("utf-8", "surrogateescape"))
    assert main(["verify", str(shipped_copy / CASSETTE), "--specs", str(spec)]) == 2
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert f"{spec}{needle}" in captured.out, captured.out


def test_the_unbroken_probe_spec_loads(tmp_path: Path, shipped_copy: Path) -> None:
    spec = tmp_path / "probe.yaml"
    spec.write_text(PROBE)
    # the cassette is for another probe, so that one is an input error; the spec itself is fine
    from conformance.provider.probes import load_probes
    probes, errors = load_probes([spec])
    assert not errors and list(probes) == ["t.rejected"]


@pytest.mark.parametrize(("argv", "needle"), [
    (["verify", "{empty}"], "no cassette (*.yaml) under"),
    (["verify", "{missing}"], "no such file or folder"),
    (["audit", "{empty}"], "nothing to check is not a pass"),
    (["audit", "{missing}"], "no such file or folder"),
    (["record", "--max-cost", "-1"], "--max-cost must be zero or more"),
    (["record", "--probe", "no.such-probe"], "unknown probe id(s): no.such-probe"),
    (["record", "--max-cost", "nothing"], "invalid float value"),
    (["verify", "--specs", "{spec_dir}", "{cassette}"], "no probe spec has id"),
])
def test_bad_arguments_are_usage_errors(argv: list[str], needle: str, tmp_path: Path, shipped_copy: Path,
                                        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    (tmp_path / "empty").mkdir()
    (tmp_path / "spec_dir").mkdir()
    (tmp_path / "spec_dir" / "p.yaml").write_text(PROBE)
    names = {"empty": tmp_path / "empty", "missing": tmp_path / "missing", "spec_dir": tmp_path / "spec_dir",
             "cassette": shipped_copy / CASSETTE}
    argv = [a.format(**names) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    _no_traceback(captured)
    assert needle in captured.out + captured.err


def test_record_without_a_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["record", "--probe", "compact.mid-task"]) == 2
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err


def test_max_cost_with_an_unpriced_model_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    spec = tmp_path / "p.yaml"
    spec.write_text(PROBE)
    assert main(["record", "--specs", str(spec), "--max-cost", "100"]) == 2
    assert "cannot be priced" in capsys.readouterr().err


def test_specs_folder_is_real() -> None:
    assert SPECS.is_dir()
