"""LangChain message objects (langchain-core), the objects LangChain's trimmers and middleware take.

Classes and fields from langchain-core's own types, checked against langchain-core 1.8.3:
``HumanMessage`` (``content``: str or a list of blocks, ``id``), ``AIMessage`` (``content``,
``tool_calls``: ``{"id", "name", "args"}``, ``id``), ``ToolMessage`` (``content``, ``tool_call_id``,
``status``: ``"success"`` / ``"error"``, ``id``).

As langchain-anthropic does, an assistant message keeps its Anthropic blocks (reasoning included) as
``content`` and lists its ``tool_use`` blocks again as ``tool_calls``; on the way back the tool
calls decide which calls remain and with what arguments. A user message of tool results becomes one
``ToolMessage`` per result and one ``HumanMessage`` per other block. Message ``id`` s name the
source message (``"3"``) or block (``"3.1"``), so pieces of one message come back as one message;
a message without such an id (a summary, say) comes back as a message of its own. Not carried:
a tool result without content or with fields besides ``content`` and ``is_error``, other message
fields, a tool use whose input is not an object.
"""

from __future__ import annotations

import re
from typing import Any

from .._text import article
from .base import Block, Format, FormatError, History, require

TITLE = "LangChain messages"
_PIECE = re.compile(r"^(\d+)(?:\.(\d+))?$")


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as LangChain messages, or None."""
    for i, message in enumerate(history):
        extra = sorted(set(message) - {"role", "content"})
        if extra:
            return f"message field {extra[0]!r} (message {i}): LangChain messages have no place for it"
        if message.get("role") not in ("user", "assistant"):
            return f"role {message.get('role')!r} (message {i}): not carried by {TITLE}"
        content = message.get("content")
        if not isinstance(content, (str, list)) or isinstance(content, list) and not all(
                isinstance(b, dict) for b in content):
            return f"content of message {i} is neither a string nor a list of blocks"
        uses = [b.get("id") for b in content if b.get("type") == "tool_use"] if isinstance(content, list) else []
        if len(set(uses)) < len(uses):
            return f"two tool uses with one id in message {i}: tool_calls are matched to their blocks by id"
        for b in content if isinstance(content, list) else []:
            if b.get("type") == "tool_use" and not (isinstance(b.get("input"), dict) and isinstance(b.get("id"), str)):
                return f"a tool_use without an id or an object input (message {i})"
            if b.get("type") == "tool_result" and message["role"] == "user":
                extra = sorted(set(b) - {"type", "tool_use_id", "content", "is_error"})
                if extra:
                    return f"field {extra[0]!r} of a tool_result: a ToolMessage has no place for it"
                if "content" not in b:
                    return f"a tool result without content (message {i}): a ToolMessage requires content"
    return None


def normalise_block(block: Block) -> Block:
    """Returns ``block`` as LangChain sees it: ``is_error: false`` is a successful ``ToolMessage``."""
    if block.get("type") == "tool_result" and block.get("is_error") is False:
        return {k: v for k, v in block.items() if k != "is_error"}
    return block


def to_format(history: History) -> list[Any]:
    """Returns ``history`` as langchain-core message objects."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: list[Any] = []
    for i, message in enumerate(history):
        content = message["content"]
        if message["role"] == "assistant":
            calls = [] if isinstance(content, str) else [
                {"id": b["id"], "name": b["name"], "args": b["input"]} for b in content if b.get("type") == "tool_use"]
            out.append(AIMessage(content=content if isinstance(content, str) else list(content),
                                 tool_calls=calls, id=str(i)))
        elif isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            for j, b in enumerate(content):
                if b.get("type") == "tool_result":
                    out.append(ToolMessage(content=b["content"], tool_call_id=b["tool_use_id"], id=f"{i}.{j}",
                                           status="error" if b.get("is_error") else "success"))
                else:
                    out.append(HumanMessage(content=[b], id=f"{i}.{j}"))
        else:
            out.append(HumanMessage(content=content if isinstance(content, str) else list(content), id=str(i)))
    return out


def _assistant(message: Any) -> dict[str, Any]:
    content, calls = message.content, list(message.tool_calls or [])
    if isinstance(content, str) and not calls:
        return {"role": "assistant", "content": content}
    by_id = {c.get("id"): c for c in calls}
    blocks: list[Block] = []
    for b in [{"type": "text", "text": content}] if isinstance(content, str) else list(content):
        require(isinstance(b, dict), "an AIMessage content item is not a block dict")
        if b.get("type") == "tool_use":
            call = by_id.pop(b.get("id"), None)
            if call is not None:
                blocks.append({**b, "name": call["name"], "input": call["args"]})
            continue
        blocks.append(dict(b))
    blocks += [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]} for c in by_id.values()]
    return {"role": "assistant", "content": blocks}


def _user_blocks(message: Any) -> list[Block] | str:
    kind = type(message).__name__
    if kind == "ToolMessage":
        block: Block = {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}
        if message.status == "error":
            block["is_error"] = True
        return [block]
    require(kind == "HumanMessage", f"{article(kind)} has no Anthropic counterpart")
    content = message.content
    return content if isinstance(content, str) else [dict(b) for b in content]


def from_format(messages: list[Any]) -> History:
    """Returns langchain-core messages as an Anthropic-shaped history; raises ``FormatError``."""
    out: History = []
    open_piece: str | None = None
    for n, message in enumerate(messages):
        require(hasattr(message, "content") and hasattr(message, "type"), f"message {n} is not a LangChain message")
        match = _PIECE.match(str(getattr(message, "id", "") or ""))
        piece = match.group(1) if match and match.group(2) is not None else None
        if type(message).__name__ == "AIMessage":
            out.append(_assistant(message))
            open_piece = None
            continue
        content = _user_blocks(message)
        if piece is not None and piece == open_piece:
            out[-1]["content"].extend(content if isinstance(content, list) else [{"type": "text", "text": content}])
            continue
        if piece is not None and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out.append({"role": "user", "content": content})
        open_piece = piece
    return out


FORMAT = Format("langchain", TITLE, "langchain-core 1.8.3", reason, to_format, from_format,
                normalise_block=normalise_block, requires="langchain_core")
__all__ = ["FORMAT", "FormatError"]
