"""Replay one OpenAI probe's cassette offline and judge the exchange it answers.

Replay uses record mode ``none`` with sockets blocked and the probe's own requests (the earlier
call, the suffix counts, the judged call): a cassette that does not answer exactly those requests,
or that holds answers nobody asked for, cannot be judged and says why.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import openai
from vcr.errors import CannotOverwriteExistingCassetteException

from .. import cassettes
from ..base import CassetteProblem
from . import semantics as sem
from .rules import Judgement, error_matches, judge
from .probes import OpenAIProbe
from .run import Ran, RunProblem, make_client, run


class ReplayProblem(CassetteProblem):
    """A cassette that cannot be replayed for its probe; ``unreadable`` marks bad input (exit 2)."""


@cache
def replay_client(base_url: str) -> openai.OpenAI:
    """Returns a shared replay client for ``base_url``: no key, no retries, strict response validation."""
    return make_client("replay-needs-no-key", base_url)


def _base_url(data: dict[str, Any]) -> str:
    uri = urlsplit(data["interactions"][0]["request"]["uri"])
    path = uri.path
    root = path[: path.index("/responses")] if "/responses" in path else ""
    return f"{uri.scheme}://{uri.netloc}{root}"


def replay(probe: OpenAIProbe, path: Path, data: dict[str, Any]) -> Ran:
    """Returns the replayed exchange; raises ``ReplayProblem`` when the cassette cannot answer the probe."""
    client = replay_client(_base_url(data))
    with cassettes.network_blocked(), cassettes.make_vcr("none").use_cassette(str(path)) as cassette:
        try:
            ran = run(probe, client)
        except CannotOverwriteExistingCassetteException as exc:
            raise ReplayProblem("cassette does not match its probe: no recorded interaction answers this "
                                f"request ({str(exc).splitlines()[0]})") from None
        except RunProblem as exc:
            cause = exc.__cause__ or exc.__context__
            if exc.transport or isinstance(cause, CannotOverwriteExistingCassetteException):
                raise ReplayProblem("cassette does not match its probe: no recorded interaction answers "
                                    f"this request ({str(exc).splitlines()[0]})") from None
            raise ReplayProblem(str(exc), unreadable=False) from None
        unplayed = len(cassette) - cassette.play_count
    if unplayed:
        raise ReplayProblem(f"cassette does not match its probe: {unplayed} recorded interaction(s) were never "
                            "requested")
    return ran


def differences(probe: OpenAIProbe, found: Judgement) -> list[str]:
    """Returns how the judgement differs from the probe's prediction (empty when it matches)."""
    out = []
    predicted = probe.predict["verdict"]
    if found.verdict != predicted:
        out.append(f"verdict {found.verdict!r}, predicted {predicted!r}"
                   + (f" ({'; '.join(found.reasons)})" if found.reasons else ""))
    expected = probe.expected_error
    if expected is not None and found.verdict == "rejected" and not error_matches(expected, found):
        out.append(f"rejected with {found.evidence.get('error')}, predicted {expected}")
    if found.live_from != probe.live_from:
        out.append(f"the built input's task in flight starts at item {found.live_from}, declared {probe.live_from}")
    return out


def live_size(probe: OpenAIProbe, items: list[dict[str, Any]] | None = None) -> dict[str, int]:
    """Returns the size of the probe's task in flight: function calls, reasoning items, estimated tokens."""
    live = [i for i in (items if items is not None else probe.full_input())[probe.live_from:]
            if i.get("type") != sem.TRIGGER]
    return {"tool_steps": sum(1 for i in live if i.get("type") == "function_call"),
            "thinking_turns": sum(1 for i in live if i.get("type") == "reasoning"),
            "input_tokens": sum(sem.item_tokens(i) for i in live)}


def evidence(found: Judgement) -> str:
    """Returns the one-line evidence for a table: error, where the item sat, what was folded, what was live."""
    if found.verdict == "rejected":
        return f"error {found.error_code}"
    parts = []
    if found.folded:
        parts.append(f"folded items {_ranges(found.folded)}")
    if found.reached:
        parts.append(f"LIVE: items {_ranges(found.reached)}")
    if found.reasons:
        parts.append(found.reasons[0])
    return "; ".join(parts) or "nothing folded"


def _ranges(numbers: list[int]) -> str:
    spans: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        spans.append(f"{start}" if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ",".join(spans)


def judge_cassette(probe: OpenAIProbe, path: Path, data: dict[str, Any]) -> tuple[Judgement, Ran]:
    """Returns the judgement of a cassette for its probe; raises ``ReplayProblem``."""
    ran = replay(probe, path, data)
    return judge(ran.exchange), ran
