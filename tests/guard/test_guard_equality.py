"""The guard's verdicts are ``conformance analyze``'s: every interaction of the shipped recordings,
handed to ``Guard.judge`` as the bytes a client would send and receive (one guard per recording,
as one client makes that recording's calls), gets the verdict, evidence, strategy and task bounds
the judges give it in ``analyze``, inline and on the background thread alike."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from conformance.guard import Guard, Transport
from conformance.provider.analyze.judging import judge_stream
from conformance.provider.analyze.model import Judgement
from conformance.provider.analyze.registry import judges
from conformance.provider.analyze.run import recording_files
from conformance.provider.recordings import Interaction, RecordingError, read_recording

ROOT = Path(__file__).resolve().parents[2]
PLACES = [ROOT / "cassettes", ROOT / "tests" / "provider" / "real"]
# What a record says besides the file it came from and its model (the guard names no file, and
# passes a call without context management unparsed, so it reads no model from its body).
COMPARED = ("index", "provider", "endpoint", "verdict", "strategy", "live_start", "history", "evidence", "error")


def _recordings() -> Iterator[tuple[str, list[Interaction]]]:
    """Yields each shipped recording whose every interaction a client could have made: readable,
    with JSON bodies, numbered from 0 without gaps."""
    for path in recording_files(PLACES):
        try:
            items = read_recording(path)
        except RecordingError:
            continue
        if items and all(not i.unreadable and i.error is None and i.index == n and i.url
                         for n, i in enumerate(items)):
            yield str(path.relative_to(ROOT)), items


RECORDINGS = dict(_recordings())


def _bytes(body: Any) -> bytes:
    return b"" if body is None else json.dumps(body).encode()


def _record(found: Judgement) -> dict[str, Any]:
    return {k: v for k, v in found.to_dict().items() if k in COMPARED}


def _analyzed(items: list[Interaction]) -> list[dict[str, Any]]:
    return [_record(found) for found, _ in judge_stream(items, judges())]


def test_there_are_recordings_of_both_providers_to_compare() -> None:
    providers = {r["provider"] for items in RECORDINGS.values() for r in _analyzed(items)}
    assert len(RECORDINGS) >= 20 and {"anthropic", "openai"} <= providers


@pytest.mark.parametrize("name", sorted(RECORDINGS))
def test_the_guard_judges_a_recording_as_analyze_does(name: str) -> None:
    items = RECORDINGS[name]
    guard = Guard(policy=[])
    guarded = [_record(guard.judge(i.url, i.method, _bytes(i.request), _bytes(i.response), i.status,
                                   "application/json")) for i in items]
    assert guarded == _analyzed(items)


@pytest.mark.slow
def test_the_background_thread_judges_as_inline_judging_does() -> None:
    inline: list[dict[str, Any]] = []
    background: list[dict[str, Any]] = []
    for name in sorted(RECORDINGS):  # (calls passed after one scan among them)
        for seen, off in ((inline, False), (background, True)):
            transport = Transport(httpx2.MockTransport(lambda r: httpx2.Response(500)), policy=[],
                                  on_judgement=lambda j, seen=seen: seen.append(_record(j)), background=off)
            assert transport.worker is None if not off else transport.worker is not None
            for i in RECORDINGS[name]:
                transport.run(i.url, i.method, _bytes(i.request), _bytes(i.response), i.status, "application/json")
            transport.close()
    assert background == inline and sum(j["evidence"] == ["no context management in the request"] for j in inline) > 12
