"""What the recorder does with transient answers, the base URL, the cost ceiling and live-built histories."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anthropic
import httpx2
import pytest

from conformance.cli import main
from conformance.provider import _recording
from conformance.provider._recording import Retryable
from conformance.provider.anthropic import record as record_module
from conformance.provider.anthropic.emulator import Emulator
from conformance.provider.anthropic.probes import Probe
from conformance.provider.anthropic.record import _send, record
from .._yaml import load_yaml


def refusing(status: int, headers: dict[str, str], body: Any = None) -> Any:
    """Returns a stand-in client whose every call is answered with ``status`` and ``headers``."""
    response = httpx2.Response(status, headers=headers, request=httpx2.Request("POST", "http://127.0.0.1:1/v1/messages"))

    def call(**kwargs: Any) -> None:
        raise anthropic.APIStatusError("refused", response=response, body=body)

    return SimpleNamespace(beta=SimpleNamespace(messages=SimpleNamespace(create=call, count_tokens=call)))


@pytest.mark.parametrize(("status", "headers", "body", "transient"), [
    (400, {"x-should-retry": "true"}, None, True),
    (529, {}, None, True),
    (429, {}, None, True),
    (400, {}, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}, True),
    (400, {}, None, False),
])
def test_a_transient_answer_is_raised_for_retry(probes: dict[str, Probe], status: int, headers: dict[str, str],
                                                body: Any, transient: bool) -> None:
    probe = probes["clear-tool-uses.keep-below-live-task"]
    if transient:
        with pytest.raises(Retryable):
            _send(refusing(status, headers, body), probe)
    else:
        notes, _ = _send(refusing(status, headers, body), probe)
        assert notes[-1] == f"count_tokens: answered {status}" or notes[-1] == f"create: answered {status}"


def test_a_persistent_overload_is_retried_with_backoff_then_exit_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    waits: list[float] = []
    monkeypatch.setattr(_recording, "SLEEP", waits.append)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0, ["overloaded"]) as emulator:
        code = main(["record", "--base-url", emulator.url, "--out", str(tmp_path),
                     "--probe", "compact.below-trigger", "--probe", "compact.mid-task"])
    captured = capsys.readouterr()
    assert code == 3 and "provider unavailable" in captured.err
    assert waits == [2.0, 4.0, 8.0]  # bounded: four attempts, doubling waits, no real sleep
    assert "1 probe(s) not tried" in captured.err and not list(tmp_path.rglob("*.yaml"))


def test_a_transient_answer_then_success_records(tmp_path: Path, probes: dict[str, Probe],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    real = record_module._send
    calls: list[int] = []

    def flaky(*args: Any) -> tuple[list[str], dict[str, Any]]:
        calls.append(1)
        if len(calls) == 1:
            raise Retryable("create: server answered 529", 1.5)
        return real(*args)

    monkeypatch.setattr(record_module, "_send", flaky)
    waits: list[float] = []
    with Emulator(0) as emulator:
        [outcome] = record([probes["compact.below-trigger"]], "dummy", emulator.url, tmp_path, sleep=waits.append)
    assert outcome.ok and waits == [1.5] and len(calls) == 2  # retry-after is honoured


def test_record_honours_anthropic_base_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0) as emulator:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", emulator.url)
        code = main(["record", "--out", str(tmp_path), "--probe", "compact.below-trigger"])
    assert code == 0 and (tmp_path / "emulator" / "compact.below-trigger.yaml").is_file()


def test_dry_run_prices_every_probe_without_a_key(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["record", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "clear-thinking.keep-one-turn" in out and "(est.)" in out
    assert "at the list prices of 2026-03-21" in out.splitlines()[-1] and "$" in out.splitlines()[-2]
    assert max(len(line) for line in out.splitlines()) <= 100


def test_dry_run_counts_tokens_through_the_sdk_with_a_key(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0) as emulator:
        assert main(["record", "--dry-run", "--base-url", emulator.url, "--probe", "compact.below-trigger"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("compact.below-trigger")][0]
    assert "(est.)" not in row


def test_max_cost_refuses_an_expensive_run_before_any_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    monkeypatch.setattr(record_module, "record", lambda *a, **k: pytest.fail("a call was made"))
    assert main(["record", "--max-cost", "0.01", "--base-url", "http://127.0.0.1:9", "--out", str(tmp_path)]) == 2
    assert "above --max-cost 0.01" in capsys.readouterr().err


def test_max_cost_allows_a_cheap_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    with Emulator(0) as emulator:
        assert main(["record", "--max-cost", "1", "--base-url", emulator.url, "--out", str(tmp_path),
                     "--probe", "compact.below-trigger"]) == 0


def test_a_thinking_probe_is_built_live_and_signed(record_with, probes: dict[str, Probe]) -> None:
    out, [outcome] = record_with(["clear-thinking.keep-one-turn"])
    assert outcome.ok, outcome.note
    data = load_yaml(outcome.path.read_text()) if outcome.path else {}
    # five building turns, then count_tokens and create
    assert len(data["interactions"]) == 7
    assert len(data["metadata"]["thinking_tokens"]) == 5  # three turn starts, two after tool results
    text = outcome.path.read_text() if outcome.path else ""
    assert "emu-hmac-" in text and "Emulator deliberation" not in text


def test_hand_written_thinking_is_rejected_like_the_api_does(probes: dict[str, Probe]) -> None:
    probe = probes["clear-thinking.keep-one-turn"]  # its template carries unsigned stand-in thinking
    with Emulator(0) as emulator, record_module.make_client("dummy", emulator.url) as client:
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.beta.messages.create(**probe.create_kwargs())
    error = caught.value.body["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"


def test_a_server_that_does_not_follow_the_script_is_not_recorded(tmp_path: Path, probes: dict[str, Probe],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.anthropic import emulator as emulator_module

    monkeypatch.setattr(emulator_module, "next_call", lambda body: None)  # never calls a tool
    with Emulator(0) as emulator:
        [outcome] = record([probes["clear-thinking.keep-one-turn"]], "dummy", emulator.url, tmp_path)
    assert not outcome.ok and not outcome.unavailable
    assert "did not follow the script: message 1" in outcome.note and "tool_use search" in outcome.note


def test_the_cost_in_the_docs_is_what_dry_run_prints(probes: dict[str, Probe]) -> None:
    from conformance.provider.anthropic.cost import estimate, render

    printed = "\n".join(render([estimate(p) for p in probes.values()])[-2:])
    for name in ("provider.md", "drift.md"):
        docs = (Path(__file__).resolve().parents[2] / "docs" / name).read_text(encoding="utf-8")
        assert printed in docs, (name, printed)


def test_a_history_built_live_is_priced_at_its_answers_bound(probes: dict[str, Probe]) -> None:
    from conformance.provider.anthropic.cost import answer_allowance, estimate, requests_of

    scripted = probes["clear-thinking.keep-one-turn"]
    sent = requests_of(scripted)
    assert len(sent) == 6 and answer_allowance(scripted, sent[-1]) == 5 * 1280
    assert answer_allowance(probes["compact.mid-task"], probes["compact.mid-task"].create_kwargs()) == 0
    assert estimate(scripted).max_output_tokens == 6 * 1280
