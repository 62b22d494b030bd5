"""Replay cassettes offline, judge each exchange and compare the verdict with the probe's prediction.

Each cassette is replayed and judged by its probe's provider (``base.Provider.judge_cassette``):
offline, with sockets blocked, and the probe's own requests; a cassette that does not answer
exactly those requests is an error for that probe only, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..engine.results import CheckResult, Outcome
from . import base, cassettes
from .base import CassetteProblem
from .probes import AnyProbe

VERDICT = "provider.verdict-matches-prediction"
VALID = "provider.cassette-valid"
PROBE_VALID = "provider.probe-valid"
INPUT_ERROR = "input_error"  # details key: the cassette is bad input (exit 2), not a finding about the server


def stored_unavailable(data: dict[str, Any]) -> str | None:
    """Returns a note naming a stored answer the SDK would retry (a 5xx, 429...), or None when there is none."""
    for index, item in enumerate(data["interactions"]):
        response = item["response"]
        if cassettes.is_retryable(response):
            status = response["status"]
            return (f"interactions[{index}] stores a {status['code']} {status.get('message') or ''}".rstrip()
                    + " answer (the server was unavailable when this was recorded; replay never plays "
                      "such an answer): record it again")
    return None


def _result(probe: AnyProbe | None, probe_id: str, server: str, invariant: str, outcome: Outcome, message: str,
            details: dict[str, Any]) -> CheckResult:
    family = probe.family if probe else "unknown"
    if probe is not None:  # every line about a probe can name its configuration and its task in flight
        details = {**base.get(probe.provider).probe_details(probe), "emulator": server.startswith("emulator"),
                   **details}
    return CheckResult(target=server, scenario=probe_id, family=family, invariant=invariant, level="MUST",
                       outcome=outcome, message=message, details=details, kind="probe")


def check_cassette(path: Path, probes: dict[str, AnyProbe]) -> CheckResult:
    """Returns one result for one cassette: the verdict check, or an error naming the problem."""
    server, probe_id = path.parent.name, path.stem
    try:
        data = cassettes.load_cassette(path)
    except SpecError as exc:
        return _result(probes.get(probe_id), probe_id, server, VALID, "error", f"corrupt cassette: {exc}",
                       {"path": str(path), INPUT_ERROR: True})
    meta = cassettes.cassette_meta(data)
    server, probe_id = meta["server"] or server, meta["probe"] or probe_id
    probe = probes.get(probe_id)
    if probe is None:
        return _result(None, probe_id, server, VALID, "error", f"{path}: no probe spec has id {probe_id!r}",
                       {"path": str(path), INPUT_ERROR: True})
    unavailable = stored_unavailable(data)
    if unavailable:
        return _result(probe, probe_id, server, VALID, "error", f"{path}: {unavailable}",
                       {"path": str(path), INPUT_ERROR: True})
    try:
        judged = base.get(probe.provider).judge_cassette(probe, path, data)
    except CassetteProblem as exc:
        return _result(probe, probe_id, server, VALID, "error", f"{path}: {exc}",
                       {"path": str(path), INPUT_ERROR: exc.unreadable})
    except Exception as exc:  # noqa: BLE001 - one odd cassette must not stop the others
        return _result(probe, probe_id, server, VALID, "error",
                       f"{path}: cannot replay: {type(exc).__name__}: {exc}", {"path": str(path)})
    if judged.differences:
        return _result(probe, probe_id, server, VERDICT, "fail", "; ".join(judged.differences), judged.details)
    return _result(probe, probe_id, server, VERDICT, "pass", f"{judged.verdict} as predicted", judged.details)


def cassette_files(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """Returns (cassette files, folders given) for the paths; folders are searched recursively."""
    files: list[Path] = []
    folders: list[Path] = []
    for path in paths:
        if path.is_dir():
            folders.append(path)
            files += sorted(p for p in path.rglob("*.yaml") if not p.name.startswith("."))
        else:
            files.append(path)
    return files, folders


def is_input_error(result: CheckResult) -> bool:
    """Returns whether a result is bad input (a spec or cassette that cannot be read as such): exit code 2."""
    return result.invariant == PROBE_VALID or bool(result.details.get(INPUT_ERROR))


def check_files(paths: Iterable[Path], probes: dict[str, AnyProbe], provider: str) -> dict[int, CheckResult]:
    """Returns the result of each cassette under ``paths`` named for a probe of ``provider`` (by its
    file name), by its position among the cassettes: the other SDK is not imported. (``verify`` with
    ``checked`` replays the rest.)"""
    files, _ = cassette_files(paths)
    mine = {probe_id for probe_id, probe in probes.items() if probe.provider == provider}
    return {i: check_cassette(path, probes) for i, path in enumerate(files) if path.stem in mine}


def verify(paths: Iterable[Path], probes: dict[str, AnyProbe], spec_errors: Iterable[SpecError] = (),
           checked: dict[int, CheckResult] | None = None) -> list[CheckResult]:
    """Returns one result per cassette, per spec error, and a skip per probe a recorded server lacks.

    ``checked`` holds results already found elsewhere (``check_files``), by cassette position."""
    results = [_result(None, Path(e.path).stem, "specs", PROBE_VALID, "error", str(e), {"path": e.path})
               for e in spec_errors]
    files, folders = cassette_files(paths)
    done = checked or {}
    for index, path in enumerate(files):
        results.append(done[index] if index in done else check_cassette(path, probes))
    if folders:
        covered: dict[str, set[str]] = {}
        speaks: dict[str, set[str]] = {}  # server -> the providers its recordings are probes of
        for r in results:
            if r.kind == "probe" and r.invariant != PROBE_VALID:
                covered.setdefault(r.target, set()).add(r.scenario)
                if r.scenario in probes:
                    speaks.setdefault(r.target, set()).add(probes[r.scenario].provider)
        for server, seen in sorted(covered.items()):
            providers = speaks.get(server, set())
            for probe_id in sorted(p for p in set(probes) - seen if probes[p].provider in providers):
                results.append(_result(probes[probe_id], probe_id, server, VERDICT, "skip",
                                       f"no recording of this probe from {server}", {}))
    return results
