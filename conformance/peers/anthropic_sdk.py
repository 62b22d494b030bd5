"""The Anthropic SDK's tool-runner compaction: ``client.beta.messages.tool_runner(...)`` with
``compact_before_next_turn()``, on Anthropic messages (the ``anthropic`` format).

The runner sends the compaction request before its next turn, puts the returned ``compaction``
block in place of the history it summarised, then sends that turn; what the turn's request
carries as ``messages`` is the history the model would see. The server is a stand-in on the SDK's
own mock transport (no network): it records each request and answers the compaction request with
one ``compaction`` block of a fixed summary, and the turn with a short text. As the API documents,
it rejects (HTTP 400) a compaction request whose history ends on an assistant turn with a tool
call awaiting its result, and the runner raises that error.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Peers

LIBRARY = "anthropic"
SUMMARY = "SUMMARY: earlier work condensed by a stand-in server."
MODEL = "claude-sonnet-4-6"
PEERS = Peers(LIBRARY, "anthropic.lib.tools")

History = list[dict[str, Any]]


def _awaits_a_result(messages: History) -> bool:
    """Returns whether ``messages`` end on an assistant turn with a tool call."""
    last = messages[-1] if messages else {}
    content = last.get("content")
    return last.get("role") == "assistant" and isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_use" for b in content)


def _reply(content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    return {"id": "msg_conformance", "type": "message", "role": "assistant", "model": MODEL, "content": content,
            "stop_reason": stop_reason, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


class StandInServer:
    """The Messages API as the runner meets it here: records each request body in ``requests``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        import httpx2

        body = json.loads(request.content)
        self.requests.append(body)
        if "compaction" not in body:
            return httpx2.Response(200, json=_reply([{"type": "text", "text": "Continuing."}], "end_turn"))
        if _awaits_a_result(body["messages"]):
            return httpx2.Response(400, json={"type": "error", "error": {
                "type": "invalid_request_error",
                "message": "compaction: the last assistant turn has a tool call without a result"}})
        block = {"type": "compaction", "content": SUMMARY, "signature": "c2lnbmF0dXJl"}
        return httpx2.Response(200, json=_reply([block], "compaction"))


@PEERS.add("anthropic.tool_runner.compact_before_next_turn", "BetaToolRunner.compact_before_next_turn",
           'compaction={"type": "summarize"} (the default), thread=False, betas=["compact-2026-09-04"], stand-in '
           "server")
def compact_before_next_turn(messages: History) -> History:
    """Runs a tool runner over ``messages`` with ``compact_before_next_turn()`` until it is done;
    returns the ``messages`` of the first request after the compaction request.

    Raises the SDK's ``BadRequestError`` where the stand-in server rejects the compaction.
    """
    import anthropic
    import httpx2

    server = StandInServer()
    client = anthropic.Anthropic(api_key="offline", base_url="http://127.0.0.1:9", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    # the messages are plain dicts of the SDK's message shape; no tools, as the runner has none to run
    settings: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "messages": messages, "tools": [],
                                "thread": False, "betas": ["compact-2026-09-04"]}
    runner = client.beta.messages.tool_runner(**settings)
    runner.compact_before_next_turn()
    runner.until_done()
    turns = [r for r in server.requests if "compaction" not in r]
    return list(turns[0]["messages"]) if turns else list(messages)
