"""Replay and verdicts: shipped recordings agree with their predictions; every fault is caught."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from conformance.provider import cassettes, verify_results
from conformance.provider.anthropic import replay as replay_module
from conformance.provider.anthropic.emulator_edits import FAULTS
from conformance.provider.anthropic.probes import Probe
from conformance.provider.probes import load_probes
from conformance.provider.verify import PROBE_VALID, VALID, VERDICT, verify

from .conftest import CASSETTES, SPECS
from .._yaml import load_yaml


def recorded(results: list) -> list:
    """Returns the results for recorded probes (a folder also reports a skip per unrecorded probe)."""
    return [r for r in results if r.outcome != "skip"]


def test_missing_recordings_are_skips(record_with, probes: dict[str, Probe]) -> None:
    out, _ = record_with(["compact.below-trigger"])
    results = verify([out], probes)
    assert [r.scenario for r in results if r.outcome != "skip"] == ["compact.below-trigger"]
    assert len(results) == len(probes) and "no recording" in results[-1].message


def test_every_probe_has_a_shipped_emulator_cassette(probes: dict[str, Probe]) -> None:
    assert {p.stem for p in (CASSETTES / "emulator").glob("*.yaml")} == set(probes)


@pytest.mark.slow
def test_shipped_cassettes_match_their_predictions(probes: dict[str, Probe]) -> None:
    results = verify([CASSETTES / "emulator"], probes)
    assert len(results) == len(probes)
    assert all(r.outcome == "pass" and r.invariant == VERDICT for r in results), [r.message for r in results if r.outcome != "pass"]
    assert {r.target for r in results} == {"emulator"}
    assert {r.details["verdict"] for r in results} == {"settled-only", "reached-live-task", "no-edit", "rejected",
                                                       "live-reasoning-lost"}
    for r in results:
        assert r.kind == "probe" and r.level == "MUST" and set(r.details) >= {
            "verdict", "predicted", "cleared_tool_use_ids", "cleared_thinking_turns", "reached_live", "evidence"}


@pytest.mark.slow
def test_verify_results_defaults_to_the_shipped_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SPECS.parents[1])
    results = verify_results()
    assert results and all(r.outcome == "pass" for r in results)


# fault -> (probe that shows it, verdict the analyzer must reach)
CAUGHT = {
    "clear-live-despite-keep": ("clear-tool-uses.keep-equals-live-task", "reached-live-task"),
    "miscount": ("clear-tool-uses.keep-equals-live-task", "inconsistent"),
    "drop-latest-thinking": ("clear-thinking.keep-one-turn", "reached-live-task"),
    "loop-as-turns": ("clear-thinking.keep-one-turn", "inconsistent"),
    "ignore-exclude-tools": ("clear-tool-uses.exclude-tools-shields-live-task", "reached-live-task"),
    "ignore-clear-at-least": ("clear-tool-uses.clear-at-least-too-high", "reached-live-task"),
    "compact-open-tool-call": ("compaction.open-tool-call", "reached-live-task"),
    "count-tokens-ignores-edits": ("clear-tool-uses.keep-equals-live-task", "inconsistent"),
    "edits-invalidate-thinking": ("clear-tool-uses.preserved-thinking-never-invalidates", "live-reasoning-lost"),
    "prefix-check-off": ("thinking-binding.edit-settled-mid-task-drop-block", "no-edit"),
    "prefix-check-every-model": ("thinking-binding.model-without-the-check", "rejected"),
}
BROKEN = {
    "unknown-edit-type": ("clear-tool-uses.keep-equals-live-task", "unknown applied edit type 'clear_tool_results_20270101'"),
    "unknown-block-type": ("clear-tool-uses.keep-equals-live-task", "unknown content block type 'context_note'"),
}


def test_every_fault_has_a_test() -> None:
    assert set(CAUGHT) | set(BROKEN) | {"overloaded"} == set(FAULTS)


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(CAUGHT))
def test_faulty_emulator_is_caught(fault: str, record_with, probes: dict[str, Probe]) -> None:
    probe_id, verdict = CAUGHT[fault]
    out, outcomes = record_with([probe_id], [fault])
    assert all(o.ok for o in outcomes), outcomes
    [result] = recorded(verify([out], probes))
    assert result.outcome == "fail", result.message
    assert result.details["verdict"] == verdict
    assert result.target == f"emulator+{fault}"


@pytest.mark.parametrize("fault", sorted(BROKEN))
def test_unknown_types_are_a_per_probe_error(fault: str, record_with, probes: dict[str, Probe]) -> None:
    probe_id, message = BROKEN[fault]
    out, _ = record_with([probe_id, "clear-tool-uses.keep-above-live-task"], [fault])
    results = recorded(verify([out], probes))
    assert [r.outcome for r in results] == ["error", "error"]
    assert results[1].invariant == VALID and message in results[1].message


def test_a_correct_emulator_recording_passes(record_with, probes: dict[str, Probe]) -> None:
    out, _ = record_with(["clear-tool-uses.keep-below-live-task"])
    [result] = recorded(verify([out], probes))
    assert result.outcome == "pass" and result.details["reached_tool_use_ids"] == ["toolu_b1"]


@pytest.mark.slow
def test_corrupt_and_truncated_cassettes_fail_alone(shipped_copy: Path, probes: dict[str, Probe]) -> None:
    truncated = shipped_copy / "clear-tool-uses.keep-below-live-task.yaml"
    truncated.write_text(truncated.read_text()[:700])
    corrupt = shipped_copy / "clear-thinking.keep-one-turn.yaml"
    corrupt.write_text("version: 1\ninteractions: [ {request: \n")
    (shipped_copy / "compact.mid-task.yaml").write_text("")
    results = {r.scenario: r for r in verify([shipped_copy], probes)}
    bad = {k: r for k, r in results.items() if r.outcome != "pass"}
    assert set(bad) == {"clear-tool-uses.keep-below-live-task", "clear-thinking.keep-one-turn", "compact.mid-task"}
    for r in bad.values():
        assert r.outcome == "error" and r.invariant == VALID and "corrupt cassette" in r.message
    assert "invalid YAML" in bad["clear-thinking.keep-one-turn"].message
    assert "empty cassette" in bad["compact.mid-task"].message
    assert len(results) == len(probes)


def test_cassette_that_does_not_match_its_probe(tmp_path: Path, shipped_copy: Path) -> None:
    spec = tmp_path / "specs.yaml"
    text = (SPECS / "clear-tool-uses.yaml").read_text()
    spec.write_text(text.replace("description: keep 3 equal to the task in flight clears only the settled task",
                                 "description: edited\n    comment: the padding changed").replace(
        "{message: 12, block: 0, tokens: 4000}", "{message: 12, block: 0, tokens: 4001}", 1))
    probes, errors = load_probes([spec])
    assert not errors
    results = {r.scenario: r for r in verify([shipped_copy / "clear-tool-uses.keep-equals-live-task.yaml"], probes)}
    result = results["clear-tool-uses.keep-equals-live-task"]
    assert result.outcome == "error" and "does not match its probe" in result.message


def test_unrequested_interactions_mean_a_mismatch(tmp_path: Path, shipped_copy: Path) -> None:
    spec = tmp_path / "specs.yaml"
    text = (SPECS / "clear-tool-uses.yaml").read_text()
    spec.write_text(text.replace("    predict:\n      verdict: no-edit\n      cleared_tool_use_ids: []",
                                 "    count_tokens: false\n    predict:\n      verdict: no-edit\n      cleared_tool_use_ids: []"))
    probes, errors = load_probes([spec])
    assert not errors and not probes["clear-tool-uses.clear-at-least-too-high"].count_tokens
    [result] = verify([shipped_copy / "clear-tool-uses.clear-at-least-too-high.yaml"], probes)
    assert result.outcome == "error" and "never requested" in result.message


def test_unknown_probe_and_bad_spec_are_reported(tmp_path: Path, shipped_copy: Path) -> None:
    bad_spec = tmp_path / "bad.yaml"
    bad_spec.write_text("format_version: 2\nprobes: []\n")
    probes, errors = load_probes([bad_spec])
    results = verify([shipped_copy / "compact.mid-task.yaml"], probes, errors)
    assert {r.invariant for r in results} == {PROBE_VALID, VALID}
    assert any("no probe spec has id 'compact.mid-task'" in r.message for r in results)


def test_verify_results_never_raises(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_bytes(b"\xff\xfe\x00garbage")
    results = verify_results([tmp_path], specs=[SPECS])
    assert results[0].outcome == "error"


def test_replay_blocks_the_network() -> None:
    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection)
    with cassettes.network_blocked():
        with pytest.raises(cassettes.NetworkBlocked):
            socket.create_connection(("127.0.0.1", 9))
        with socket.socket() as sock, pytest.raises(cassettes.NetworkBlocked):
            sock.connect(("127.0.0.1", 9))
        with socket.socket() as sock, pytest.raises(cassettes.NetworkBlocked):
            sock.connect_ex(("127.0.0.1", 9))
    assert (socket.socket.connect, socket.socket.connect_ex, socket.create_connection) == saved


@pytest.mark.slow
def test_replay_never_records(shipped_copy: Path, probes: dict[str, Probe]) -> None:
    before = {p: p.read_bytes() for p in shipped_copy.iterdir()}
    verify([shipped_copy], probes)
    assert {p: p.read_bytes() for p in shipped_copy.iterdir()} == before


ODD_CASSETTES = {
    "uri is not text": lambda d: d["interactions"][0]["request"].__setitem__("uri", 5),
    "headers are not a mapping": lambda d: d["interactions"][1]["response"].__setitem__("headers", ["x"]),
    "response body is not text": lambda d: d["interactions"][1]["response"]["body"].__setitem__("string", 5),
    "response body is not JSON": lambda d: d["interactions"][1]["response"]["body"].__setitem__("string", "<html>"),
}


@pytest.mark.slow
@pytest.mark.parametrize("needle", sorted(ODD_CASSETTES))
def test_odd_cassettes_are_a_per_probe_error(needle: str, shipped_copy: Path, probes: dict[str, Probe]) -> None:
    path = shipped_copy / "clear-tool-uses.keep-below-live-task.yaml"
    data = load_yaml(path.read_text())
    ODD_CASSETTES[needle](data)
    path.write_text(cassettes.dump(data))
    results = {r.scenario: r for r in verify([shipped_copy], probes)}
    odd = results.pop("clear-tool-uses.keep-below-live-task")
    assert odd.outcome == "error" and odd.invariant == VALID and needle in odd.message, odd.message
    assert {r.outcome for r in results.values()} == {"pass"}


def test_metadata_that_is_not_a_mapping_falls_back_to_the_path(shipped_copy: Path, probes: dict[str, Probe]) -> None:
    path = shipped_copy / "compact.mid-task.yaml"
    data = load_yaml(path.read_text())
    data["metadata"] = ["not", "a", "mapping"]
    path.write_text(cassettes.dump(data))
    [result] = verify([path], probes)
    assert result.outcome == "pass" and (result.target, result.scenario) == ("emulator", "compact.mid-task")


@pytest.mark.slow
def test_an_unexpected_failure_is_an_error_for_that_probe_only(shipped_copy: Path, probes: dict[str, Probe],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real = replay_module.analyze

    def analyze(probe: Probe, *args: object) -> object:
        if probe.id == "compact.mid-task":
            raise KeyError("usage")
        return real(probe, *args)

    monkeypatch.setattr(replay_module, "analyze", analyze)
    results = {r.scenario: r for r in verify([shipped_copy], probes)}
    broken = results.pop("compact.mid-task")
    assert broken.outcome == "error" and "cannot replay: KeyError" in broken.message
    assert {r.outcome for r in results.values()} == {"pass"}


def test_a_refused_count_tokens_beside_an_accepted_create_fails(shipped_copy: Path, probes: dict[str, Probe]) -> None:
    path = shipped_copy / "clear-tool-uses.keep-equals-live-task.yaml"
    data = load_yaml(path.read_text())
    data["interactions"][0]["response"]["status"]["code"] = 400
    data["interactions"][0]["response"]["body"]["string"] = (
        '{"type":"error","error":{"type":"invalid_request_error","message":"no"},"request_id":"req_scrubbed"}')
    path.write_text(cassettes.dump(data))
    [result] = verify([path], probes)
    assert result.outcome == "fail" and result.details["verdict"] == "inconsistent"
    assert "count_tokens was rejected (invalid_request_error)" in result.message


def test_a_response_the_sdk_types_refuse_is_named(shipped_copy: Path, probes: dict[str, Probe]) -> None:
    path = shipped_copy / "compact.mid-task.yaml"
    data = load_yaml(path.read_text())
    data["interactions"][-1]["response"]["body"]["string"] = '{"type": "message"}'
    path.write_text(cassettes.dump(data))
    [result] = verify([path], probes)
    assert result.outcome == "error" and "does not parse as the SDK's beta type" in result.message


@pytest.mark.parametrize(("probe_id", "error", "verdict_ok"), [
    ("clear-thinking.requires-thinking",
     {"type": "invalid_request_error", "message": "messages.1.content.0: Invalid `signature` in `thinking` block"}, False),
    ("clear-thinking.requires-thinking",
     {"type": "invalid_request_error",
      "message": "`clear_thinking_20251015` strategy requires `thinking` to be enabled or adaptive"}, True),
    ("compaction.open-tool-call",
     {"type": "invalid_request_error", "message": "compaction_nothing_to_summarize",
      "details": {"error_code": "compaction_nothing_to_summarize"}}, False),
    ("clear-tool-uses.missing-beta", {"type": "authentication_error", "message": "invalid x-api-key"}, False),
])
def test_a_rejection_for_another_reason_contradicts_the_prediction(probe_id: str, error: dict, verdict_ok: bool,
                                                                   shipped_copy: Path, probes: dict[str, Probe]) -> None:
    import json

    path = shipped_copy / f"{probe_id}.yaml"
    data = load_yaml(path.read_text())
    for item in data["interactions"]:
        if item["response"]["status"]["code"] == 400:
            item["response"]["body"]["string"] = json.dumps({"type": "error", "error": error,
                                                             "request_id": "req_scrubbed"})
    path.write_text(cassettes.dump(data))
    [result] = verify([path], probes)
    assert result.details["verdict"] == "rejected"
    assert (result.outcome == "pass") is verdict_ok, result.message
    if not verdict_ok:
        assert "rejected for another reason" in result.message and error["message"] in result.message


@pytest.mark.slow
def test_explain_of_a_probe_exits_1_when_its_recording_contradicts_it(shipped_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import conformance.provider
    from conformance.cli import main

    monkeypatch.setattr(conformance.provider, "default_cassettes", lambda: shipped_copy)
    assert main(["explain", "clear-thinking.requires-thinking"]) == 0
    path = shipped_copy / "clear-thinking.requires-thinking.yaml"
    data = load_yaml(path.read_text())
    for item in data["interactions"]:
        if item["response"]["status"]["code"] == 400:
            item["response"]["body"]["string"] = json.dumps({"type": "error", "request_id": "req_scrubbed", "error": {
                "type": "invalid_request_error", "message": "messages.1.content.0: Invalid `signature` in `thinking` block"}})
    path.write_text(cassettes.dump(data))
    assert main(["explain", "clear-thinking.requires-thinking"]) == 1
    assert "CONTRADICTS the prediction" in capsys.readouterr().out


def test_the_thinking_template_sent_as_written_is_refused_for_its_signatures(tmp_path: Path,
                                                                             probes: dict[str, Probe]) -> None:
    import dataclasses

    from conformance.provider.anthropic.emulator import Emulator
    from conformance.provider.anthropic.record import record

    # The same probe without its script: the stand-in thinking goes out unsigned, as a hand-written history would.
    unsigned = dataclasses.replace(probes["clear-thinking.requires-thinking"], script=None)
    with Emulator(0) as emulator:
        [outcome] = record([unsigned], "dummy", emulator.url, tmp_path)
    assert outcome.ok
    [result] = verify([outcome.path], {unsigned.id: unsigned})
    assert result.outcome == "fail" and "Invalid `signature` in `thinking` block" in result.message


def test_problem_lines_name_the_configuration_and_the_live_ids(record_with, probes: dict[str, Probe]) -> None:
    from conformance.provider.table import render

    out, _ = record_with(["clear-tool-uses.keep-equals-live-task"], ["clear-live-despite-keep"])
    text = render(recorded(verify([out], probes)))
    [line] = [line for line in text.splitlines() if line.startswith("  FAIL")]
    assert "[clear_tool_uses(tokens>3000, keep 3); live tool uses toolu_b1,toolu_b2,toolu_b3, thinking turns none]" in line
    assert "FINDING emulator+clear-live-despite-keep: clear_tool_uses(tokens>3000, keep 3) clears work" in text
    assert "reached-live-task (emulator)" in text


def test_explain_shows_the_recorded_outcome(probes: dict[str, Probe], shipped_copy: Path) -> None:
    from conformance.report.explain import explain_probe

    text = explain_probe(probes["clear-tool-uses.keep-below-live-task"], [shipped_copy])
    assert "recorded:\n  emulator (local emulator, not the real service)" in text
    assert "verdict reached-live-task, as predicted" in text and "FINDING: cleared the tool results of toolu_b1" in text
    (shipped_copy / "clear-tool-uses.keep-below-live-task.yaml").write_text("")
    assert "empty cassette file" in explain_probe(probes["clear-tool-uses.keep-below-live-task"], [shipped_copy])
    assert "no recording of this probe" in explain_probe(probes["compact.mid-task"], [shipped_copy.parent / "none"])


def _edit_first_answer(data: dict) -> None:
    body = data["interactions"][0]["response"]["body"]["string"]
    data["interactions"][0]["response"]["body"]["string"] = body.replace('"name":"search"', '"name":"read_file"')
    assert data["interactions"][0]["response"]["body"]["string"] != body


@pytest.mark.parametrize(("edit", "needle"), [
    (lambda d: d["metadata"].pop("thinking_tokens"), "no recorded size for thinking"),
    (lambda d: d["metadata"].__setitem__("thinking_tokens", ["x"]), "metadata.thinking_tokens is not a mapping"),
    (_edit_first_answer, "does not have the probe's shape: message 1: the server answered [tool_use read_file]"),
])
def test_a_built_history_that_cannot_be_rebuilt_is_bad_input(edit, needle: str, shipped_copy: Path,
                                                             probes: dict[str, Probe]) -> None:
    from conformance.provider.verify import is_input_error

    path = shipped_copy / "clear-thinking.keep-one-turn.yaml"
    data = load_yaml(path.read_text())
    edit(data)
    path.write_text(cassettes.dump(data))
    [result] = verify([path], probes)
    assert result.outcome == "error" and needle in result.message and is_input_error(result), result.message


def test_a_built_history_whose_live_span_moved_is_not_judged(probes: dict[str, Probe]) -> None:
    import dataclasses

    from conformance.provider.anthropic import live

    probe = probes["clear-thinking.keep-one-turn"]
    built = live.Built([dict(m) for m in probe.messages()], {})
    moved = dataclasses.replace(probe, live=dataclasses.replace(probe.live, tool_use_ids=("toolu_b2",)))
    with pytest.raises(live.ScriptError, match="the built history's task in flight has tool uses"):
        live.analysis_probe(moved, built, {})
    assert live.analysis_probe(probe, built, {}).history == probe.messages()
