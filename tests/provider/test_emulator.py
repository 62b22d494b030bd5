"""The emulator answers like the documented API: strict-parseable bodies and documented rejections."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from conformance.provider.anthropic.emulator import Emulator


def test_unknown_fault_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown fault"):
        Emulator(0, ["teleport"])


def test_requires_a_key_and_answers_strictly() -> None:
    with Emulator() as emulator:
        response = httpx2.post(f"{emulator.url}/v1/messages", json={"messages": []})
        assert response.status_code == 401 and response.headers["x-conformance-server"] == "emulator"
        with anthropic.Anthropic(api_key="dummy", base_url=emulator.url, max_retries=0,
                                 _strict_response_validation=True) as client:
            message = client.beta.messages.create(model="claude-sonnet-4-6", max_tokens=16,
                                                  messages=[{"role": "user", "content": "hi"}])
            assert message.stop_reason == "end_turn"
            with pytest.raises(anthropic.BadRequestError, match="tool_result"):
                client.beta.messages.create(model="claude-sonnet-4-6", max_tokens=16, messages=[
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
                    {"role": "user", "content": "no result"}])


def test_gzip_when_asked() -> None:
    with Emulator() as emulator:
        response = httpx2.post(f"{emulator.url}/v1/messages", json={"messages": [{"role": "user", "content": "x"}]},
                               headers={"x-api-key": "k", "accept-encoding": "gzip"})
        assert response.headers["content-encoding"] == "gzip" and response.json()["type"] == "message"


def test_on_demand_compaction_refuses_a_paused_server_tool_call() -> None:
    paused = [{"role": "user", "content": "look it up"},
              {"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                                                 "input": {"query": "x"}}]}]
    with Emulator() as emulator:
        response = httpx2.post(f"{emulator.url}/v1/messages", headers={"x-api-key": "k",
                               "anthropic-beta": "compact-2026-09-04"},
                               json={"messages": paused, "compaction": {"type": "summarize"}})
    assert response.status_code == 400
    assert response.json()["error"]["details"]["error_code"] == "compaction_incomplete_turn"


def _ask(emulator: Emulator, messages: list, **extra: object) -> httpx2.Response:
    return httpx2.post(f"{emulator.url}/v1/messages", headers={"x-api-key": "k"},
                       json={"model": "m", "max_tokens": 16, "messages": messages, **extra})


TOOLS = [{"name": "search", "input_schema": {"type": "object"}}]


def test_it_calls_the_tools_a_request_names_then_answers_with_signed_thinking() -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    request = {"role": "user", "content": 'Call the `search` tool with {"query": "a"}, then answer.'}
    with Emulator() as emulator:
        first = _ask(emulator, [request], tools=TOOLS, thinking=thinking).json()
        assert [b["type"] for b in first["content"]] == ["thinking", "tool_use"] and first["stop_reason"] == "tool_use"
        call = first["content"][1]
        assert call["name"] == "search" and call["input"] == {"query": "a"}
        answered = [request, {"role": "assistant", "content": first["content"]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call["id"], "content": "hit"}]}]
        second = _ask(emulator, answered, tools=TOOLS, thinking=thinking).json()
        assert [b["type"] for b in second["content"]] == ["text"]  # no thinking after tool results without the beta


@pytest.mark.slow
@pytest.mark.parametrize("tamper", ["text", "signature", "redacted"])
def test_thinking_it_did_not_sign_is_rejected_like_the_api(tamper: str) -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    request = {"role": "user", "content": "hello"}
    with Emulator() as emulator:
        answer = _ask(emulator, [request], thinking=thinking).json()["content"]
        block = dict(answer[0])
        if tamper == "text":
            block["thinking"] += " edited"
        elif tamper == "signature":
            block["signature"] = "sig-made-up"
        else:
            block = {"type": "redacted_thinking", "data": "made-up"}
        history = [request, {"role": "assistant", "content": [block, answer[1]]}, {"role": "user", "content": "more"}]
        signed = [request, {"role": "assistant", "content": answer}, {"role": "user", "content": "more"}]
        assert _ask(emulator, signed, thinking=thinking).status_code == 200
        refused = _ask(emulator, history, thinking=thinking)
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["type"] == "invalid_request_error" and error["message"].startswith("messages.1.content.0: Invalid")
