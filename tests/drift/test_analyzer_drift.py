"""Drift judged by the analyzer on both sides: hand-built regressions of the shipped recordings.

Each test copies the shipped emulator recordings, changes one answer the way a provider regression
would, and checks that drift calls it breaking by the rule that names it, while token counts and
ids stay noise.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.drift import verdicts
from conformance.drift.compare import compare_dirs
from conformance.errors import SpecError
from conformance.provider import cassettes
from conformance.provider.anthropic import semantics as sem
from conformance.provider.probes import load_probes
from .._yaml import load_yaml
from .builders import edit_answer

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "cassettes" / "emulator"
SPECS = ROOT / "specs" / "provider"


@pytest.fixture(scope="module")
def probes() -> dict[str, Any]:
    found, errors = load_probes([SPECS], provider="anthropic")
    assert not errors
    return found


def _edited(tmp_path: Path, probe: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """Returns a copy of the shipped recordings whose ``probe`` create answer went through ``edit``."""
    current = tmp_path / "current" / "emulator"
    shutil.copytree(SHIPPED, current)
    edit_answer(current / f"{probe}.yaml", edit)
    return current


def _breaking(drift: dict[str, Any]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for c in drift["changes"]:
        if c["category"] == "breaking":
            found.setdefault(c["change"], set()).add(c["probe"])
    return found


def _result_tokens(probe: Any, ids: list[str]) -> int:
    steps = {s.tool_use_id: s for s in sem.tool_steps(probe.semantic_request()["messages"])}
    return sum(steps[i].result_tokens for i in ids)


@pytest.mark.slow
def test_the_shipped_recordings_against_themselves_show_no_drift(tmp_path: Path) -> None:
    current = tmp_path / "same"
    shutil.copytree(SHIPPED, current)
    drift = compare_dirs(SHIPPED, current)
    assert drift["counts"] == {"breaking": 0, "additive": 0, "noise": 0}
    assert all(p["verdict_before"] for p in drift["probes"])  # every recording was judged


@pytest.mark.slow
def test_clearing_more_of_the_task_in_flight_is_breaking(tmp_path: Path, probes: dict[str, Any]) -> None:
    probe = "clear-tool-uses.keep-below-live-task"
    cleared = ["toolu_a1", "toolu_a2", "toolu_b1", "toolu_b2", "toolu_b3"]
    tokens = _result_tokens(probes[probe], cleared)

    def clear_five(body: dict[str, Any]) -> None:
        [edit] = body["context_management"]["applied_edits"]
        assert edit["cleared_tool_uses"] == 3
        edit.update(cleared_tool_uses=5, cleared_input_tokens=tokens)

    current = _edited(tmp_path, probe, clear_five)
    drift = compare_dirs(SHIPPED, current)
    breaking = _breaking(drift)
    # the verdict stays reached-live-task: the old diff-only drift called this noise
    assert "verdict_changed" not in breaking
    assert breaking["live_items_changed"] == {probe}
    assert breaking["prediction_contradicted"] == {probe}
    live = next(c for c in drift["changes"] if c["change"] == "live_items_changed")
    assert live["before"]["tool_results"] == ["toolu_b1"]
    assert live["after"]["tool_results"] == ["toolu_b1", "toolu_b2", "toolu_b3"]
    assert main(["drift", "--baseline", str(SHIPPED), "--current", str(current)]) == 1


@pytest.mark.slow
def test_a_strategy_reaching_a_smaller_task_is_breaking(tmp_path: Path, probes: dict[str, Any]) -> None:
    probe = "clear-tool-uses.keep-equals-live-task"  # keep 3 over a 3-step task: settled only
    cleared = ["toolu_a1", "toolu_a2", "toolu_b1"]
    tokens = _result_tokens(probes[probe], cleared)

    def clear_one_live(body: dict[str, Any]) -> None:
        [edit] = body["context_management"]["applied_edits"]
        edit.update(cleared_tool_uses=3, cleared_input_tokens=tokens)

    drift = compare_dirs(SHIPPED, _edited(tmp_path, probe, clear_one_live))
    breaking = _breaking(drift)
    assert breaking["verdict_changed"] == {probe}
    [strategy] = breaking["strategy_reaches_smaller_task"]
    assert probes[probe].config_label() in strategy
    change = next(c for c in drift["changes"] if c["change"] == "strategy_reaches_smaller_task")
    assert change["before"] == "none" and change["after"].startswith("3 tool steps")


@pytest.mark.slow
def test_a_rejection_for_another_reason_is_breaking(tmp_path: Path) -> None:
    probe = "compaction.open-tool-call"

    def other_reason(body: dict[str, Any]) -> None:
        body["error"]["details"]["error_code"] = "context_window_exceeded"

    drift = compare_dirs(SHIPPED, _edited(tmp_path, probe, other_reason))
    breaking = _breaking(drift)
    assert breaking["rejection_reason_changed"] == {probe}
    assert "verdict_changed" not in breaking  # still rejected
    change = next(c for c in drift["changes"] if c["change"] == "rejection_reason_changed")
    assert change["before"].endswith("compaction_incomplete_turn") and change["after"].endswith("context_window_exceeded")


@pytest.mark.slow
def test_token_counts_and_ids_stay_noise(tmp_path: Path) -> None:
    probe = "clear-tool-uses.keep-below-live-task"

    def recount(body: dict[str, Any]) -> None:
        body["id"] = "msg_another_id"
        body["usage"]["input_tokens"] += 17
        [edit] = body["context_management"]["applied_edits"]
        edit["cleared_input_tokens"] += 5  # within the analyzer's tolerance: the same results went

    drift = compare_dirs(SHIPPED, _edited(tmp_path, probe, recount))
    assert drift["counts"] == {"breaking": 0, "additive": 0, "noise": 0}  # masked before the diff
    assert drift["exit_code"] == 0


def _judgement(verdict: str, steps: int, outcome: str = "pass") -> dict[str, Any]:
    return {"outcome": outcome, "verdict": verdict, "message": "", "family": "clear_tool_uses", "config": "keep 3",
            "live_task": {"tool_steps": steps, "thinking_turns": 0, "input_tokens": 100 * steps},
            "live": {"tool_results": [], "tool_inputs": [], "thinking_turns": []}, "reason": None}


def test_strategy_sizes_compare_only_strategies_judged_on_both_sides() -> None:
    before = [("a", _judgement("reached-live-task", 5)), ("b", _judgement("settled-only", 3))]
    grown = [("a", _judgement("reached-live-task", 5)), ("b", _judgement("settled-only", 3))]
    assert verdicts.strategy_changes(before, grown) == []
    shrunk = [("a", _judgement("reached-live-task", 5)), ("b", _judgement("reached-live-task", 3, "fail"))]
    [(strategy, kind, _, was, now)] = verdicts.strategy_changes(before, shrunk)
    assert kind == "strategy_reaches_smaller_task" and was.startswith("5 tool steps") and now.startswith("3 tool steps")
    larger = [("a", _judgement("settled-only", 5)), ("b", _judgement("settled-only", 3))]
    assert verdicts.strategy_changes(before, larger) == []  # reaching less is not a regression


def test_a_baseline_that_already_failed_is_not_reported_as_newly_contradicted() -> None:
    failed = _judgement("reached-live-task", 3, "fail")
    assert verdicts.changes(failed, dict(failed)) == []
    passed = _judgement("reached-live-task", 3)
    [(kind, *_)] = verdicts.changes(passed, failed)
    assert kind == "prediction_contradicted"


@pytest.mark.slow
def test_a_baseline_recording_the_analyzer_cannot_judge_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline = tmp_path / "baseline" / "emulator"
    shutil.copytree(SHIPPED, baseline)
    stale = baseline / "compact.mid-task.yaml"
    data = load_yaml(stale.read_text(encoding="utf-8"))
    data["interactions"] = data["interactions"][-1:] + data["interactions"]  # one interaction too many
    stale.write_text(cassettes.dump(data), encoding="utf-8")
    drift = compare_dirs(baseline, SHIPPED)
    [note] = drift["unjudged_baseline"]
    assert note.startswith("compact.mid-task: ")
    assert main(["drift", "--baseline", str(baseline), "--current", str(SHIPPED)]) == 1  # one interaction went
    assert "1 baseline recording cannot be judged" in capsys.readouterr().out


def test_a_probe_spec_that_fails_to_load_stops_drift_instead_of_judging_nothing(tmp_path: Path) -> None:
    spec = tmp_path / "broken.yaml"
    spec.write_text("format_version: 1\nprobes:\n  - id: x\n    request: {}\n", encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        compare_dirs(SHIPPED, SHIPPED, probe_specs=[spec])
    assert "broken.yaml" in str(caught.value)


@pytest.mark.slow
def test_a_rejection_with_another_message_and_no_code_is_breaking(tmp_path: Path) -> None:
    probe = "combined.tools-before-thinking"  # invalid_request_error with no error_code: the message is the reason

    def other_reason(body: dict[str, Any]) -> None:
        assert "details" not in body["error"] and "listed first" in body["error"]["message"]
        body["error"]["message"] = "`clear_thinking_20251015` strategy requires `thinking` to be enabled or adaptive"

    drift = compare_dirs(SHIPPED, _edited(tmp_path, probe, other_reason))
    # the probe names the error it expects, so verify contradicts it too
    assert _breaking(drift) == {"rejection_reason_changed": {probe}, "prediction_contradicted": {probe}}
    assert drift["exit_code"] == 1


@pytest.mark.slow
def test_a_rejection_message_differing_only_in_numbers_is_noise(tmp_path: Path) -> None:
    probe = "compact.trigger-below-minimum"

    def renumber(body: dict[str, Any]) -> None:
        # another edit index; the minimum stays, as the probe's expected-error pattern names it
        body["error"]["message"] = body["error"]["message"].replace("edits.0", "edits.1")
        assert body["error"]["message"].endswith("50000")

    drift = compare_dirs(SHIPPED, _edited(tmp_path, probe, renumber))
    assert drift["counts"]["breaking"] == 0 and drift["counts"]["noise"] == 1


@pytest.mark.slow
def test_a_recording_changed_in_place_is_judged_again(tmp_path: Path, probes: dict[str, Any]) -> None:
    """drift remembers a judgement by file, bytes and probe specs: the same file with other bytes
    is judged anew, so an edit made after an earlier comparison still shows as breaking."""
    current = tmp_path / "current"
    shutil.copytree(SHIPPED, current)
    assert compare_dirs(SHIPPED, current)["counts"]["breaking"] == 0
    probe = "clear-tool-uses.keep-below-live-task"
    cleared = ["toolu_a1", "toolu_a2", "toolu_b1", "toolu_b2", "toolu_b3"]
    tokens = _result_tokens(probes[probe], cleared)

    def clear_five(body: dict[str, Any]) -> None:
        [edit] = body["context_management"]["applied_edits"]
        edit.update(cleared_tool_uses=5, cleared_input_tokens=tokens)

    edit_answer(current / f"{probe}.yaml", clear_five)
    assert _breaking(compare_dirs(SHIPPED, current))["prediction_contradicted"] == {probe}


def _own_probe_spec(tmp_path: Path, shipped_id: str, own_id: str) -> Path:
    """Returns a spec file holding one shipped probe under another id, as a user's own probe."""
    spec = load_yaml((SPECS / f"{shipped_id.split('.')[0]}.yaml").read_text(encoding="utf-8"))
    [probe] = [p for p in spec["probes"] if p["id"] == shipped_id]
    spec["probes"] = [{**probe, "id": own_id}]
    path = tmp_path / "specs" / "own.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_drift_judges_a_users_own_probes_under_the_specs_given(tmp_path: Path, probes: dict[str, Any],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    shipped, own = "clear-tool-uses.keep-below-live-task", "acme.keep-below-live-task"
    spec = _own_probe_spec(tmp_path, shipped, own)
    baseline, current = tmp_path / "baseline" / "emulator", tmp_path / "current" / "emulator"
    recording = load_yaml((SHIPPED / f"{shipped}.yaml").read_text(encoding="utf-8"))
    assert recording["metadata"]["probe"] == shipped
    recording["metadata"]["probe"] = own
    for folder in (baseline, current):
        folder.mkdir(parents=True)
        (folder / f"{own}.yaml").write_text(cassettes.dump(recording), encoding="utf-8")
    tokens = _result_tokens(probes[shipped], ["toolu_a1", "toolu_a2", "toolu_b1", "toolu_b2", "toolu_b3"])

    def clear_five(body: dict[str, Any]) -> None:  # two more results of the task in flight
        [edit] = body["context_management"]["applied_edits"]
        edit.update(cleared_tool_uses=5, cleared_input_tokens=tokens)

    edit_answer(current / f"{own}.yaml", clear_five)
    assert main(["verify", str(current), "--specs", str(spec)]) == 1  # the recording contradicts its prediction
    capsys.readouterr()
    assert main(["drift", "--baseline", str(baseline), "--current", str(current), "--specs", str(spec)]) == 1
    drift = compare_dirs(baseline, current, probe_specs=[spec])
    assert _breaking(drift) == {"prediction_contradicted": {own}, "live_items_changed": {own}}
    assert drift["unjudged_baseline"] == []


def test_a_current_recording_that_contradicts_its_prediction_is_breaking_when_the_baseline_was_not_judged() -> None:
    unjudged = {"outcome": "error", "verdict": None, "message": "no probe spec has id 'x'"}
    failed = _judgement("reached-live-task", 3, "fail")
    [(kind, _, was, now)] = verdicts.changes(unjudged, failed)
    assert kind == "prediction_contradicted" and was.startswith("error") and now.startswith("fail")
    assert verdicts.changes(unjudged, _judgement("reached-live-task", 3)) == []  # it keeps its prediction
    assert verdicts.changes(unjudged, dict(unjudged)) == []  # neither side judged: the bodies alone speak


def test_specs_that_hold_no_probe_stop_drift_instead_of_judging_nothing(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "specs"
    empty.mkdir()
    with pytest.raises(SpecError) as caught:
        compare_dirs(SHIPPED, SHIPPED, probe_specs=[empty])
    assert "holds no probe spec" in str(caught.value)
    assert main(["drift", "--baseline", str(SHIPPED), "--current", str(SHIPPED), "--specs", str(empty)]) == 2
    assert "holds no probe spec" in capsys.readouterr().err
