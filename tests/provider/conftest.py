"""Fixtures for the provider side: the shipped probes, and recording against a local emulator."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the SDK the recorder imports loads when a test records, not at collection
    from conformance.provider.anthropic.probes import Probe
    from conformance.provider.anthropic.record import Recorded

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs" / "provider"
CASSETTES = ROOT / "cassettes"
# The metadata line naming the SDK that recorded a cassette: ``  sdk: openai 3.57.0``.
SDK_VERSION = re.compile(rb"^(  sdk: [A-Za-z0-9_.-]+) [0-9][^\s]*$", re.MULTILINE)


def differing(fresh: dict[Path, bytes], committed: dict[Path, bytes]) -> list[str]:
    """Returns the names (present in both) whose fresh recording differs from the committed one in
    anything but the version on its ``sdk:`` line: the SDK installed here may be any release of
    the tested range (``pyproject.toml``), and the line still names the same SDK."""
    return [str(name) for name in fresh if name in committed
            and SDK_VERSION.sub(rb"\1", fresh[name]) != SDK_VERSION.sub(rb"\1", committed[name])]


@pytest.fixture(scope="session")
def probes() -> dict[str, Probe]:
    """Returns the shipped probes by id (the shipped specs must load without errors)."""
    from conformance.provider.probes import load_probes

    found, errors = load_probes([SPECS], provider="anthropic")
    assert not errors, [str(e) for e in errors]
    return found


Recorder = Callable[..., "tuple[Path, list[Recorded]]"]


@pytest.fixture()
def record_with(tmp_path: Path, probes: dict[str, Probe]) -> Recorder:
    """Returns a function that records probes against an emulator (with faults) into a fresh folder."""

    def run(probe_ids: Iterable[str], faults: Iterable[str] = ()) -> tuple[Path, list[Recorded]]:
        from conformance.provider.anthropic.emulator import Emulator
        from conformance.provider.anthropic.record import record

        out = tmp_path / "recorded"
        with Emulator(0, faults) as emulator:
            outcomes = record([probes[i] for i in probe_ids], "dummy", emulator.url, out,
                              sleep=lambda seconds: None)  # no real waits between retries in tests
        return out, outcomes

    return run


@pytest.fixture()
def shipped_copy(tmp_path: Path) -> Path:
    """Returns a writable copy of the shipped emulator cassettes."""
    target = tmp_path / "cassettes" / "emulator"
    shutil.copytree(CASSETTES / "emulator", target)
    return target

