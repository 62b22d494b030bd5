"""Replay one Anthropic probe's cassette offline and judge the exchange it answers.

Replay uses record mode ``none`` with sockets blocked, the SDK with ``max_retries=0`` and strict
response validation, and the probe's own request: a cassette that does not answer exactly that
request cannot be judged and says why (``CassetteProblem``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urlsplit

import anthropic
from anthropic.types.beta import BetaContentBlock
from vcr.errors import CannotOverwriteExistingCassetteException

from .. import cassettes
from ..base import CassetteProblem, Judged
from . import live
from .client import make_client
from . import semantics as sem
from .analyzer import Analysis, ApiFailure, analyze, compare
from .probes import Probe


@dataclass
class Replay:
    """The SDK-parsed outcome of replaying one probe's cassette."""

    message: Any = None
    failure: ApiFailure | None = None
    count: Any = None
    count_failure: ApiFailure | None = None


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
    kinds: set[str] = set()
    for member in get_args(get_args(BetaContentBlock)[0]):
        kinds.update(get_args(member.model_fields["type"].annotation))
    return frozenset(kinds)


def _call(func: Any, kwargs: dict[str, Any]) -> tuple[Any, ApiFailure | None]:
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
    return make_client("replay-needs-no-key", base_url)


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


def live_size(probe: Probe) -> dict[str, int]:
    """Returns the size of the probe's task in flight: tool steps, thinking turns, estimated tokens."""
    messages = probe.messages()[probe.live.from_message:]
    tokens = sum(3 + sum(sem.block_tokens(b) for b in sem.content_blocks(m)) for m in messages)
    return {"tool_steps": len(probe.live.tool_use_ids), "thinking_turns": len(probe.live.thinking_turns),
            "input_tokens": tokens}


def _details(probe: Probe, found: Analysis, path: Path) -> dict[str, Any]:
    return {**found.to_dict(), "predicted": probe.predict["verdict"], "config": probe.config_label(),
            "live_task": live_size(probe), "cassette": str(path),
            "built_live": probe.script is not None, "readings": sem.readings(probe.request)}


def judge_cassette(probe: Probe, path: Path, data: dict[str, Any]) -> Judged:
    """Returns the cassette replayed and judged against ``probe`` (as built, for a built history);
    raises ``CassetteProblem`` when it cannot answer the probe."""
    replayed, probe = replay(probe, path, data)
    found = analyze(probe, replayed.message, replayed.failure, replayed.count, replayed.count_failure)
    differences = compare(probe, found)
    return Judged(found.verdict, differences + found.unexplained if differences else [], _details(probe, found, path))
