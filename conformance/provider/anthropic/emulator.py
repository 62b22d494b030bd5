"""A local stand-in for the beta Messages API that applies the context edits as documented.

Serves ``POST /v1/messages`` and ``POST /v1/messages/count_tokens`` on 127.0.0.1 with responses
the SDK parses in strict mode. On the model families that run it, it runs the prefix check of
preserved thinking (``emulator_binding``). Named faults (``emulator_edits.FAULTS``) make it misbehave on
purpose so tests can show the analyzer catches each one. Run it with
``python -m conformance.provider.anthropic.emulator --port 8089 [--fault NAME ...]``.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import re
import sys
from collections.abc import Iterable
from typing import Any

from .. import _emulator_server as _serving
from .._emulator_server import SERVER_HEADER
from . import emulator_binding as binding
from . import emulator_edits as edits
from . import emulator_stream as streamed

_ORG_ID = "6f0c4a51-2b9e-4d1c-9a57-0d3e8c2b7f10"
# Signs the thinking this emulator writes, as the real API signs its own; not a credential.
_THINKING_KEY = b"context-conformance emulator thinking signature"
# How a user request asks for a tool call by name, e.g. the `search` tool with {"query": "x"}.
_CALL = re.compile(r"the `(\w+)` tool with (\{[^{}]*\})")
_WORDS = ("ant", "bee", "cow", "elk", "fox", "gnu", "hen", "owl")  # three letters: one token each
INTERLEAVED_BETA = "interleaved-thinking-2025-05-14"
_KNOWN_EDITS = {"clear_tool_uses_20250919": "context-management-2025-06-27",
                "clear_thinking_20251015": "context-management-2025-06-27",
                "compact_20260112": "compact-2026-01-12"}

# Where the emulator's answers knowingly differ in shape from real recordings of the API, and why.
# Keys are JSON paths as the likeness test writes them (``[]`` for any list item, ``@event`` for a
# streamed event); a difference at such a path is allowed, any other fails the test.
KNOWN_SIMPLIFICATIONS: dict[str, str] = {
    "usage.server_tool_use": "the emulator runs no server tools, so it sends no server tool counters "
                             "(real answers carry them only at times)",
    "@message_start.message.usage.server_tool_use": "as usage.server_tool_use",
}
# Features real recordings exercise that the emulator does not implement, and why.
UNEMULATED_FEATURES: dict[str, str] = {
    "memory_20250818": "the memory tool is a client tool with a server-side schema; the emulator has no "
                       "server-side tool types, and its answers to requests without context management "
                       "are out of scope",
}


class ApiError(Exception):
    """An API error answer: HTTP status, error type, message and optional ``details.error_code``."""

    def __init__(self, status: int, kind: str, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.code = status, kind, message, code

    def body(self, request_id: str) -> dict[str, Any]:
        """Returns the JSON error body the API sends."""
        error: dict[str, Any] = {"type": self.kind, "message": self.message}
        if self.code:
            error["details"] = {"error_code": self.code}
        return {"type": "error", "error": error, "request_id": request_id}


def _bad(message: str, code: str | None = None) -> ApiError:
    return ApiError(400, "invalid_request_error", message, code)


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else content or []


def sign(thinking: str) -> str:
    """Returns the signature this emulator gives a thinking text (an HMAC under its own key)."""
    return "emu-hmac-" + hmac.new(_THINKING_KEY, thinking.encode(), hashlib.sha256).hexdigest()[:40]


def check_signatures(messages: list[dict[str, Any]]) -> None:
    """Returns None when every thinking block is one this emulator signed; raises ``ApiError`` like the API."""
    for m_index, message in enumerate(messages):
        for b_index, block in enumerate(_blocks(message)):
            kind = block.get("type")
            signature, text = str(block.get("signature", "")), str(block.get("thinking", ""))
            if kind == "thinking" and not hmac.compare_digest(signature, sign(text)) and binding.birth(
                    signature, text) is None:
                raise _bad(f"messages.{m_index}.content.{b_index}: Invalid `signature` in `thinking` block")
            if kind == "redacted_thinking":
                raise _bad(f"messages.{m_index}.content.{b_index}: Invalid `data` in `redacted_thinking` block")


def validate(body: dict[str, Any], betas: set[str], faults: set[str], counting: bool) -> None:
    """Returns None for a request the API accepts; raises ``ApiError`` like the API would."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _bad("messages: field required")
    check_signatures(messages)
    if body.get("compaction") is not None:
        if "compact-2026-09-04" not in betas:
            raise _bad("compaction: Extra inputs are not permitted")
        if body.get("context_management") is not None:
            raise _bad("compaction: cannot be combined with context_management")
    cm = body.get("context_management")
    if cm is not None:
        edit_list = cm.get("edits") or []
        for index, edit in enumerate(edit_list):
            beta = _KNOWN_EDITS.get(edit.get("type"))
            if beta is None:
                raise _bad(f"context_management.edits.{index}.type: unknown edit type")
            if beta not in betas:
                raise _bad("context_management: Extra inputs are not permitted")
            if edit["type"] == "clear_thinking_20251015":
                if index != 0:
                    raise _bad("context_management.edits: clear_thinking_20251015 must be listed first")
                if (body.get("thinking") or {}).get("type") not in ("enabled", "adaptive"):
                    raise _bad("`clear_thinking_20251015` strategy requires `thinking` to be enabled or adaptive")
                keep = edit.get("keep", {})
                if isinstance(keep, dict) and keep.get("type") == "thinking_turns" and keep.get("value", 0) <= 0:
                    raise _bad(f"context_management.edits.{index}.keep.value: must be greater than 0")
            if edit["type"] == "compact_20260112" and (edit.get("trigger") or {}).get("value", 150000) < 50000:
                raise _bad(f"context_management.edits.{index}.trigger.value: must be at least 50000")
    for index, message in enumerate(messages[:-1]):
        if message.get("role") != "assistant":
            continue
        ids = [b["id"] for b in _blocks(message) if b.get("type") == "tool_use"]
        answered = {b.get("tool_use_id") for b in _blocks(messages[index + 1]) if b.get("type") == "tool_result"}
        missing = [i for i in ids if i not in answered]
        if missing:
            raise _bad(f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                       f"immediately after: {', '.join(missing)}.")
    last = messages[-1]
    results = {b.get("tool_use_id") for b in _blocks(last)}
    open_call = last.get("role") == "assistant" and any(
        b.get("type") == "tool_use" or (b.get("type") in ("server_tool_use", "mcp_tool_use") and b.get("id") not in results)
        for b in _blocks(last))
    if (body.get("compaction") is not None and not counting and open_call
            and "compact-open-tool-call" not in faults):
        raise _bad("The compaction request ends on an `assistant` turn that is not finished.",
                   "compaction_incomplete_turn")


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _cache_creation() -> dict[str, int]:
    return {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}


def _iteration(kind: str, tokens_in: int, tokens_out: int) -> dict[str, Any]:
    return {"type": kind, "input_tokens": tokens_in, "output_tokens": tokens_out,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation": _cache_creation()}


def _is_request(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and any(b.get("type") != "tool_result" for b in _blocks(message))


def next_call(body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Returns the next tool call the latest user request asks for by name, or None when all were made."""
    messages = body["messages"]
    opener = max((i for i, m in enumerate(messages) if _is_request(m)), default=None)
    if opener is None:
        return None
    text = " ".join(b.get("text", "") for b in _blocks(messages[opener]) if b.get("type") == "text")
    tools = {t.get("name") for t in body.get("tools") or []}
    calls = []
    for name, arguments in _CALL.findall(text):
        try:
            calls.append((name, json.loads(arguments)))
        except ValueError:
            continue
    calls = [c for c in calls if c[0] in tools]
    made = sum(1 for m in messages[opener + 1:] if m.get("role") == "assistant"
               for b in _blocks(m) if b.get("type") == "tool_use")
    return calls[made] if made < len(calls) else None


def deliberation(body: dict[str, Any], digest: str, divisor: int = 1) -> str:
    """Returns the emulator's thinking text: twice as long for each user request in the conversation."""
    requests = sum(1 for m in body["messages"] if _is_request(m))
    words = 250 * 2 ** min(max(requests - 1, 0), 4) // divisor
    filler = " ".join(_WORDS[(i * 5 + int(digest[:2], 16)) % len(_WORDS)] for i in range(words))
    return f"Emulator deliberation {digest[:16]}: {filler}"


def create(body: dict[str, Any], betas: set[str], faults: set[str], digest: str,
           checked: binding.Result | None = None) -> dict[str, Any]:
    """Returns the JSON body of a ``/v1/messages`` answer for an accepted request; ``checked`` is the
    request's prefix check (the thinking blocks it dropped are not read, and the answer lists them
    when the binding beta header was sent)."""
    sent = body
    if checked is not None and checked.dropped:
        body = {**body, "messages": binding.without(body["messages"], checked.dropped)}
    outcome = edits.apply(body, faults)
    summary = f"Summary of {len(body['messages'])} earlier messages (emulator {digest[:8]})."
    content: list[dict[str, Any]] = []
    iterations: list[dict[str, Any]] = []
    stop_reason = "end_turn"
    tokens_in = outcome.final_tokens
    if body.get("compaction") is not None:
        content = [{"type": "compaction", "content": summary, "signature": f"emu-sig-{digest[:24]}"}]
        iterations = [_iteration("compaction", outcome.original_tokens, edits.count(summary))]
        stop_reason, tokens_in = "compaction", 0
    else:
        pause = False
        if outcome.compacted:
            content.append({"type": "compaction", "content": summary})
            iterations.append(_iteration("compaction", outcome.original_tokens, edits.count(summary)))
            tokens_in = edits.count(summary) + 8
            pause = any(e.get("pause_after_compaction") for e in (body.get("context_management") or {})["edits"]
                        if e["type"] == "compact_20260112")
        if pause:
            stop_reason = "compaction"
        else:
            # Thinking comes at the start of a turn (after a user request); after tool results only with
            # the interleaved-thinking beta, and shorter.
            starts_turn = _is_request(body["messages"][-1])
            if (body.get("thinking") or {}).get("type") in ("enabled", "adaptive") and (
                    starts_turn or INTERLEAVED_BETA in betas):
                thought = deliberation(body, digest, 1 if starts_turn else 4)
                signature = sign(thought)
                if binding.runs_check(str(body.get("model", ""))) or "prefix-check-every-model" in faults:
                    # bound to the request as the client sent it
                    turn = [*sent["messages"], {"role": "assistant", "content": content}]
                    signature = binding.sign(thought, binding.prefix(sent, turn, len(turn) - 1, len(content)))
                content.append({"type": "thinking", "signature": signature, "thinking": thought})
            call = next_call(body)
            if call is not None:
                content.append({"type": "tool_use", "id": f"toolu_emu_{digest[:20]}", "name": call[0],
                                "input": call[1]})
                stop_reason = "tool_use"
            else:
                content.append({"type": "text", "text": "Emulator reply: the request was received."})
            iterations.append(_iteration("message", tokens_in, 12))
    if "unknown-block-type" in faults and (body.get("context_management") or body.get("compaction")):
        content.append({"type": "context_note", "note": "not a documented block type"})
    # Top-level usage covers the last pass only; usage.iterations lists every pass (as real answers do).
    usage: dict[str, Any] = {"input_tokens": tokens_in, "output_tokens": 0 if stop_reason == "compaction" else 12,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                             "cache_creation": _cache_creation(), "service_tier": "standard", "inference_geo": "global"}
    if betas & {"compact-2026-01-12", "compact-2026-09-04"}:
        usage["iterations"] = iterations
    answer: dict[str, Any] = {"id": f"msg_emu_{digest[:20]}", "type": "message", "role": "assistant",
                              "model": body.get("model", ""), "content": content, "stop_reason": stop_reason,
                              "stop_sequence": None, "stop_details": None, "usage": usage}
    if body.get("context_management") is not None:
        answer["context_management"] = {"applied_edits": outcome.applied_edits}
    if checked is not None and checked.reported:
        answer["input_transformations"] = checked.transformations()
    return answer


def prefix_check(body: dict[str, Any], betas: set[str], faults: set[str], counting: bool) -> binding.Result:
    """Returns the prefix check of the thinking the request sends back (``emulator_binding``); raises
    ``ApiError`` with the documented 400 when it fails under ``error``. Token counting runs the same check."""
    every = False
    if "edits-invalidate-thinking" in faults and not counting:
        outcome = edits.apply(body, faults)
        every = bool(outcome.applied_edits) or outcome.compacted
    checked = binding.check(body, betas, every_block_fails=every, off="prefix-check-off" in faults,
                            every_model="prefix-check-every-model" in faults)
    if checked.error is not None:
        raise _bad(checked.error)
    return checked


def count_tokens(body: dict[str, Any], faults: set[str]) -> dict[str, Any]:
    """Returns the JSON body of a ``/v1/messages/count_tokens`` answer (clearing edits, no compaction)."""
    outcome = edits.apply(body, faults, compact=False)
    answer: dict[str, Any] = {"input_tokens": outcome.final_tokens}
    if "count-tokens-ignores-edits" in faults:
        answer["input_tokens"] = outcome.original_tokens
    if body.get("context_management") is not None:
        answer["context_management"] = {"original_input_tokens": outcome.original_tokens}
    return answer


def server_name(faults: Iterable[str]) -> str:
    """Returns the name the emulator reports in ``x-conformance-server``: ``emulator[+fault...]``."""
    return _serving.server_name("emulator", faults)


class _Handler(_serving.QuietHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        digest = _digest(raw)
        request_id = f"req_emu_{digest[:24]}"
        faults = self.server.faults
        try:
            if self.path.split("?")[0] not in ("/v1/messages", "/v1/messages/count_tokens"):
                raise ApiError(404, "not_found_error", f"Not found: {self.path}")
            if not (self.headers.get("authorization", "").startswith("Bearer ") or self.headers.get("x-api-key")):
                raise ApiError(401, "authentication_error", "x-api-key header is required")
            try:
                body = json.loads(raw)
            except ValueError:
                raise _bad("request body is not valid JSON") from None
            betas = {b.strip() for b in self.headers.get("anthropic-beta", "").split(",") if b.strip()}
            counting = self.path.startswith("/v1/messages/count_tokens")
            if "overloaded" in faults and not counting:
                raise ApiError(529, "overloaded_error", "Overloaded")
            validate(body, betas, faults, counting)
            checked = prefix_check(body, betas, faults, counting)
            status, answer = 200, count_tokens(body, faults) if counting else create(body, betas, faults, digest, checked)
        except ApiError as exc:
            status, answer = exc.status, exc.body(request_id)
        if status == 200 and not counting and body.get("stream") is True:
            stream = streamed.events(answer, on_demand=body.get("compaction") is not None)
            self._send(status, answer, request_id, streamed.encode(stream))
            return
        self._send(status, answer, request_id)

    def _send(self, status: int, answer: dict[str, Any], request_id: str, events: bytes | None = None) -> None:
        payload = json.dumps(answer).encode() if events is None else events
        gzipped = "gzip" in self.headers.get("accept-encoding", "")
        if gzipped:
            payload = gzip.compress(payload, mtime=0)
        self.send_response(status)
        self.send_header("content-type", "application/json" if events is None else "text/event-stream; charset=utf-8")
        self.send_header("content-length", str(len(payload)))
        if gzipped:
            self.send_header("content-encoding", "gzip")
        self.send_header("request-id", request_id)
        self.send_header("anthropic-organization-id", _ORG_ID)
        self.send_header("cf-ray", f"{request_id[-16:]}-EMU")
        self.send_header("set-cookie", f"_session={request_id[-12:]}; Path=/; HttpOnly")
        self.send_header(SERVER_HEADER, self.server.name)
        if status == 529:
            self.send_header("x-should-retry", "true")
        self.end_headers()
        self.wfile.write(payload)


class _Server(_serving.EmulatorServer):
    pass


class Emulator(_serving.LocalEmulator):
    """A running emulator on 127.0.0.1; use as a context manager or call ``start``/``stop``.

    ``url`` is the base URL, ``http://127.0.0.1:PORT``.
    """

    def __init__(self, port: int = 0, faults: Iterable[str] = ()) -> None:
        _serving.check_faults(faults, edits.FAULTS)
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.faults = set(faults)
        self._server.name = server_name(faults)
        self._serve_in_thread()


def main(argv: list[str] | None = None) -> int:
    """Runs the emulator in the foreground until interrupted; returns the exit code."""
    return _serving.serve_main(argv, prog="python -m conformance.provider.anthropic.emulator", description=__doc__,
                               default_port=8089, faults=edits.FAULTS, emulator=Emulator)


if __name__ == "__main__":
    sys.exit(main())
