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


GEMINI_KEY = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
AZURE_KEY = "8f2c3b9e4d1a4f6b9c7e2d5a1b3c4d5e"
BASIC = "dXNlcjpodW50ZXIy"  # base64 of user:hunter2


@pytest.mark.parametrize(("text", "secret", "kept"), [
    (f"400 Client Error: Bad Request for url: https://g.example/v1beta/m:generateContent?key={GEMINI_KEY}",
     GEMINI_KEY, "generateContent?key="),
    (f"headers={{'api-key': '{AZURE_KEY}', 'x-goog-api-key': '{GEMINI_KEY}', 'Authorization': 'Basic {BASIC}'}}",
     AZURE_KEY, "'api-key': '"),
    (f"headers={{'x-goog-api-key': 'k{AZURE_KEY}'}}", AZURE_KEY, "'x-goog-api-key': '"),
    (f'{{"x-api-key": "{AZURE_KEY}", "accept": "application/json"}}', AZURE_KEY, '"accept": "application/json"'),
    (f"api-key: {AZURE_KEY}\nuser-agent: x", AZURE_KEY, "user-agent: x"),
    (f"Authorization: Basic {BASIC}", BASIC, "Authorization: "),
    (f"sent Basic {BASIC} to the proxy", BASIC, "to the proxy"),
    (f"Proxy-Authorization=Token {AZURE_KEY}", AZURE_KEY, "Proxy-Authorization="),
    ("Cookie: session_id=a81f0c2e9b7d", "a81f0c2e9b7d", "Cookie: "),
    ("x-amz-security-token: FwoGZXIvYXdzEJr1234567890", "FwoGZXIvYXdzEJr1234567890", "x-amz-security-token: "),
    ("aws id AKIAIOSFODNN7EXAMPLE in the config", "AKIAIOSFODNN7EXAMPLE", "in the config"),
    ("https://gw.example/v1?alt=sse&access_token=ya29.a0AfB_byC&max_tokens=5", "ya29.a0AfB_byC", "&max_tokens=5"),
    ("https://gw.example/v1?X-Amz-Signature=0f1e2d3c4b5a69788796", "0f1e2d3c4b5a69788796", "X-Amz-Signature="),
    ("connect to https://team-gw:gw_9f8e7d6c5b4a@gw.example/v1 failed", "gw_9f8e7d6c5b4a", "@gw.example/v1 failed"),
    (f"OpenAI(api_key='{AZURE_KEY}')", AZURE_KEY, "OpenAI(api_key='"),
])
def test_credentials_of_every_shape_are_scrubbed(text: str, secret: str, kept: str) -> None:
    """A key whose shape is not sk-/Bearer and that sits in no environment variable (read from a
    secrets file) is scrubbed by its shape, by the header or parameter it is the value of, or as a
    URL's user and password; the words around it stay."""
    scrubbed = scrub_credentials(text)
    assert secret not in scrubbed and kept in scrubbed and "[redacted credential]" in scrubbed
    assert scrub_credentials(scrubbed) == scrubbed


@pytest.mark.parametrize("text", [
    "Authorization: the agent asked first. Basic settings are fine; the cookie: yes",
    "https://example.com/search?q=compaction&max_tokens=5&sort=key",
    "Basic dGVzdA== is not a user and password",  # base64 of 'test': no colon
    "the api-key header is required",
    "ssh to git.example.com:repo and keep the key: ok",
])
def test_prose_that_names_a_credential_is_left_as_it_is(text: str) -> None:
    assert scrub_credentials(text) == text


def test_no_string_of_the_shipped_scenarios_is_taken_for_a_credential() -> None:
    """Evidence quotes the scenarios' histories: none of their strings (they hold no credential) is changed."""
    from .conftest import shipped_specs

    def strings(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
        if isinstance(value, (list, tuple)):
            return [s for v in value for s in strings(v)]
        return []

    texts = [s for scenario in shipped_specs().scenarios for s in strings(scenario.history)]
    assert len(texts) > 1000
    assert [t for t in texts if scrub_credentials(t) != t] == []


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
