"""Drift end to end, offline: the local emulator in its normal mode (its shipped recordings) stands
for the provider before a change, a faulty mode for the provider after it. Every probe is recorded
through the SDK into cassettes after the change, and the drift between the two is classified."""

from __future__ import annotations

import shutil
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

# the project's own modules: a broken import fails these tests, never skips them
from conformance.provider import probes as probes_module
from conformance.provider.anthropic import emulator, record
from conformance.cli import main
from conformance.drift.compare import compare_dirs
from conformance.provider.verify import verify

SPECS = Path(__file__).resolve().parents[2] / "specs" / "provider"
SHIPPED = Path(__file__).resolve().parents[2] / "cassettes" / "emulator"
pytestmark = pytest.mark.xdist_group("emulator-drift")  # one worker records each provider once


@cache
def _probes() -> dict[str, Any]:
    """Returns the shipped Anthropic probes by id, loaded once per process (the tests only read them)."""
    probes, errors = probes_module.load_probes([SPECS], provider="anthropic")
    assert probes and not errors
    return probes


def _record(out: Path, faults: list[str]) -> Path:
    with emulator.Emulator(faults=faults) as server:
        done = record.record(list(_probes().values()), "test-key-not-secret", server.url, out)
    assert all(r.ok for r in done), [r.note for r in done if not r.ok]
    return out


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns the recordings of the provider before the change: the shipped emulator cassettes,
    which are the emulator's normal mode recorded (``test_regenerate`` reproduces them byte for
    byte, and a fresh recording shows no drift from them below)."""
    folder = tmp_path_factory.mktemp("before")
    shutil.copytree(SHIPPED, folder / "emulator")
    return folder


_AFTER: dict[tuple[str, ...], Path] = {}


def _after(tmp_path: Path, *faults: str) -> Path:
    """Returns the recordings of the provider after the change (a second recording, apart from
    ``before``), made once per set of faults in this process: the tests only read them."""
    if faults not in _AFTER:
        _AFTER[faults] = _record(tmp_path / "-".join(("after", *faults)), list(faults))
    return _AFTER[faults]


_DRIFT: dict[tuple[str, ...], dict[str, Any]] = {}


def _drift(before: Path, tmp_path: Path, *faults: str) -> dict[str, Any]:
    """Returns the drift from ``before`` to the recordings under ``faults``, computed once per set
    of faults in this process: the tests only read it."""
    if faults not in _DRIFT:
        _DRIFT[faults] = compare_dirs(before, _after(tmp_path, *faults))
    return _DRIFT[faults]


def _rules(drift: dict[str, Any], category: str) -> Counter[str]:
    return Counter(c["rule"].split(":")[0] for c in drift["changes"] if c["category"] == category)


@pytest.mark.slow
def test_the_same_provider_twice_shows_no_drift(before: Path, tmp_path: Path) -> None:
    drift = _drift(before, tmp_path)
    assert drift["counts"] == {"breaking": 0, "additive": 0, "noise": 0}
    assert len(drift["probes"]) >= 10


@pytest.mark.slow
def test_clearing_the_live_task_is_breaking_and_the_counts_are_noise(before: Path, tmp_path: Path) -> None:
    drift = _drift(before, tmp_path, "clear-live-despite-keep")
    verdicts = {(c["before"], c["after"]) for c in drift["changes"] if c["change"] == "verdict_changed"}
    assert verdicts == {("settled-only", "reached-live-task")}
    assert set(_rules(drift, "breaking")) == {
        "the analyzer's verdict changed", "it passed its prediction and now contradicts it",
        "what is cleared of the task in flight changed", "the smallest task in flight this strategy reaches shrank"}
    assert set(_rules(drift, "noise")) == {"value of 'cleared_tool_uses' changed"}
    # where the edit did not apply before, its entry in applied_edits is new: additive, never breaking
    assert set(_rules(drift, "additive")) <= {"new block or edit type 'clear_tool_uses_20250919'"}
    assert drift["exit_code"] == 1


@pytest.mark.slow
def test_a_new_block_type_is_additive_and_unreadable_recordings_are_breaking(before: Path, tmp_path: Path) -> None:
    drift = _drift(before, tmp_path, "unknown-block-type")
    additive = [c for c in drift["changes"] if c["category"] == "additive"]
    assert additive and {c["rule"] for c in additive} == {"new block or edit type 'context_note'"}
    assert set(_rules(drift, "breaking")) == {"the recording can no longer be judged"}
    assert drift["counts"]["noise"] == 0


@pytest.mark.slow
def test_accepting_what_was_rejected_is_breaking(before: Path, tmp_path: Path) -> None:
    drift = _drift(before, tmp_path, "compact-open-tool-call")
    breaking = _rules(drift, "breaking")
    assert breaking["an error went away"] == 1
    assert breaking["the analyzer's verdict changed"] == 1
    assert breaking["key 'error' disappeared"] == 1
    assert {c["probe"] for c in drift["changes"] if c["path"] != "strategy"} == {"compaction.open-tool-call"}
    # the on-demand strategy was seen reaching a 1-step task already: a rejection turning into a
    # summary of another 1-step task does not shrink that
    assert "the smallest task in flight this strategy reaches shrank" not in _rules(drift, "breaking")


@pytest.mark.slow
def test_the_command_fails_the_job_only_on_breaking_drift(before: Path, tmp_path: Path) -> None:
    same = _after(tmp_path)
    assert main(["drift", "--baseline", str(before), "--current", str(same)]) == 0
    changed = _after(tmp_path, "miscount")
    report = tmp_path / "report"
    assert main(["drift", "--baseline", str(before), "--current", str(changed), "--report", str(report)]) == 1
    assert "Drift: BREAKING DRIFT" in (report / "summary.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(set(emulator.edits.FAULTS) - {"overloaded"}))
def test_every_probe_verify_marks_red_under_a_fault_is_breaking(before: Path, tmp_path: Path, fault: str) -> None:
    after = _after(tmp_path, fault)
    red = {r.scenario for r in verify([after], _probes()) if r.outcome in ("fail", "error")}
    assert red, f"{fault}: verify finds nothing to catch"
    drift = _drift(before, tmp_path, fault)
    breaking = {c["probe"] for c in drift["changes"] if c["category"] == "breaking"}
    assert red <= breaking, f"{fault}: red in verify but not breaking in drift: {sorted(red - breaking)}"
    assert drift["exit_code"] == 1
