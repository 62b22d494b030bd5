"""A local stand-in for OpenAI's Responses API that manages context as the recorded service does.

Serves ``POST /v1/responses`` (JSON, and SSE when ``stream`` is true, with the real event names and
order), ``POST /v1/responses/compact`` and ``POST /v1/responses/input_tokens`` on 127.0.0.1, keeps
``previous_response_id`` state for stored responses, and answers closely enough for the ``openai``
SDK's parsing. Named faults (``FAULTS``) make it misbehave on purpose so tests can show the judge
catches each one. Run it with ``python -m conformance.provider.openai.emulator --port 8090``.

The model is deterministic: it calls the first tool when ``tool_choice`` forces a call, else it
answers with a short text; with ``reasoning`` set, a reasoning item comes first. A compaction
item's ``encrypted_content`` is ``gAAAAA`` and base64 JSON naming what it folded: ground truth for
tests only (the judge never reads it).
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
import threading
from collections.abc import Iterable
from typing import Any

from .. import _emulator_server as _serving
from .._emulator_server import SERVER_HEADER
from . import semantics as sem

FAULTS = {
    "compacts-open-call": "threshold compaction fires in a response that ends in a function call "
                          "(the recorded service waits for the final answer)",
    "drops-kept-reasoning": "/responses/compact keeps assistant messages but drops their reasoning items",
    "truncates-live-task": "auto truncation cuts into the task in flight although a settled cut fits",
    "usage-contradicts": "usage.input_tokens contradicts what was folded or dropped",
}
_ORG = "org-emulatorOrganization0001"
_PROJECT = "proj_emulatorProject00001"
CONTEXT_EXCEEDED_MESSAGE = "Your input exceeds the context window of this model. Please adjust your input and try again."
COMPACTION_PASS_TOKENS = 320


class ApiError(Exception):
    """An API error answer: HTTP status, error type, message, param and code."""

    def __init__(self, status: int, message: str, code: str | None = None, param: str | None = None,
                 kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param, self.kind = status, message, code, param, kind

    def body(self) -> dict[str, Any]:
        """Returns the JSON error body the API sends."""
        return {"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}}


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def server_name(faults: Iterable[str]) -> str:
    """Returns the name reported in ``x-conformance-server``: ``emulator-openai[+fault...]``."""
    return _serving.server_name("emulator-openai", faults)


def _items(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if not isinstance(value, list) or not all(isinstance(i, dict) for i in value):
        raise ApiError(400, "Invalid type for 'input': expected a string or an array of input items.", param="input")
    return [dict(i) for i in value]


def ciphertext(payload: dict[str, Any]) -> str:
    """Returns the emulator's opaque compaction content for ``payload`` (Fernet-looking, base64 JSON)."""
    return "gAAAAA" + base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode()


def folded_truth(encrypted: str) -> dict[str, Any]:
    """Returns the payload an emulator compaction item carries (tests' ground truth); raises ValueError."""
    if not encrypted.startswith("gAAAAA"):
        raise ValueError("not an emulator compaction item")
    return json.loads(base64.urlsafe_b64decode(encrypted[6:].encode()))


class State:
    """Stored responses by id: the full input each saw and its output, for ``previous_response_id``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.responses: dict[str, list[dict[str, Any]]] = {}

    def history(self, response_id: str) -> list[dict[str, Any]]:
        """Returns the items a stored response leaves behind; raises ``ApiError`` for an unknown id."""
        with self.lock:
            found = self.responses.get(response_id)
        if found is None:
            raise ApiError(400, f"Previous response with id '{response_id}' not found.",
                           "previous_response_not_found", "previous_response_id")
        return [dict(i) for i in found]


def _validate(items: list[dict[str, Any]]) -> None:
    for index, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == sem.TRIGGER and index != len(items) - 1:
            raise ApiError(400, sem.TRIGGER_NOT_LAST, param=f"input[{index}]")
        if kind not in ("message", "function_call", "function_call_output", "reasoning", sem.COMPACTION, sem.TRIGGER):
            raise ApiError(400, f"Invalid value: '{kind}'.", "invalid_value", f"input[{index}].type")
    answered = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
    for item in items:
        if item.get("type") == "function_call" and item.get("call_id") not in answered:
            raise ApiError(400, f"{sem.NO_TOOL_OUTPUT} {item.get('call_id')}.", param="input")


def rendered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the items the model sees: those after the last compaction item (it stands for the rest)."""
    last = max((n for n, i in enumerate(items) if i.get("type") == sem.COMPACTION), default=-1)
    return items[last:] if last >= 0 else items


def _usage(input_tokens: int, output_tokens: int, reasoning: int = 0) -> dict[str, Any]:
    return {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": input_tokens + output_tokens}


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    tools = []
    for tool in body.get("tools") or []:
        tools.append({"type": "function", "name": tool.get("name"), "description": tool.get("description"),
                      "parameters": tool.get("parameters") or {}, "strict": bool(tool.get("strict", False))})
    return tools


def _answer(body: dict[str, Any], items: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if body.get("reasoning"):
        reasoning: dict[str, Any] = {"id": f"rs_{prefix}0", "type": "reasoning", "summary": []}
        if "reasoning.encrypted_content" in (body.get("include") or []):
            reasoning["encrypted_content"] = "emu-reasoning-" + prefix
        out.append(reasoning)
    if sem.answer_kind(body) == "function_call":
        tool = body["tools"][0]
        out.append({"id": f"fc_{prefix}1", "type": "function_call", "status": "completed",
                    "call_id": f"call_{prefix[:16]}", "name": tool["name"], "arguments": '{"path": "notes.txt"}'})
    else:
        text = f"Done: answered the last request ({len(items)} items seen)."
        out.append({"id": f"msg_{prefix}2", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]})
    return out


def _cut(items: list[dict[str, Any]], body: dict[str, Any], faults: set[str]) -> int:
    """Returns how many leading items this request drops; raises the context error when truncation is off."""
    limit = sem.window_limit(str(body.get("model")))
    if limit is None:
        return 0
    cut = sem.truncation_cut(items, limit, body.get("instructions"))
    if body.get("truncation") != "auto":
        if cut != 0:
            raise ApiError(400, CONTEXT_EXCEEDED_MESSAGE, sem.CONTEXT_EXCEEDED, "input")
        return 0
    if cut is None:
        raise ApiError(400, CONTEXT_EXCEEDED_MESSAGE, sem.CONTEXT_EXCEEDED, "input")
    if cut and "truncates-live-task" in faults:
        start = sem.live_start(items)
        if cut <= start < len(items) - 1:
            cut = start + 1
    return cut


def create(body: dict[str, Any], state: State, faults: set[str]) -> dict[str, Any]:
    """Returns the Response object for a ``/v1/responses`` request; raises ``ApiError`` like the API."""
    if not isinstance(body.get("model"), str):
        raise ApiError(400, "Missing required parameter: 'model'.", "missing_required_parameter", "model")
    own = _items(body.get("input"))
    previous = body.get("previous_response_id")
    items = (state.history(previous) if previous else []) + own
    _validate(items)
    prefix = _digest(body)[:40]
    cut = _cut(items, body, faults)
    seen = rendered(items[cut:])
    trigger = bool(items) and items[-1].get("type") == sem.TRIGGER
    output = _answer(body, seen, prefix) if not trigger else []
    input_tokens = sem.input_tokens([i for i in seen if i.get("type") != sem.TRIGGER], body.get("instructions"))
    output_tokens = sum(sem.item_tokens(o) for o in output)
    threshold = next((e.get("compact_threshold") for e in body.get("context_management") or []
                      if isinstance(e, dict) and e.get("type") == sem.COMPACTION), None)
    compacted = False
    if trigger:
        compacted = True
    elif threshold is not None and input_tokens + output_tokens >= threshold:
        ends_in_call = output[-1]["type"] == "function_call"
        compacted = not ends_in_call or "compacts-open-call" in faults
    if compacted:
        folded = [sem.fingerprint(i) for i in items if i.get("type") != sem.TRIGGER] + [
            sem.fingerprint(o) for o in output]
        output.append({"id": f"cmp_{prefix}3", "type": "compaction",
                       "encrypted_content": ciphertext({"folded": folded, "cut": cut})})
        output_tokens += COMPACTION_PASS_TOKENS
    if "usage-contradicts" in faults and (compacted or cut):
        input_tokens = max(1, threshold // 3 if compacted and threshold else input_tokens * 9 // 10 + 17)
        output_tokens = 1 if compacted else output_tokens
    reasoning_tokens = 12 if body.get("reasoning") else 0
    response = {
        "id": f"resp_{prefix}", "object": "response", "created_at": 1764547200, "status": "completed",
        "background": False, "error": None, "incomplete_details": None, "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"), "model": body["model"], "output": output,
        "parallel_tool_calls": True, "previous_response_id": previous,
        "reasoning": {"effort": (body.get("reasoning") or {}).get("effort"), "summary": None},
        "store": body.get("store", True), "temperature": 1.0, "text": {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"), "tools": _tools(body), "top_p": 1.0,
        "truncation": body.get("truncation", "disabled"),
        "usage": _usage(input_tokens, output_tokens + reasoning_tokens, reasoning_tokens),
        "metadata": {},
    }
    if response["store"]:
        with state.lock:
            state.responses[response["id"]] = items + output
    return response


def compact(body: dict[str, Any], state: State, faults: set[str]) -> dict[str, Any]:
    """Returns the CompactedResponse for a ``/v1/responses/compact`` request; raises ``ApiError``."""
    for name in ("stream", "store", "truncation", "tools"):
        if name in body:
            raise ApiError(400, f"Unknown parameter: '{name}'.", "unknown_parameter", name)
    if "model" not in body:
        raise ApiError(400, "Missing required parameter: 'model'.", "missing_required_parameter", "model")
    previous = body.get("previous_response_id")
    items = (state.history(previous) if previous else []) + _items(body.get("input"))
    _validate(items)
    prefix = _digest(body)[:40]
    kept: list[dict[str, Any]] = []
    for n, item in enumerate(items):
        if item.get("type", "message") != "message":
            continue
        content = item.get("content")
        parts = [{"type": "input_text", "text": content}] if isinstance(content, str) else [
            {"type": "input_text", "text": p.get("text", "")} for p in content or []]
        if item.get("role") == "user":
            kept.append({"id": f"msg_{prefix}{n:03d}", "type": "message", "role": "user", "status": "completed",
                         "content": parts})
        elif item.get("role") == "assistant" and "drops-kept-reasoning" in faults:
            kept.append(dict(item))  # kept with its own id; its reasoning item is not
    folded = [sem.fingerprint(i) for i in items if i.get("role") != "user" or i.get("type", "message") != "message"]
    output = kept + [{"id": f"cmp_{prefix}", "type": "compaction", "encrypted_content": ciphertext({"folded": folded})}]
    tokens_in = sem.input_tokens(rendered(items), body.get("instructions"))
    return {"id": f"resp_{prefix}", "object": "response.compaction", "created_at": 1764547200, "output": output,
            "usage": _usage(tokens_in, COMPACTION_PASS_TOKENS)}


def count(body: dict[str, Any], state: State) -> dict[str, Any]:
    """Returns the InputTokenCountResponse for ``/v1/responses/input_tokens``; raises ``ApiError``."""
    previous = body.get("previous_response_id")
    items = (state.history(previous) if previous else []) + _items(body.get("input"))
    return {"object": "response.input_tokens",
            "input_tokens": sem.input_tokens(rendered(items), body.get("instructions"))}


def _event(kind: str, number: int, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, 'sequence_number': number, **fields})}\n\n".encode()


def sse(response: dict[str, Any]) -> bytes:
    """Returns the SSE stream of a finished response, event by event as the API streams it."""
    events: list[bytes] = []
    start = {**response, "status": "in_progress", "output": [], "usage": None}
    events.append(_event("response.created", len(events), response=start))
    events.append(_event("response.in_progress", len(events), response=start))
    for index, item in enumerate(response["output"]):
        added = {**item, "status": "in_progress"} if "status" in item else dict(item)
        if item["type"] == "message":
            added["content"] = []
        elif item["type"] == "function_call":
            added["arguments"] = ""
        elif item["type"] == "compaction":  # the added event carries a shorter, provisional content
            added["encrypted_content"] = item["encrypted_content"][: max(8, len(item["encrypted_content"]) // 3)]
        events.append(_event("response.output_item.added", len(events), output_index=index, item=added))
        if item["type"] == "message":
            part = item["content"][0]
            empty = {"type": "output_text", "text": "", "annotations": []}
            common = {"item_id": item["id"], "output_index": index, "content_index": 0}
            events.append(_event("response.content_part.added", len(events), part=empty, **common))
            events.append(_event("response.output_text.delta", len(events), delta=part["text"], logprobs=[], **common))
            events.append(_event("response.output_text.done", len(events), text=part["text"], logprobs=[], **common))
            events.append(_event("response.content_part.done", len(events),
                                 part={"type": "output_text", "text": part["text"], "annotations": []}, **common))
        elif item["type"] == "function_call":
            common = {"item_id": item["id"], "output_index": index}
            events.append(_event("response.function_call_arguments.delta", len(events), delta=item["arguments"], **common))
            events.append(_event("response.function_call_arguments.done", len(events), arguments=item["arguments"],
                                 name=item["name"], **common))
        events.append(_event("response.output_item.done", len(events), output_index=index, item=item))
    events.append(_event("response.completed", len(events), response=response))
    return b"".join(events)


class _Handler(_serving.QuietHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        path = self.path.split("?")[0]
        stream = False
        try:
            if not self.headers.get("authorization", "").startswith("Bearer "):
                raise ApiError(401, "You didn't provide an API key.", kind="invalid_request_error")
            try:
                body = json.loads(raw)
            except ValueError:
                raise ApiError(400, "We could not parse the JSON body of your request.") from None
            if path == "/v1/responses":
                stream = bool(body.get("stream"))
                answer = create(body, self.server.state, self.server.faults)
            elif path == "/v1/responses/compact":
                answer = compact(body, self.server.state, self.server.faults)
            elif path == "/v1/responses/input_tokens":
                answer = count(body, self.server.state)
            else:
                raise ApiError(404, f"Invalid URL (POST {path})")
            status = 200
        except ApiError as exc:
            status, answer, stream = exc.status, exc.body(), False
        payload = sse(answer) if stream else json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("content-type", "text/event-stream; charset=utf-8" if stream else "application/json")
        self.send_header("content-length", str(len(payload)))
        self.send_header("openai-organization", _ORG)
        self.send_header("openai-project", _PROJECT)
        self.send_header("openai-processing-ms", "1")
        self.send_header("x-request-id", f"req_{_digest(raw.decode(errors='replace'))[:32]}")
        self.send_header("set-cookie", "__cf_bm=emulator; path=/; HttpOnly")
        self.send_header(SERVER_HEADER, self.server.name)
        self.end_headers()
        self.wfile.write(payload)


class _Server(_serving.EmulatorServer):
    state: State


class Emulator(_serving.LocalEmulator):
    """A running emulator on 127.0.0.1; use as a context manager or call ``start``/``stop``.

    ``url`` is the base URL the SDK takes, ``http://127.0.0.1:PORT/v1``.
    """

    url_path = "/v1"

    def __init__(self, port: int = 0, faults: Iterable[str] = ()) -> None:
        _serving.check_faults(faults, FAULTS)
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.faults = set(faults)
        self._server.name = server_name(faults)
        self._server.state = State()
        self._serve_in_thread()


def main(argv: list[str] | None = None) -> int:
    """Runs the emulator in the foreground until interrupted; returns the exit code."""
    return _serving.serve_main(argv, prog="python -m conformance.provider.openai.emulator", description=__doc__,
                               default_port=8090, faults=FAULTS, emulator=Emulator)


if __name__ == "__main__":
    sys.exit(main())
