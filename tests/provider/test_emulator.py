"""The emulator answers like the documented API: strict-parseable bodies and documented rejections."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from conformance.provider.emulator import Emulator


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
