"""`conformance analyze` judges OpenAI traffic with the same rules verify uses: the shipped emulator
cassettes get their probes' predicted verdicts, faulty servers' recordings get the verdicts verify
gives them, and the real recordings other projects made get their README's verdicts
(tests/provider/test_analyze_real.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.analyze import analyze_file, judges
from conformance.provider.openai.probes import OpenAIProbe

from .conftest import SHIPPED
from .test_verify import RED

pytestmark = pytest.mark.xdist_group("openai-faults")  # one worker records each faulty server once


def _judged(path: Path) -> str:
    """Returns the verdict of the probe's judged call: the last one that is not a token count."""
    result = analyze_file(path)
    assert result.error is None
    [found] = [j for j in result.judgements if not j.endpoint.endswith("/input_tokens")][-1:]
    return found.verdict


def _expected(probe: OpenAIProbe, verdict: str) -> str:
    # analyze sees a recording only up to each interaction: the suffix counts a truncation probe
    # records after its call are not there yet, so it cannot tell what was dropped, and says so
    return "cannot-tell" if probe.mechanism == "truncation" else verdict


def test_the_openai_judge_is_registered() -> None:
    assert "openai" in {j.provider for j in judges()}


def test_shipped_cassettes_get_their_predicted_verdict(openai_probes: dict[str, OpenAIProbe]) -> None:
    for probe in openai_probes.values():
        assert _judged(SHIPPED / f"{probe.id}.yaml") == _expected(probe, probe.predict["verdict"]), probe.id


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(RED))
def test_faulty_recordings_get_the_verdict_verify_gives(fault: str, faulty_recordings: Callable[[str], Path],
                                                        openai_probes: dict[str, OpenAIProbe]) -> None:
    folder = faulty_recordings(fault)
    for probe_id, verdict in RED[fault].items():
        assert _judged(folder / f"{probe_id}.yaml") == _expected(openai_probes[probe_id], verdict), probe_id


def test_analyze_exits_1_on_a_reached_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(SHIPPED / "openai-compact.window-mid-task.yaml")]) == 1
    out = capsys.readouterr().out
    assert "reached-live-task" in out and "openai" in out
    assert main(["analyze", str(SHIPPED / "openai-compact.settled.yaml")]) == 0


@pytest.mark.slow
def test_explain_shows_an_openai_probe_and_its_recording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "openai-compact.window-mid-task"]) == 0
    out = capsys.readouterr().out
    assert "2 live message user" in out and "from item 2" in out
    assert "verdict reached-live-task, as predicted" in out and "LIVE: items 3-4" in out


def _in_background(path: Path, tmp_path: Path) -> Path:
    """Returns a copy of a recording whose first call is sent in background mode: answered queued,
    polled once in progress by ``GET /responses/{id}``, then retrieved complete with the recorded answer."""
    import copy
    import json

    import yaml

    from ..._yaml import load_yaml

    recording = load_yaml(path.read_text())
    first, *rest = recording["interactions"]
    body = first["response"]["body"]
    answer = json.loads(body["string"] if isinstance(body, dict) else body)
    sent = copy.deepcopy(first)
    sent["request"]["body"] = json.dumps({**json.loads(first["request"]["body"]), "background": True})

    def answered(status: str, output: list[Any]) -> dict[str, Any]:
        return {**first["response"], "body": {"string": json.dumps({**answer, "status": status, "background": True,
                                                                      "output": output})}}

    def poll(status: str, output: list[Any]) -> dict[str, Any]:
        return {"request": {"method": "GET", "uri": f"{first['request']['uri']}/{answer['id']}", "body": "",
                            "headers": {}}, "response": answered(status, output)}

    sent["response"] = answered("queued", [])
    recording["interactions"] = [sent, poll("in_progress", []), poll(answer["status"], answer["output"]), *rest]
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(recording))
    return out


@pytest.mark.parametrize("name", ["openai-trigger.mid-task", "openai-compact.chained-after-results"])
def test_a_background_response_retrieved_complete_is_judged_as_in_the_foreground(name: str, tmp_path: Path) -> None:
    foreground = [j.verdict for j in analyze_file(SHIPPED / f"{name}.yaml").judgements]
    background = analyze_file(_in_background(SHIPPED / f"{name}.yaml", tmp_path))
    assert background.error is None
    queued = "not-judged" if foreground[0] == "not-judged" else "cannot-tell"  # (its output is not in yet)
    assert [j.verdict for j in background.judgements] == [queued, "not-judged", *foreground]
    assert "requested at interaction 0, retrieved complete" in background.judgements[2].evidence[0]
