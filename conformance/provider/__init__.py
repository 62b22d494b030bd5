"""The provider side: recorded interactions decide whether server-side clearing reaches into a task in flight.

``verify_results`` replays cassettes offline and returns one ``CheckResult`` per cassette (``replay_all``
the same, each provider's SDK in a process of its own); the ``conformance`` command calls it from
``run`` and exposes ``verify``, ``record``, ``audit`` and
``lint-config`` through ``provider.cli.register``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._paths import shipped
from ..engine.results import CheckResult

if TYPE_CHECKING:
    from ..errors import SpecError
    from .probes import AnyProbe

__all__ = ["default_cassettes", "default_specs", "replay_all", "side_results", "verify_results"]


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
        return [_stopped(exc)]


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


def replay_all(paths: list[Path] | None = None, *, specs: list[Path] | None = None) -> list[CheckResult]:
    """Returns what ``verify_results(paths, specs=specs)`` returns, each registered provider's
    cassettes but the first's replayed in a process of its own (``worker.beside``).

    What every provider's replay needs is done first, once: the probes loaded, the cassette
    machinery imported. A process forked after that (on Linux) starts with both and imports only
    its own SDK, while this one replays the first provider's cassettes; so the replay takes about
    as long as its slowest provider's SDK import and cassettes. A side that breaks is replayed here.
    """
    from . import cassettes  # noqa: F401 - vcrpy, shared by every side: imported before they fork
    from .base import names
    from .probes import load_probes
    from ..engine.worker import beside, ended

    probes, errors = load_probes(specs or [default_specs()])
    files = paths or [default_cassettes()]
    first, *others = names()
    sides = [beside(_checked, files, probes, name, unless_imported=name) for name in others]
    checked = _checked(files, probes, first)
    for side in sides:
        try:
            checked.update(side.result())
        except Exception:  # noqa: BLE001 - a side that broke is replayed by ``verify``, which reports a problem
            pass
        ended(side)  # its process is gone before this one answers
    return _verified(files, probes, errors, checked)


def _checked(files: list[Path], probes: dict[str, AnyProbe], provider: str) -> dict[int, CheckResult]:
    """Returns the results of the cassettes under ``files`` that ``provider``'s SDK replays, by
    cassette position; an empty answer when the replay broke (``verify`` replays them again)."""
    from .verify import check_files

    try:
        return check_files(files, probes, provider)
    except Exception:  # noqa: BLE001 - verify replays them itself and reports the problem
        return {}


def _verified(files: list[Path], probes: dict[str, AnyProbe], errors: list[SpecError],
              checked: dict[int, CheckResult]) -> list[CheckResult]:
    """Returns ``verify``'s results with ``checked`` found already; one error result when it broke."""
    from .verify import verify

    try:
        return verify(files, probes, errors, checked)
    except Exception as exc:  # noqa: BLE001 - a broken run must still come back as a result
        return [_stopped(exc)]


def _stopped(exc: Exception) -> CheckResult:
    """Returns the one result of a replay that stopped on ``exc``."""
    return CheckResult(target="provider", scenario="verify", family="unknown",
                       invariant="provider.cassette-valid", level="MUST", outcome="error",
                       message=f"verify stopped: {type(exc).__name__}: {exc}", kind="probe")
