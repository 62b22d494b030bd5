"""What ``conformance fuzz`` leaves on disk: a counterexample whose ``$schema`` resolves (or none),
and Hypothesis' files under ``.conformance_cache/``, never a ``.hypothesis/`` folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import configuration

from conformance import load
from conformance.cli import main
from conformance.fuzz.storage import hypothesis_storage
from conformance.engine.spec_writer import header_for

ROOT = Path(__file__).resolve().parents[2]
BROKEN = "tests.zoo.broken:boundary_off_by_one"


def _schema_reference(text: str) -> str | None:
    found = re.search(r"\$schema=(\S+)", text)
    return found.group(1) if found else None


@pytest.mark.slow
def test_a_fuzz_run_in_a_fresh_folder_leaves_no_hypothesis_folder_and_no_dead_schema_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-m", "conformance", "fuzz", "--target", BROKEN, "--examples", "50"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert not (tmp_path / ".hypothesis").exists()
    assert (tmp_path / ".conformance_cache").is_dir()
    (written,) = (tmp_path / "fuzz-failures").glob("*.yaml")
    text = written.read_text(encoding="utf-8")
    assert "://" not in text.split("format_version")[0]  # no URL in the header at all
    assert _schema_reference(text) is None and "scenarios.schema.json" in text
    assert not load([written]).errors


@pytest.mark.slow
def test_inside_a_checkout_the_schema_reference_is_a_relative_path_that_resolves(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "conformance" / "schema" / "scenarios.schema.json"
    schema.parent.mkdir(parents=True)
    schema.write_text("{}", encoding="utf-8")
    out = tmp_path / "specs" / "found"
    assert main(["fuzz", "--target", BROKEN, "--examples", "50", "--no-cache", "--out", str(out)]) == 1
    capsys.readouterr()
    (written,) = out.glob("*.yaml")
    reference = _schema_reference(written.read_text(encoding="utf-8"))
    assert reference == "../../conformance/schema/scenarios.schema.json"
    assert (written.parent / reference).resolve() == schema.resolve()


def test_the_project_checkout_itself_gets_the_shipped_schema() -> None:
    reference = _schema_reference(header_for(ROOT / "fuzz-failures" / "x.yaml"))
    assert reference is not None and (ROOT / "fuzz-failures" / reference).resolve().is_file()


def test_hypothesis_storage_is_moved_for_the_run_and_restored_after(tmp_path: Path) -> None:
    before = getattr(configuration, "__hypothesis_home_directory")
    with hypothesis_storage(tmp_path / "store"):
        assert configuration.storage_directory("x").path == (tmp_path / "store" / "x").resolve()
    assert getattr(configuration, "__hypothesis_home_directory") == before
