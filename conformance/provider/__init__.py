"""The provider side: recorded interactions decide whether server-side clearing reaches into a task in flight.

``verify_results`` replays cassettes offline and returns one ``CheckResult`` per cassette; the
``conformance`` command calls it from ``run`` and exposes ``verify``, ``record``, ``audit`` and
``lint-config`` through ``provider.cli.register``.
"""

from __future__ import annotations

from pathlib import Path

from .._paths import shipped
from ..results import CheckResult

__all__ = ["default_cassettes", "default_specs", "side_results", "verify_results"]


def default_specs() -> Path:
    """Returns the shipped probe specs (``specs/provider``)."""
    return shipped("specs") / "provider"


def default_cassettes() -> Path:
    """Returns the shipped cassettes folder."""
    return shipped("cassettes")


def verify_results(paths: list[Path] | None = None, *, specs: list[Path] | None = None,
                   checked: dict[int, CheckResult] | None = None) -> list[CheckResult]:
    """Returns one result per cassette under ``paths`` (None: the shipped ones); never raises for a bad cassette.

    ``checked`` holds the results ``side_results`` found in another process, by cassette position."""
    from .probes import load_probes
    from .verify import verify

    probes, errors = load_probes(specs or [default_specs()])
    try:
        return verify(paths or [default_cassettes()], probes, errors, checked)
    except Exception as exc:  # noqa: BLE001 - a broken run must still come back as a result
        return [CheckResult(target="provider", scenario="verify", family="unknown",
                            invariant="provider.cassette-valid", level="MUST", outcome="error",
                            message=f"verify stopped: {type(exc).__name__}: {exc}", kind="probe")]


def side_results(paths: list[Path] | None, provider: str, *, specs: list[Path] | None = None) -> dict[int, CheckResult]:
    """Returns the results of the cassettes under ``paths`` (None: the shipped ones) that
    ``provider``'s SDK replays, by cassette position (for ``verify_results(checked=...)``); only
    that SDK is imported. Never raises for a bad cassette (a broken run is an empty answer, and the
    cassettes are then replayed again by ``verify_results``)."""
    from .probes import load_probes
    from .verify import check_files

    probes, _ = load_probes(specs or [default_specs()], provider)
    try:
        return check_files(paths or [default_cassettes()], probes, provider)
    except Exception:  # noqa: BLE001 - verify_results replays them itself and reports the problem
        return {}
