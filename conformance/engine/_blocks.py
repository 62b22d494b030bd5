"""Content blocks for generated histories: literal Anthropic Messages API shapes, built cheaply.

Every builder takes plain values already drawn (a text, an id, a size) and returns a new dict, so
the strategies in ``conformance.fuzz.strategies`` stay a grammar of tasks and this module a catalogue
of shapes. Nothing here draws or decides where a task begins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Block = dict[str, Any]

# Seed strings: long texts are one seed repeated, so a 40 KB result costs one draw, not 40 000.
SEEDS: tuple[str, ...] = (
    "ok", "Checking the config.", "exit 0", "3 files changed, 12 insertions(+)",
    "Überprüfe die Datei – fertig.", "日本語のテキストです。", "Ça marche : 42 €.", "emoji 🙂🚀 done",
    "línea\ncon salto", "tab\tand \"quotes\" and 'single'", "  leading and trailing  ", "0", "null",
    "yes", "- not a list", "key: value", "#not a comment", "Ω≈ç√∫˜µ≤≥÷", "עברית ومرحبا",
)
CACHE_CONTROL: dict[str, str] = {"type": "ephemeral"}
TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg=="
FUTURE_BLOCKS: tuple[Block, ...] = (
    {"type": "hologram_20270101", "frames": 3, "payload": {"depth": 2, "scale": 0.0, "lit": False}},
    {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
    {"type": "fallback", "reason": "unsupported_content", "original_type": "video_20270301"},
)
UNKNOWN_FIELDS: tuple[dict[str, Any], ...] = (
    {"x_trace": {"span": "a1b2", "sampled": True}},
    {"x_weights": [1, 1.0, 0, 0.0, False, None]},
    {"caller": {"type": "direct"}},
)


def big_text(seed: str, size: int) -> str:
    """Returns ``seed`` repeated to about ``size`` characters (at least the seed once)."""
    if size <= len(seed):
        return seed
    return (seed + " ") * (size // (len(seed) + 1) + 1)


def text(value: str, *, cache: bool = False, extra: dict[str, Any] | None = None) -> Block:
    """Returns a text block, with ``cache_control`` and unknown fields when asked."""
    block: Block = {"type": "text", "text": value}
    if extra:
        block.update(extra)
    if cache:
        block["cache_control"] = dict(CACHE_CONTROL)
    return block


def cited_text(value: str, document_index: int, title: str) -> Block:
    """Returns a text block citing a plain-text document of the request."""
    return {"type": "text", "text": value, "citations": [{
        "type": "char_location", "cited_text": value[:20], "document_index": document_index,
        "document_title": title, "start_char_index": 0, "end_char_index": min(20, len(value))}]}


def thinking(value: str, n: int) -> Block:
    """Returns a thinking block with a signature unique to ``n``."""
    return {"type": "thinking", "thinking": value, "signature": f"EuYB{n:08d}Kq9LNM4LNxmZjl6yAEcsUv37XhRTQ=="}


def redacted_thinking(n: int) -> Block:
    """Returns a redacted_thinking block whose data is unique to ``n``."""
    return {"type": "redacted_thinking", "data": f"EmwKAhgBEgy{n:08d}3cbFRQsxtWmR9rZ2Gh1pQ0dE5k"}


def image() -> Block:
    """Returns a one-pixel base64 PNG image block."""
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": TINY_PNG}}


def document(value: str, title: str) -> Block:
    """Returns a plain-text document block with citations enabled."""
    return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": value},
            "title": title, "citations": {"enabled": True}}


def tool_use(use_id: str, name: str, arg: int, extra: dict[str, Any] | None = None) -> Block:
    """Returns a client tool_use block."""
    block: Block = {"type": "tool_use", "id": use_id, "name": name, "input": {"arg": arg, "path": f"src/m{arg}.py"}}
    if extra:
        block.update(extra)
    return block


def tool_result(use_id: str, body: str, *, shape: int = 0, error: bool = False, cache: bool = False) -> Block:
    """Returns a tool_result: ``shape`` 0 string content, 1 a list of text blocks, 2 text and an
    image, 3 a search result with citations, 4 no content at all."""
    block: Block = {"type": "tool_result", "tool_use_id": use_id}
    if shape == 0:
        block["content"] = body
    elif shape == 1:
        block["content"] = [text(body), text("(end of output)")]
    elif shape == 2:
        block["content"] = [text(body), image()]
    elif shape == 3:
        block["content"] = [{"type": "search_result", "source": f"https://docs.example.com/{use_id[-4:]}",
                             "title": "Result", "content": [text(body)], "citations": {"enabled": True}}]
    if error:
        block["is_error"] = True
    if cache:
        block["cache_control"] = dict(CACHE_CONTROL)
    return block


@dataclass(frozen=True)
class ServerKind:
    """A server tool kind beyond the four built in: the tool's name, its result block's type, and
    the type of its use block (``server_tool_use`` unless a made-up kind brings its own)."""

    name: str
    result_type: str
    use_type: str = "server_tool_use"


# Kinds the provider added after the first four (and the suite named late), then made-up name parts.
LATER_SERVER_KINDS: tuple[ServerKind, ...] = (
    ServerKind("tool_search_tool_regex", "tool_search_tool_result"),
    ServerKind("tool_search_tool_bm25", "tool_search_tool_result"),
    ServerKind("bash_code_execution", "bash_code_execution_tool_result"),
    ServerKind("text_editor_code_execution", "text_editor_code_execution_tool_result"),
)
MADE_UP_STEMS: tuple[str, ...] = ("orrery", "ledger", "radar", "atlas", "sonar", "quarry", "vault", "prism")
MADE_UP_ACTIONS: tuple[str, ...] = ("lookup", "scan", "audit", "probe", "index", "render", "sync", "trace")


def made_up_kind(stem: str, action: str, version: int, own_use_type: bool) -> ServerKind:
    """Returns a server tool kind no one has named: ``<stem>_<action>_<version>`` and its
    ``*_tool_result``; with ``own_use_type`` its use block is a ``*_tool_use`` of its own too."""
    name = f"{stem}_{action}_{version}"
    return ServerKind(name, f"{name}_tool_result", f"{stem}_tool_use" if own_use_type else "server_tool_use")


def server_use(use_id: str, kind: int | ServerKind, query: str) -> Block:
    """Returns a server-run tool use: ``kind`` 0 web search, 1 web fetch, 2 code execution, 3 MCP,
    or a ``ServerKind``."""
    if isinstance(kind, ServerKind):
        return {"type": kind.use_type, "id": use_id, "name": kind.name, "input": {"query": query}}
    if kind == 3:
        return {"type": "mcp_tool_use", "id": use_id, "name": "lookup", "server_name": "docs",
                "input": {"q": query}}
    name = ("web_search", "web_fetch", "code_execution")[kind]
    return {"type": "server_tool_use", "id": use_id, "name": name, "input": {"query": query}}


def server_result(use_id: str, kind: int | ServerKind, body: str) -> Block:
    """Returns the result block of a server-run tool use of the same ``kind``."""
    if isinstance(kind, ServerKind):
        stem = kind.result_type.removesuffix("_tool_result")
        return {"type": kind.result_type, "tool_use_id": use_id, "content": {
            "type": f"{stem}_result", "output": body, "encrypted_content": f"Eq{use_id[-8:]}Zm9vYmFyYmF6cXV4"}}
    if kind == 0:
        return {"type": "web_search_tool_result", "tool_use_id": use_id, "content": [
            {"type": "web_search_result", "url": "https://example.com/a", "title": body[:40],
             "encrypted_content": f"Emw{use_id[-6:]}KAhgB0pedqlcFtbZZ555uyOLrrCXj", "page_age": None}]}
    if kind == 1:
        return {"type": "web_fetch_tool_result", "tool_use_id": use_id, "content": {
            "type": "web_fetch_result", "url": "https://example.com/b",
            "content": document(body, "page")}}
    if kind == 2:
        return {"type": "code_execution_tool_result", "tool_use_id": use_id, "content": {
            "type": "code_execution_result", "stdout": body, "stderr": "", "return_code": 0}}
    return {"type": "mcp_tool_result", "tool_use_id": use_id, "is_error": False, "content": [text(body)]}


def compaction(summary: str, *, encrypted: int = 0, block_id: str | None = None) -> Block:
    """Returns a compaction block holding a summary of earlier turns: ``encrypted`` 0 plain, 1 with
    ``encrypted_content`` and ``signature`` (as the provider returns it), 2 failed (null content);
    with ``block_id``, an ``id`` field too (compaction blocks carry none today)."""
    block: Block = {"type": "compaction", "content": f"Summary of the conversation so far: {summary}"}
    if encrypted == 2:
        block["content"] = None
    if encrypted:
        block["encrypted_content"] = f"EqQBCkYIBRgCKkA{len(summary):04d}cmVkYWN0ZWQgY29tcGFjdGlvbg=="
        block["signature"] = f"EuYBCkQIBRgCIkB{len(summary):04d}c2lnbmVkIGNvbXBhY3Rpb24="
    if block_id is not None:
        block["id"] = block_id
    return block


BACKGROUND_NOTICES: tuple[str, ...] = (
    "[background task bg_{n} finished] npm run build exited 0 after 41 s",
    "<task-notification>bg_{n}: test watcher saw 2 new failures</task-notification>",
    "[background] bg_{n} is still running (3 min 12 s)",
)


def notice(template: str, n: int) -> str:
    """Returns a background-task notice, as a harness stores one: the text of a user message."""
    return template.format(n=n)
