"""Fixtures for the OpenAI provider: its shipped probes and recording them against a local emulator."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance.provider.openai.emulator import Emulator
from conformance.provider.openai.probes import OpenAIProbe
from conformance.provider.probes import load_probes

if TYPE_CHECKING:  # the OpenAI SDK is imported by the tests that record, not at collection
    from conformance.provider.openai.record import Recorded

ROOT = Path(__file__).resolve().parents[3]
SPECS = ROOT / "specs" / "provider"
CASSETTES = ROOT / "cassettes"
SHIPPED = CASSETTES / "emulator-openai"


@pytest.fixture(scope="session")
def openai_probes() -> dict[str, OpenAIProbe]:
    """Returns the shipped OpenAI probes by id (the shipped specs must load without errors)."""
    found, errors = load_probes([SPECS], provider="openai")
    assert not errors, [str(e) for e in errors]
    return found  # type: ignore[return-value]  # provider="openai" loads only OpenAI probes


Recorder = Callable[..., tuple[Path, list["Recorded"]]]


@pytest.fixture(scope="session")
def faulty_recordings(tmp_path_factory: pytest.TempPathFactory,
                      openai_probes: dict[str, OpenAIProbe]) -> Callable[[str], Path]:
    """Returns a function giving the folder of every OpenAI probe recorded from the emulator with one
    fault (recorded once per session)."""
    made: dict[str, Path] = {}

    def folder(fault: str) -> Path:
        if fault not in made:
            from conformance.provider.openai.record import record

            out = tmp_path_factory.mktemp(f"openai-{fault}")
            with Emulator(0, [fault] if fault else []) as emulator:
                outcomes = record(list(openai_probes.values()), "dummy", emulator.url, out,
                                  sleep=lambda seconds: None)
            assert all(o.ok for o in outcomes), [o.note for o in outcomes if not o.ok]
            [made[fault]] = [p for p in out.iterdir() if p.is_dir()]
        return made[fault]

    return folder


def record_into(out: Path, probes: Iterable[OpenAIProbe], faults: Iterable[str] = ()) -> list[Recorded]:
    """Records ``probes`` against a fresh emulator (with ``faults``) into ``out``."""
    from conformance.provider.openai.record import record

    with Emulator(0, faults) as emulator:
        return record(list(probes), "dummy", emulator.url, out, sleep=lambda seconds: None)
