"""`python -m conformance.provider.anthropic.regenerate` reproduces the committed cassettes byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.provider.anthropic.regenerate import main

from .conftest import CASSETTES, differing


@pytest.mark.slow  # records all 39 probes against a fresh emulator: about five seconds
def test_regenerate_reproduces_the_committed_cassettes(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path), "--quiet"]) == 0
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in sorted(tmp_path.rglob("*.yaml"))}
    committed = {p.relative_to(CASSETTES): p.read_bytes() for p in sorted((CASSETTES / "emulator").rglob("*.yaml"))}
    assert sorted(fresh) == sorted(committed)
    changed = differing(fresh, committed)
    assert changed == [], f"regenerate differs from the committed cassettes: {changed}"
