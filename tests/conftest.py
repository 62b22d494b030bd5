"""Shared fixtures: the shipped scenarios, loaded once."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import LoadResult, load

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


@pytest.fixture(scope="session")
def shipped() -> LoadResult:
    """Returns the shipped scenarios (probe files are skipped by the loader)."""
    return load([SPECS])
