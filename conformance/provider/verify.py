"""Replay cassettes offline, analyse each exchange and compare the verdict with the probe's prediction.

Replay uses record mode ``none`` with sockets blocked, the SDK with ``max_retries=0`` and strict
response validation, and the probe's own request: a cassette that does not answer exactly that
request is an error for that probe only, and the run goes on.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args
from urllib.parse import urlsplit

from vcr.errors import CannotOverwriteExistingCassetteException

from ..errors import SpecError
from ..results import CheckResult
from . import cassettes
from .anthropic import live
from .anthropic import semantics as sem
from .openai.probes import OpenAIProbe
from .probes import AnyProbe, Probe

if TYPE_CHECKING:  # each SDK is imported by the replay of its own provider's cassettes only
    import anthropic

    from .anthropic.analyzer import Analysis, ApiFailure

VERDICT = "provider.verdict-matches-prediction"
VALID = "provider.cassette-valid"
PROBE_VALID = "provider.probe-valid"
INPUT_ERROR = "input_error"  # details key: the cassette is bad input (exit 2), not a finding about the server


@dataclass
class Replay:
    """The SDK-parsed outcome of replaying one probe's cassette."""

    message: Any = None
    failure: ApiFailure | None = None
    count: Any = None
    count_failure: ApiFailure | None = None


class CassetteProblem(Exception):
    """A cassette that cannot be replayed for its probe; the message says why.

    ``unreadable`` (the default) marks bad input: the file is not a recording of this probe (exit 2).
    False marks an answer the server gave that the SDK refuses (a finding about the server, exit 1).
    """

    def __init__(self, message: str, unreadable: bool = True) -> None:
        super().__init__(message)
        self.unreadable = unreadable


def _explain_validation(exc: anthropic.APIResponseValidationError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    cm = body.get("context_management") or {}
    known_edits = {sem.CLEAR_TOOL_USES, sem.CLEAR_THINKING}
    for edit in cm.get("applied_edits") or []:
        if isinstance(edit, dict) and edit.get("type") not in known_edits:
            return f"unknown applied edit type {edit.get('type')!r} (strict parsing refuses it)"
    for index, block in enumerate(body.get("content") or []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in _known_block_types():
            return f"unknown content block type {kind!r} at content[{index}] (strict parsing refuses it)"
    first = str(exc.__cause__ or exc).splitlines()
    return "response does not parse as the SDK's beta type: " + " ".join(first[:3])


@cache
def _known_block_types() -> frozenset[str]:
    """Returns the content block types the SDK's ``BetaContentBlock`` union accepts."""
    from anthropic.types.beta import BetaContentBlock

    kinds: set[str] = set()
    for member in get_args(get_args(BetaContentBlock)[0]):
        kinds.update(get_args(member.model_fields["type"].annotation))
    return frozenset(kinds)


def _call(func: Any, kwargs: dict[str, Any]) -> tuple[Any, ApiFailure | None]:
    import anthropic

    from .anthropic.analyzer import ApiFailure

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return func(**kwargs), None
    except anthropic.APIStatusError as exc:
        return None, ApiFailure(exc.status_code, exc.body)
    except anthropic.APIResponseValidationError as exc:
        raise CassetteProblem(_explain_validation(exc), unreadable=False) from None
    except ValueError as exc:  # the SDK decodes a 2xx body as JSON before validating it
        raise CassetteProblem(f"response body is not JSON: {exc}") from None
    except anthropic.APIConnectionError as exc:
        cause = exc.__cause__
        if isinstance(cause, CannotOverwriteExistingCassetteException):
            raise CassetteProblem("cassette does not match its probe: no recorded interaction answers "
                                  f"this request ({str(cause).splitlines()[0]})") from None
        raise CassetteProblem(f"replay failed: {cause or exc}") from None


@cache
def replay_client(base_url: str) -> anthropic.Anthropic:
    """Returns a shared replay client for ``base_url``: no key, no retries, strict response validation."""
    import anthropic

    return anthropic.Anthropic(api_key="replay-needs-no-key", base_url=base_url, max_retries=0,
                               _strict_response_validation=True)


def _thinking_sizes(data: dict[str, Any]) -> dict[str, int]:
    sizes = (data.get("metadata") or {}).get("thinking_tokens") or {}
    if not isinstance(sizes, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in sizes.items()):
        raise CassetteProblem("metadata.thinking_tokens is not a mapping of placeholders to token counts")
    return sizes


def _built(probe: Probe, client: anthropic.Anthropic, data: dict[str, Any]) -> tuple[live.Built, Probe]:
    """Returns the history rebuilt from the recorded conversation and the probe the analyzer judges."""

    def create(**kwargs: Any) -> Any:
        answer, failure = _call(client.beta.messages.create, kwargs)
        if failure is not None:
            raise CassetteProblem(f"building the history: the recorded answer is an error {failure.code} "
                                  f"({failure.summary.get('message')})")
        return answer

    try:
        built = live.drive(probe, create)
        return built, live.analysis_probe(probe, built, _thinking_sizes(data))
    except live.ScriptError as exc:
        raise CassetteProblem(f"the recorded conversation does not have the probe's shape: {exc}") from None


def replay(probe: Probe, path: Path, data: dict[str, Any]) -> tuple[Replay, Probe]:
    """Returns the replayed outcome and the probe to judge it by (for a built history: as built).

    Raises ``CassetteProblem`` when the cassette cannot answer the probe.
    """
    uri = urlsplit(data["interactions"][0]["request"]["uri"])
    client = replay_client(f"{uri.scheme}://{uri.netloc}")
    result = Replay()
    judged = probe
    with cassettes.network_blocked(), cassettes.make_vcr("none").use_cassette(str(path)) as cassette:
        if probe.script is not None:
            built, judged = _built(probe, client, data)
            create_kwargs, count_kwargs = live.wire_kwargs(probe, built)
        else:
            create_kwargs, count_kwargs = probe.create_kwargs(), probe.count_kwargs()
        if count_kwargs is not None:
            result.count, result.count_failure = _call(client.beta.messages.count_tokens, count_kwargs)
        result.message, result.failure = _call(client.beta.messages.create, create_kwargs)
        unplayed = len(cassette) - cassette.play_count
    if unplayed:
        raise CassetteProblem(f"cassette does not match its probe: {unplayed} recorded interaction(s) "
                              "were never requested")
    return result, judged


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


def live_size(probe: Probe) -> dict[str, int]:
    """Returns the size of the probe's task in flight: tool steps, thinking turns, estimated tokens."""
    messages = probe.messages()[probe.live.from_message:]
    tokens = sum(3 + sum(sem.block_tokens(b) for b in sem.content_blocks(m)) for m in messages)
    return {"tool_steps": len(probe.live.tool_use_ids), "thinking_turns": len(probe.live.thinking_turns),
            "input_tokens": tokens}


def _result(probe: AnyProbe | None, probe_id: str, server: str, invariant: str, outcome: str, message: str,
            details: dict[str, Any]) -> CheckResult:
    family = probe.family if probe else "unknown"
    if isinstance(probe, OpenAIProbe):
        details = {"config": probe.config_label(), "provider": probe.provider, "live_from_item": probe.live_from,
                   "live_tool_use_ids": [], "live_thinking_turns": [],
                   "emulator": server.startswith("emulator"), **details}
    elif probe is not None:  # every line about a probe can name its configuration and its task in flight
        details = {"config": probe.config_label(), "live_tool_use_ids": list(probe.live.tool_use_ids),
                   "live_thinking_turns": list(probe.live.thinking_turns),
                   "emulator": server.startswith("emulator"), **details}
    return CheckResult(target=server, scenario=probe_id, family=family, invariant=invariant, level="MUST",
                       outcome=outcome, message=message, details=details, kind="probe")  # type: ignore[arg-type]


def check_cassette(path: Path, probes: dict[str, Probe]) -> CheckResult:
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
    if isinstance(probe, OpenAIProbe):
        return _check_openai(probe, probe_id, server, path, data)
    from .anthropic.analyzer import analyze, compare

    try:
        replayed, probe = replay(probe, path, data)
        found = analyze(probe, replayed.message, replayed.failure, replayed.count, replayed.count_failure)
    except CassetteProblem as exc:
        return _result(probe, probe_id, server, VALID, "error", f"{path}: {exc}",
                       {"path": str(path), INPUT_ERROR: exc.unreadable})
    except Exception as exc:  # noqa: BLE001 - one odd cassette must not stop the others
        return _result(probe, probe_id, server, VALID, "error",
                       f"{path}: cannot replay: {type(exc).__name__}: {exc}", {"path": str(path)})
    differences = compare(probe, found)
    details = _details(probe, found, path)
    if differences:
        return _result(probe, probe_id, server, VERDICT, "fail", "; ".join(differences + found.unexplained), details)
    return _result(probe, probe_id, server, VERDICT, "pass", f"{found.verdict} as predicted", details)


def _check_openai(probe: OpenAIProbe, probe_id: str, server: str, path: Path, data: dict[str, Any]) -> CheckResult:
    """Returns the verdict check of one OpenAI cassette, or an error naming why it cannot be judged."""
    from .openai import replay as openai_replay

    try:
        found, ran = openai_replay.judge_cassette(probe, path, data)
    except openai_replay.ReplayProblem as exc:
        return _result(probe, probe_id, server, VALID, "error", f"{path}: {exc}",
                       {"path": str(path), INPUT_ERROR: exc.unreadable})
    except Exception as exc:  # noqa: BLE001 - one odd cassette must not stop the others
        return _result(probe, probe_id, server, VALID, "error",
                       f"{path}: cannot replay: {type(exc).__name__}: {exc}", {"path": str(path)})
    differences = openai_replay.differences(probe, found)
    details = {**found.to_dict(), "predicted": probe.predict["verdict"], "config": probe.config_label(),
               "live_task": openai_replay.live_size(probe, ran.exchange.items), "cassette": str(path),
               "evidence_line": openai_replay.evidence(found), "built_live": probe.before is not None}
    if differences:
        return _result(probe, probe_id, server, VERDICT, "fail", "; ".join(differences), details)
    return _result(probe, probe_id, server, VERDICT, "pass", f"{found.verdict} as predicted", details)


def _details(probe: Probe, found: Analysis, path: Path) -> dict[str, Any]:
    return {**found.to_dict(), "predicted": probe.predict["verdict"], "config": probe.config_label(),
            "live_task": live_size(probe), "cassette": str(path),
            "built_live": probe.script is not None, "readings": sem.readings(probe.request)}


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
