"""Google GenAI ``contents``, as plain dicts in the API's JSON spelling.

Field names from the ``google-genai`` SDK's pydantic types (``google.genai.types``), checked against
google-genai 3.6.1 and written as ``model_dump(mode="json", by_alias=True)`` writes them:
``Content`` (``role``: ``"user"`` / ``"model"``, ``parts``), ``Part`` (``text``, ``thought``,
``thoughtSignature``: base64 bytes, ``functionCall``, ``functionResponse``), ``FunctionCall``
(``id``, ``name``, ``args``), ``FunctionResponse`` (``id``, ``name``, ``response``: an object).

A ``thinking`` block is a part with ``thought: true`` and the signature's UTF-8 bytes as its
``thoughtSignature``; a tool result is a ``functionResponse`` named after its call, whose response
is ``{"output": ...}`` (``{"error": ...}`` when it is an error). Parts are always a list, so a
string content and one text block look alike: an unchanged one comes back as it was given.
Output may also use the SDK's snake_case keys or its ``Content`` objects.
Not carried: redacted reasoning, tool results with content blocks or without a call in the history,
an ``is_error: false`` flag, media, server tools, cache or citation fields.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .base import Block, Format, FormatError, History, require, shape_reason

TITLE = "Google GenAI contents"
_TEXT = frozenset({"text"})
CARRIED = {
    "user": {"text": _TEXT, "tool_result": frozenset({"tool_use_id", "content", "is_error"})},
    "assistant": {"text": _TEXT, "tool_use": frozenset({"id", "name", "input"}),
                  "thinking": frozenset({"thinking", "signature"})},
}
_ROLE = {"user": "user", "assistant": "model"}


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as GenAI contents, or None."""
    for i, message in enumerate(history):
        for b in message["content"] if isinstance(message.get("content"), list) else []:
            if isinstance(b, dict) and b.get("type") == "redacted_thinking":
                return f"redacted_thinking block (message {i}): GenAI parts carry no redacted reasoning"
    found = shape_reason(history, CARRIED, TITLE)
    if found:
        return found
    names = _call_names(history)
    for i, message in enumerate(history):
        content = message["content"]
        for b in content if isinstance(content, list) else []:
            if b["type"] != "tool_result":
                continue
            if not isinstance(b.get("content"), str):
                return f"a tool result with content blocks or none (message {i}): a response here is one object"
            if b.get("is_error", True) is not True:
                return f"an is_error flag that is not true (message {i}): a response is output or error"
            if b["tool_use_id"] not in names:
                return (f"a tool result whose call is not in the history (message {i}): "
                        "a functionResponse needs its name")
    return None


def _call_names(history: History) -> dict[str, str]:
    return {b["id"]: b["name"] for m in history if isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}


def _part(b: Block, names: dict[str, str]) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"text": b["text"]}
    if t == "thinking":
        part: dict[str, Any] = {"text": b["thinking"], "thought": True}
        if "signature" in b:
            part["thoughtSignature"] = base64.b64encode(str(b["signature"]).encode("utf-8")).decode("ascii")
        return part
    if t == "tool_use":
        return {"functionCall": {"id": b["id"], "name": b["name"], "args": b["input"]}}
    key = "error" if b.get("is_error") else "output"
    return {"functionResponse": {"id": b["tool_use_id"], "name": names[b["tool_use_id"]],
                                 "response": {key: b["content"]}}}


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns ``history`` as GenAI contents."""
    names = _call_names(history)
    return [{"role": _ROLE[m["role"]],
             "parts": [_part(b, names) for b in ([{"type": "text", "text": m["content"]}]
                                                 if isinstance(m["content"], str) else m["content"])]}
            for m in history]


_SNAKE = {"function_call": "functionCall", "function_response": "functionResponse",
          "thought_signature": "thoughtSignature"}


def _block(part: Any, where: str) -> Block:
    require(isinstance(part, dict), f"{where}: a part is not a dict")
    part = {_SNAKE.get(k, k): v for k, v in part.items()}  # the SDK takes either spelling in dicts
    try:
        if "functionCall" in part:
            call = part["functionCall"]
            return {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call.get("args", {})}
        if "functionResponse" in part:
            response = part["functionResponse"]["response"]
            block: Block = {"type": "tool_result", "tool_use_id": part["functionResponse"]["id"]}
            if "error" in response:
                return {**block, "content": response["error"], "is_error": True}
            return {**block, "content": response["output"]}
        if part.get("thought"):
            thinking: Block = {"type": "thinking", "thinking": part["text"]}
            if "thoughtSignature" in part:
                thinking["signature"] = base64.b64decode(part["thoughtSignature"], validate=True).decode("utf-8")
            return thinking
        return {"type": "text", "text": part["text"]}
    except (KeyError, TypeError, binascii.Error, UnicodeDecodeError) as exc:
        raise FormatError(f"{where}: a malformed part ({type(exc).__name__}: {exc})") from None


def from_format(contents: list[Any]) -> History:
    """Returns GenAI contents as an Anthropic-shaped history; raises ``FormatError``."""
    roles = {v: k for k, v in _ROLE.items()}
    out: History = []
    for n, content in enumerate(contents):
        if hasattr(content, "model_dump"):  # a google.genai.types.Content
            content = content.model_dump(mode="json", by_alias=True, exclude_none=True)
        require(isinstance(content, dict) and content.get("role") in roles and isinstance(content.get("parts"), list),
                f"content {n} is not a GenAI content with a role and parts")
        out.append({"role": roles[content["role"]], "content": [_block(p, f"content {n}") for p in content["parts"]]})
    return out


def reasoning_of(content: Any) -> list[Any]:
    """Returns the text of each thought part of a GenAI content (a dict or the SDK's ``Content``)."""
    if hasattr(content, "model_dump"):
        content = content.model_dump(mode="json", by_alias=True, exclude_none=True)
    parts = content.get("parts") or [] if isinstance(content, dict) else []
    return [p.get("text") for p in parts if isinstance(p, dict) and p.get("thought")]


FORMAT = Format("google-genai", TITLE, "google-genai 3.6.1", reason, to_format, from_format,
                string_content_is_one_text_block=True, reasoning_of=reasoning_of)
