"""Preserved thinking on real recordings: pydantic-ai's two Claude Fable 5.1 cassettes in which the
service dropped a thinking block sent back after the client changed its system prompt (see
``tests/provider/real/README.md``), read by every command that reads traffic.

``analyze``'s verdicts on them are the README's table (``test_analyze_real.py``); here ``analyze``
names the change, ``explain`` shows it, ``verify``'s analyzer judges the answers as the SDK parses
them (the JSON answer and the stream, through the SDK's own parser and accumulator), and the guard
judges the recorded bytes as they come back (a first call that sets ``block_binding`` is read, not
passed unparsed, so the guard too names what the client changed). The task in flight of the follow-up is message 2 (the
new question): message 1, whose thinking block was dropped, ends in the first question's answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from conformance.cli import main
from conformance.guard.judge import Guard
from conformance.provider.analyze import Judgement, analyze_file
from conformance.provider.anthropic import semantics as sem
from conformance.provider.anthropic.analyzer import analyze, compare
from conformance.provider.anthropic.probes import Probe
from conformance.report.explain_recording import explain_interaction
from .._yaml import load_yaml

REAL = Path(__file__).resolve().parent / "real"
PLAIN = REAL / "preserved_thinking" / "test_anthropic_fable_5_1_drops_a_stale_thinking_block.yaml"
STREAMED = REAL / "preserved_thinking" / "test_anthropic_fable_5_1_drops_a_stale_thinking_block_streamed.yaml"
RECORDINGS = pytest.mark.parametrize("path", [PLAIN, STREAMED], ids=["plain", "streamed"])
DROP = {"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}
CHANGE = "the client's first change since interaction 0, the previous request that carried that block: `system` differs"


def interactions(path: Path) -> list[dict[str, Any]]:
    return list(load_yaml(path.read_text(encoding="utf-8"))["interactions"])


def _body(response: dict[str, Any]) -> tuple[bytes, str]:
    """Returns a recorded answer's bytes and content type: a JSON body re-encoded, a stream as recorded."""
    if "parsed_body" in response:
        return json.dumps(response["parsed_body"]).encode(), "application/json"
    return response["body"]["string"].encode(), "text/event-stream; charset=utf-8"


@RECORDINGS
def test_analyze_names_the_system_prompt_the_client_changed(path: Path) -> None:
    result = analyze_file(path)
    assert result.error is None
    first, follow_up = result.judgements
    assert first.verdict == "not-judged"
    assert follow_up.verdict == "settled-only" and follow_up.live_start == 2
    assert follow_up.strategy == "block_binding drop_block"
    assert follow_up.evidence[0].startswith("messages.1.content.0: the service dropped this thinking block of "
                                            "settled history")
    assert follow_up.evidence[-1] == CHANGE


@RECORDINGS
def test_explain_shows_the_drop_and_its_cause(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, verdict = explain_interaction(path, 1)
    assert verdict == "settled-only"
    flat = " ".join(text.split())
    assert "only settled reasoning was lost" in flat and "`system` differs" in flat
    assert main(["explain", str(path), "--interaction", "1"]) == 0  # settled-only is not a failure
    assert "settled-only" in capsys.readouterr().out


def _probe(request: dict[str, Any], live_from: int, verdict: str) -> Probe:
    """Returns a probe of the recorded request, its task in flight declared from ``live_from``."""
    body = {k: v for k, v in request.items() if k not in ("messages", "stream")}
    return Probe(id="real.fable-drop", description="pydantic-ai's recorded follow-up", request=body,
                 history=request["messages"], padding=(), live=sem.Span(live_from), predict={"verdict": verdict},
                 count_tokens=False)


def _sdk_answer(interaction: dict[str, Any]) -> Any:
    """Returns the recorded answer as the SDK parses it: ``create`` for a JSON answer, the SDK's
    stream accumulator for a streamed one; the transport answers in process with the recorded bytes."""
    content, kind = _body(interaction["response"])
    transport = httpx2.MockTransport(lambda _request: httpx2.Response(200, content=content,
                                                                      headers={"content-type": kind}))
    client = anthropic.Anthropic(api_key="replay", http_client=httpx2.Client(transport=transport))
    request = {k: v for k, v in interaction["request"]["parsed_body"].items() if k not in ("stream", "thinking")}
    extra = {"thinking": interaction["request"]["parsed_body"]["thinking"]}
    if kind == "application/json":
        return client.beta.messages.create(**request, extra_body=extra)
    with client.beta.messages.stream(**request, extra_body=extra) as stream:
        return stream.get_final_message()


@RECORDINGS
def test_verify_judges_the_answer_the_sdk_parses(path: Path) -> None:
    follow_up = interactions(path)[1]
    message = _sdk_answer(follow_up)
    assert [t.model_dump() for t in message.input_transformations] == [DROP]
    request = follow_up["request"]["parsed_body"]
    settled = _probe(request, 2, "settled-only")
    found = analyze(settled, message)
    assert found.verdict == "settled-only" and found.evidence["input_transformations"] == [DROP]
    assert compare(settled, found) == []
    # the same answer, had the probe declared message 1 part of the task in flight: its reasoning lost
    in_flight = _probe(request, 1, "settled-only")
    lost = analyze(in_flight, message)
    assert lost.verdict == "live-reasoning-lost"
    assert compare(in_flight, lost) == ["verdict live-reasoning-lost, predicted settled-only"]


@RECORDINGS
def test_the_guard_judges_the_recorded_bytes(path: Path) -> None:
    seen: list[Judgement] = []
    guard = Guard(policy="raise", on_judgement=seen.append)  # raises on an alert: settled-only is none
    for interaction in interactions(path):
        content, kind = _body(interaction["response"])
        guard.judge(interaction["request"]["uri"], "POST", json.dumps(interaction["request"]["parsed_body"]).encode(),
                    content, interaction["response"]["status"]["code"], kind)
    assert [j.verdict for j in seen] == ["not-judged", "settled-only"]
    assert seen[1].live_start == 2 and seen[1].evidence[0].startswith("messages.1.content.0: the service dropped")
    # the first call sets block_binding, so the guard noted the block it returned: the change is named
    assert seen[1].evidence[-1] == CHANGE


@pytest.mark.parametrize("name", ["pydantic_ai_thinking_dropped.json", "pydantic_ai_thinking_dropped_stream.sse"])
def test_the_answer_alone_cannot_place_the_drop(name: str) -> None:
    result = analyze_file(REAL / "response-only" / name)
    assert result.error is None
    [found] = result.judgements
    assert found.verdict == "cannot-tell"
    assert any("thinking_dropped (prefix_binding_mismatch) at messages.1.content.0" in line for line in found.evidence)
