"""Tracebacks of targets (own frames, keyed by place, scrubbed) and the two sides of a failure."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conformance import load
from conformance.engine.evidence import excerpt, sides
from conformance.engine.target import Observation, call_guarded, from_callable
from conformance.engine.tracebacks import MAX_FRAMES, scrub_credentials, target_traceback, traceback_key

from ._specs import GOOD, write


def _fails_at_depth(n: int) -> None:
    if n:
        _and_again(n - 1)  # two alternating frames: Python does not fold them as repeats
    raise KeyError("missing")


def _and_again(n: int) -> None:
    _fails_at_depth(n)


def _one(history: list, which: str = "") -> list:
    raise ValueError(f"bad {which}")


def _two(history: list, which: str = "") -> list:
    raise ValueError(f"bad {which}")


def test_the_guarded_call_keeps_only_the_targets_frames() -> None:
    obs = call_guarded(from_callable(_one), [{"role": "user", "content": "hi"}], {})
    assert obs.error_traceback is not None
    assert f'"{__file__}"' in obs.error_traceback and "in _one" in obs.error_traceback
    assert "conformance/engine/target.py" not in obs.error_traceback
    assert obs.error_traceback.splitlines()[-1] == "ValueError: bad "


def _no_history() -> list:
    return []


def test_a_target_of_the_wrong_arity_shows_no_harness_frame() -> None:
    obs = call_guarded(from_callable(_no_history), [{"role": "user", "content": "hi"}], {})
    assert obs.error_traceback is not None
    assert "conformance/engine/target.py" not in obs.error_traceback and 'File "' not in obs.error_traceback
    assert obs.error_traceback.startswith("TypeError: _no_history() takes 0 positional arguments")
    assert "target(history, **options)" in obs.error_traceback


def test_deep_recursion_is_cut_to_the_last_frames() -> None:
    try:
        _fails_at_depth(MAX_FRAMES * 3)
    except KeyError as exc:
        text = target_traceback(exc, harness_frames=0)
    assert text.count(", in _fails_at_depth") + text.count(", in _and_again") == MAX_FRAMES


def test_same_place_same_key_whatever_the_message() -> None:
    tracebacks = []
    for func, which in ((_one, "a"), (_one, "b"), (_two, "a")):
        try:
            func([], which)
        except ValueError as exc:
            tracebacks.append(target_traceback(exc, harness_frames=0))
    assert traceback_key(tracebacks[0]) == traceback_key(tracebacks[1])
    assert traceback_key(tracebacks[0]) != traceback_key(tracebacks[2])


def test_credentials_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-1234567890")
    text = scrub_credentials("key sk-ant-api03-AAAAAAAAAA, Bearer abcdefghijk, tok-1234567890, plain words")
    assert "AAAAAAAAAA" not in text and "abcdefghijk" not in text and "tok-1234567890" not in text
    assert "[redacted $MY_SERVICE_TOKEN]" in text and "plain words" in text


def test_excerpt_trims_and_hides_reasoning() -> None:
    block = {"type": "thinking", "thinking": "a secret plan " * 40, "signature": "s"}
    text = excerpt({"role": "assistant", "content": [block, {"type": "text", "text": "x" * 500}]})
    assert "secret plan" not in text and "more chars)" in text and len(text) < 340


def test_sides_name_both_messages(tmp_path: Path) -> None:
    scenario = next(s for s in load([write(tmp_path, "t.yaml", GOOD)]).scenarios if s.id == "tiny.inflight")
    output = [dict(m) for m in scenario.history]
    output[3] = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "ls", "input": {}}]}
    got = sides(scenario, Observation(output=output), "output[3] is not input[3] (message 1 of the task in flight):")
    assert got["expected"].startswith('input[3]: {"role": "assistant"') and "plan 2" not in got["expected"]
    assert got["returned"] == 'output[3]: {"role": "assistant", "content": [{"type": "tool_use", ' \
                              '"id": "toolu_01", "name": "ls", "input": {}}]}'
    gone = sides(scenario, Observation(output=output[1:]), "input[3].content[0] (thinking) of the task in flight is gone")
    assert gone["expected"].startswith('input[3].content[0]: {"type": "thinking"')
    assert gone["returned"].startswith("output[2] (where input[3] belongs): ")
    assert sides(scenario, Observation(output=output), "input[3] changed", "input.unmutated") == {}
    assert sides(scenario, Observation(output=None), "the output is not a list") == {}


def test_a_hung_call_shows_where_the_target_was_stuck() -> None:
    release = threading.Event()

    def stuck(history: list) -> list:
        return _waiting(release)

    obs = call_guarded(from_callable(stuck), [{"role": "user", "content": "hi"}], {}, time_limit=0.1)
    release.set()
    assert obs.timed_out and obs.error_traceback is not None
    assert "in _waiting" in obs.error_traceback and "in stuck" in obs.error_traceback
    before_ours = obs.error_traceback.split("in stuck")[0]
    assert "conformance/engine/target.py" not in obs.error_traceback and "threading.py" not in before_ours


def _waiting(release: threading.Event) -> list:
    release.wait()
    return []
