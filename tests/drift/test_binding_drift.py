"""Drift of the prefix check of preserved thinking, from pairs of recordings of one probe: a 400 that
became a drop, and blocks that were dropped and now pass, are breaking by a rule that names them."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.drift.compare import compare_dirs
from conformance.provider import cassettes
from conformance.provider.anthropic import emulator, record
from conformance.provider.probes import load_probes
from .._yaml import load_yaml

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "cassettes" / "emulator"
SPECS = ROOT / "specs" / "provider"
ERROR = "thinking-binding.edit-settled-mid-task-error"
DROP = "thinking-binding.edit-settled-mid-task-drop-block"
CLEARING = "clear-tool-uses.preserved-thinking-never-invalidates"


def _folder(tmp_path: Path, name: str, *probes: str) -> Path:
    """Returns a folder holding the shipped recordings of ``probes`` alone."""
    folder = tmp_path / name / "emulator"
    folder.mkdir(parents=True)
    for probe in probes:
        shutil.copy(SHIPPED / f"{probe}.yaml", folder / f"{probe}.yaml")
    return folder


def _binding_changes(drift: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in drift["changes"] if c["change"] == "thinking_binding_changed"]


@pytest.mark.slow
def test_a_400_that_became_a_drop_is_breaking(tmp_path: Path) -> None:
    before = _folder(tmp_path, "before", ERROR)
    after = _folder(tmp_path, "after", ERROR)
    # the same request, answered as drop_block answers it: the service stopped enforcing `error`
    dropped = load_yaml((SHIPPED / f"{DROP}.yaml").read_text(encoding="utf-8"))["interactions"][-1]["response"]
    data = load_yaml((after / f"{ERROR}.yaml").read_text(encoding="utf-8"))
    data["interactions"][-1]["response"] = dropped
    (after / f"{ERROR}.yaml").write_text(cassettes.dump(data), encoding="utf-8")
    drift = compare_dirs(before, after)
    [change] = _binding_changes(drift)
    assert change["category"] == "breaking" and change["probe"] == ERROR
    assert change["before"] == "rejected (a thinking block is bound to a different conversation)"
    assert change["after"] == "dropped messages.5.content.0, messages.7.content.0"
    assert change["rule"] == "what the prefix check did to the thinking sent back changed"
    assert main(["drift", "--baseline", str(before), "--current", str(after)]) == 1


def test_blocks_dropped_that_now_pass_are_breaking(tmp_path: Path) -> None:
    probes, errors = load_probes([SPECS], provider="anthropic")
    assert not errors
    with emulator.Emulator(faults=["edits-invalidate-thinking"]) as server:
        [done] = record.record([probes[CLEARING]], "test-key-not-secret", server.url, tmp_path / "before")
    assert done.ok, done.note
    before = tmp_path / "before" / "emulator+edits-invalidate-thinking"
    after = _folder(tmp_path, "after", CLEARING)
    drift = compare_dirs(before, after)
    [change] = _binding_changes(drift)
    assert change["before"] == "dropped messages.1.content.0, messages.5.content.0, messages.7.content.0"
    assert change["after"] == "passed" and change["category"] == "breaking"


def test_the_same_outcomes_twice_show_no_binding_change(tmp_path: Path) -> None:
    ids = [ERROR, DROP, CLEARING, "thinking-binding.model-without-the-check"]
    drift = compare_dirs(_folder(tmp_path, "before", *ids), _folder(tmp_path, "after", *ids))
    assert not _binding_changes(drift) and drift["counts"]["breaking"] == 0
    assert {p["verdict_before"] for p in drift["probes"]} == {"rejected", "live-reasoning-lost", "settled-only",
                                                              "no-edit"}
