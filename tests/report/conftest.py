"""A small run of the report fixtures: three targets over two scenarios, some failing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance import from_callable, load, run
from conformance.engine.runner import RunReport

from . import targets

FIXTURES = Path(__file__).parent / "fixtures"
SECRETS = ("SETTLED-REASONING-7f3a", "LIVE-REASONING-91bc", "LIVE-REASONING-22de", "SETTLED-REASONING-0c11")


def run_fixtures(*funcs: Callable[..., Any]) -> RunReport:
    """Returns the report of ``funcs`` (as targets) over the fixture scenarios."""
    loaded = load([FIXTURES / "mini.yaml"])
    assert not loaded.errors, loaded.errors
    chosen = [from_callable(f, f"targets:{f.__name__}") for f in funcs]
    return run(chosen, loaded.scenarios)


@pytest.fixture(scope="session")
def mixed_report() -> RunReport:
    """Returns a run where one target conforms, one rewrites the task in flight and one raises."""
    return run_fixtures(targets.keep_all, targets.whitelist, targets.leak_thinking, targets.raises)


@pytest.fixture(scope="session")
def mixed_dir(mixed_report: RunReport, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a folder holding the three report files of ``mixed_report``."""
    from conformance.report import write_all
    out = tmp_path_factory.mktemp("report") / "nested"
    write_all(out, mixed_report)
    return out
