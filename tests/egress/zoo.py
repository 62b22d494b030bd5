"""Serializers and task-record stores written for the egress tests: broken ones, each caught by
one check id, and correct ones that differ from anything the suite ships."""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

REASONING_TYPES = ("thinking", "redacted_thinking")


def _thinking(messages: list[dict[str, Any]]) -> list[str]:
    return [b["thinking"] for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "thinking"]


def _without_reasoning(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [b for b in content if b.get("type") not in REASONING_TYPES]
        out.append({**m, "content": content})
    return out


def _answer(messages: list[dict[str, Any]]) -> str:
    return " ".join(b["text"] for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
                    for b in m["content"] if b.get("type") == "text")


# ---- correct serializers, unlike any shipped example ----

def log_line(messages: list[dict[str, Any]]) -> str:
    """A log line: denylist of reasoning types, the rest as JSON inside a text line."""
    return "INFO conversation=" + json.dumps(_without_reasoning(messages))


def console_html(messages: list[dict[str, Any]]) -> str:
    """A support-console page: each text block HTML-escaped in a paragraph, tool calls named."""
    parts = []
    for m in messages:
        for b in m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]:
            if b.get("type") == "text":
                parts.append(f"<p class={m['role']}>{html.escape(b['text'])}</p>")
            elif b.get("type") == "tool_use":
                parts.append(f"<p class=tool>{html.escape(b['name'])}</p>")
    return "<html><body>" + "".join(parts) + "</body></html>"


def browser_events(messages: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """A browser stream: only text deltas of the stream (or the answer whole), as SSE bytes, lazily."""
    if stream is None:
        yield f"data: {json.dumps({'text': _answer(messages)})}\n\n".encode()
        return
    for event in stream:
        delta = event.get("delta", {})
        if event.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
            yield f"data: {json.dumps({'text': delta['text']})}\n\n".encode()


def provider_request(messages: list[dict[str, Any]]) -> bytes:
    """A provider request body: the messages as given, inside the request."""
    return json.dumps({"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": messages}).encode()


def responses_store(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A conversation table for Responses items: reasoning items dropped, the rest kept."""
    return [i for i in items if i.get("type") != "reasoning"]


def memory_holder(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Request memory: holds everything (reasoning is allowed there)."""
    return {"held": messages}


# ---- broken serializers: the check that catches each is named in its docstring ----

def dump_all(messages: list[dict[str, Any]]) -> str:
    """no-reasoning-text and no-reasoning-ciphertext: everything as JSON."""
    return json.dumps(messages)


def json_in_string(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the thinking inside a JSON string inside a JSON field."""
    return {"answer": _answer(messages), "meta": json.dumps({"debug": json.dumps({"t": _thinking(messages)})})}


def base64_thought(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the thinking base64-encoded in an attribute."""
    return {"answer": _answer(messages), "blob": base64.b64encode("|".join(_thinking(messages)).encode()).decode()}


def gzip_dump(messages: list[dict[str, Any]]) -> bytes:
    """no-reasoning-text: a gzip of the JSON, base64url in an envelope."""
    packed = base64.urlsafe_b64encode(gzip.compress(json.dumps(messages).encode())).decode()
    return json.dumps({"answer": _answer(messages), "archive": packed}).encode()


def xz_dump(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON compressed with xz (lzma), base64 in an envelope."""
    import lzma

    return {"answer": _answer(messages), "archive": base64.b64encode(lzma.compress(json.dumps(messages).encode())).decode()}


def gzip_members(messages: list[dict[str, Any]]) -> bytes:
    """no-reasoning-text: a log of gzip members appended one by one (the answer first, the conversation next)."""
    return gzip.compress(_answer(messages).encode()) + gzip.compress(json.dumps(messages).encode())


def gzip_cut_short(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: a gzip stream flushed but not finished (a live log file's), base64 in an envelope."""
    import zlib

    packer = zlib.compressobj(wbits=31)
    packed = packer.compress(json.dumps(messages).encode()) + packer.flush(zlib.Z_SYNC_FLUSH)
    return {"answer": _answer(messages), "archive": base64.b64encode(packed).decode()}


def share_link(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the conversation as the base64url state of a share link's path."""
    state = base64.urlsafe_b64encode(json.dumps(messages).encode()).decode().rstrip("=")
    return {"answer": _answer(messages), "message": f"shared at https://chat.example.com/share/{state}"}


def base64_in_pieces(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the conversation in base64, cut in pieces of 24 characters (18 bytes, under
    a fragment) across list items: readable only joined, then decoded."""
    packed = base64.b64encode(json.dumps(messages).encode()).decode()
    return {"answer": _answer(messages), "parts": [packed[i:i + 24] for i in range(0, len(packed), 24)]}


def utf16_dump(messages: list[dict[str, Any]]) -> bytes:
    """no-reasoning-text: the JSON written as UTF-16 (a Windows event log's), beside the answer."""
    return json.dumps({"answer": _answer(messages)}).encode() + b"\n" + json.dumps(messages).encode("utf-16")


class _Slotted:
    __slots__ = ("body",)

    def __init__(self, body: str) -> None:
        self.body = body

    def __repr__(self) -> str:
        return "<record>"


def slotted_record(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON held by an object with slots whose repr says nothing of it."""
    return {"answer": _answer(messages), "record": _Slotted(json.dumps(messages))}


def code_points(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON as a list of code points (as token ids are logged)."""
    return {"answer": _answer(messages), "context": [ord(ch) for ch in json.dumps(messages)]}


def numbered_attributes(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON in pieces of 16 characters under numbered keys (flattened span attributes)."""
    text = json.dumps(messages)
    return {"answer": _answer(messages), **{f"gen_ai.context.{n}": text[i:i + 16] for n, i in enumerate(range(0, len(text), 16))}}


def lazy_context(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the messages behind a generator nested in the payload."""
    return {"answer": _answer(messages), "context": (m for m in messages)}


def base85_dump(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON base85-encoded (``base64.b85encode``) after a label glued to it."""
    return {"answer": _answer(messages), "log": "conversation=" + base64.b85encode(json.dumps(messages).encode()).decode()}


def ascii85_thought(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the thinking Ascii85-encoded (``base64.a85encode``) in an attribute."""
    return {"answer": _answer(messages), "blob": base64.a85encode("|".join(_thinking(messages)).encode()).decode()}


def base32_dump(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON in base32."""
    return {"answer": _answer(messages), "context": base64.b32encode(json.dumps(messages).encode()).decode()}


def spaced_hex(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the JSON's bytes as spaced hex (``bytes.hex(" ")``, a debug dump)."""
    return {"answer": _answer(messages), "context": json.dumps(messages).encode().hex(" ")}


def shouting_log(messages: list[dict[str, Any]]) -> str:
    """no-reasoning-text: the answer as it is, and the thinking upper-cased by the log's formatter."""
    return f"answer={_answer(messages)} note={' '.join(_thinking(messages)).upper()}"


def url_escaped(messages: list[dict[str, Any]]) -> str:
    """no-reasoning-text: the thinking in a query string."""
    return f"https://logs.invalid/ingest?answer={quote(_answer(messages))}&note={quote(' '.join(_thinking(messages)))}"


def html_escaped(messages: list[dict[str, Any]]) -> str:
    """no-reasoning-text: the thinking HTML-escaped into a collapsed details element."""
    return console_html(messages) + "".join(f"<details>{html.escape(t)}</details>" for t in _thinking(messages))


def relabelled(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """no-reasoning-text: thinking turned into a text block (signature dropped), so a filter by type misses it."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{"type": "text", "text": b["thinking"]} if b.get("type") == "thinking" else b
                       for b in content if b.get("type") != "redacted_thinking"]
        out.append({**m, "content": content})
    return out


def first_40(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: a preview of the first 40 characters of each thought."""
    return {"messages": _without_reasoning(messages), "previews": [t[:40] for t in _thinking(messages)]}


def middle_fragment(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: a 25-character piece from the middle of each thought."""
    return {"messages": _without_reasoning(messages), "tags": [t[30:55] for t in _thinking(messages)]}


def passes_stream(messages: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """no-reasoning-text: forwards every delta of the stream except signatures; each piece is shorter
    than a fragment, the text is whole only joined across events."""
    for event in stream or []:
        delta = event.get("delta", {})
        if delta.get("type") in ("thinking_delta", "text_delta"):
            yield {"event": "delta", "data": delta}


def _deltas(stream: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [e for e in stream or [] if e.get("delta", {}).get("type") in ("thinking_delta", "text_delta")]


def logs_events_as_json_lines(messages: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """no-reasoning-text: one JSON log line per delta event of the stream, kept as a list of lines
    (each piece of thinking shorter than a fragment): whole only with each line read as JSON and joined."""
    return {"answer": _answer(messages), "lines": [json.dumps({"level": "debug", "event": e}) for e in _deltas(stream)]}


def relays_bedrock_chunks(messages: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """no-reasoning-text: the stream's delta events as Bedrock's wire carries them, each event's
    JSON in base64 under ``chunk.bytes``."""
    chunks = [{"chunk": {"bytes": base64.b64encode(json.dumps(e).encode()).decode()}} for e in _deltas(stream)]
    return {"answer": _answer(messages), "events": chunks}


def keeps_breadcrumbs() -> Any:
    """Returns a serializer that strips the reasoning of the conversation it is given, but carries
    the raw records of the calls before it (breadcrumbs, an exporter's batch): a leak of other
    conversations' reasoning."""
    earlier: list[Any] = []

    def serialize(messages: list[dict[str, Any]]) -> dict[str, Any]:
        payload = {"answer": _answer(messages), "breadcrumbs": list(earlier)}
        earlier.append(messages)
        return payload

    return serialize


def logs_request_headers(messages: list[dict[str, Any]], headers: dict[str, str]) -> str:
    """no-credential: a request log line with the request's headers (the API key with them)."""
    return "INFO request headers=" + json.dumps(headers) + " conversation=" + json.dumps(_without_reasoning(messages))


def logs_masked_headers(messages: list[dict[str, Any]], headers: dict[str, str]) -> str:
    """Correct: a request log line naming the headers, their values masked."""
    return "INFO request headers=" + ",".join(sorted(headers)) + " conversation=" + json.dumps(_without_reasoning(messages))


def sampled_log(n: int) -> Any:
    """Returns a sampling logger: on its n-th, 2n-th, ... call it writes the whole conversation
    (reasoning included), on the other calls nothing (a deterministic 1-in-n sampler)."""
    calls = [0]

    def log(messages: list[dict[str, Any]]) -> str:
        calls[0] += 1
        return json.dumps(messages) if calls[0] % n == 0 else ""

    return log


def sampled_answer_log(n: int) -> Any:
    """Returns a correct sampling logger: on its n-th, 2n-th, ... call it writes what ``log_line``
    writes (the answer, no reasoning), on the other calls nothing."""
    calls = [0]

    def log(messages: Any) -> str:
        calls[0] += 1
        return log_line(messages) if calls[0] % n == 0 else ""

    return log


every_third_call = sampled_log(3)  # (module attributes: a worker counts its own calls)
never_writes = sampled_log(10_000)


def interleaves_reasoning(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """no-reasoning-text: a UI message stream (Vercel's parts) of two reasoning parts whose deltas,
    each shorter than a fragment, alternate (two sub-agents): each is whole only joined by its id."""
    first = (_thinking(messages) or [""])[0]
    other = ("The other sub-agent checks the remaining ledger entries. " * 20)[:len(first)]
    events: list[dict[str, Any]] = [{"type": "start"}, {"type": "reasoning-start", "id": "r1"},
                                    {"type": "reasoning-start", "id": "r2"}]
    for i in range(0, len(first), 13):
        events += [{"type": "reasoning-delta", "id": "r1", "delta": first[i:i + 13]},
                   {"type": "reasoning-delta", "id": "r2", "delta": other[i:i + 13]}]
    return [*events, {"type": "text-start", "id": "t1"}, {"type": "text-delta", "id": "t1", "delta": _answer(messages)},
            {"type": "text-end", "id": "t1"}, {"type": "finish"}]


def keeps_signature(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """no-reasoning-ciphertext: drops the thinking text, keeps the signature and redacted data."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{"type": "thinking", "thinking": "", "signature": b["signature"]} if b.get("type") == "thinking"
                       else b for b in content]
        out.append({**m, "content": content})
    return out


def drops_answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """answer-kept: only the tool calls reach the payload."""
    return {"tools": [b for m in messages if isinstance(m["content"], list) for b in m["content"]
                      if b.get("type") in ("tool_use", "tool_result")]}


def truncates_answer(messages: list[dict[str, Any]]) -> str:
    """answer-kept: the answer cut to 50 characters."""
    return _answer(messages)[:50]


def keeps_thinking_without_tools(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """no-reasoning-text on text-only replies: reasoning dropped only when the reply has a tool call."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list) and any(b.get("type") == "tool_use" for b in content):
            content = [b for b in content if b.get("type") not in REASONING_TYPES]
        out.append({**m, "content": content})
    return out


def raises(messages: list[dict[str, Any]]) -> str:
    """call-completes: raises, with a thought in its message (which must not reach a record)."""
    raise ValueError(f"cannot serialize {_thinking(messages)[:1]}")


def hangs(messages: list[dict[str, Any]]) -> str:
    """call-completes: never returns."""
    time.sleep(30)
    return ""


def strips_in_place(messages: list[dict[str, Any]]) -> str:
    """input-unmutated: removes the reasoning from the caller's own messages."""
    for m in messages:
        if isinstance(m["content"], list):
            m["content"][:] = [b for b in m["content"] if b.get("type") not in REASONING_TYPES]
    return json.dumps(messages)


def request_trims_thinking(messages: list[dict[str, Any]]) -> str:
    """reasoning-byte-identical: the thinking text whitespace-stripped on its way to the provider."""
    out = []
    for m in messages:
        content = m["content"]
        if isinstance(content, list):
            content = [{**b, "thinking": b["thinking"].rstrip(".")} if b.get("type") == "thinking" else b for b in content]
        out.append({**m, "content": content})
    return json.dumps({"messages": out})


def request_drops_redacted(messages: list[dict[str, Any]]) -> str:
    """reasoning-byte-identical: redacted thinking left out of the request."""
    return json.dumps({"messages": [{**m, "content": [b for b in m["content"] if b.get("type") != "redacted_thinking"]}
                                    if isinstance(m["content"], list) else m for m in messages]})


# ---- task-record stores ----

_KEY = hashlib.sha256(b"egress-test-key").digest()


def _keystream(nonce: bytes, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(_KEY + nonce + counter.to_bytes(8, "big")).digest()
        counter += 1
    return out[:length]


def _seal(data: bytes) -> bytes:
    nonce = os.urandom(16)
    return nonce + bytes(a ^ b for a, b in zip(data, _keystream(nonce, len(data))))


def _open(blob: bytes) -> bytes:
    nonce, body = blob[:16], blob[16:]
    return bytes(a ^ b for a, b in zip(body, _keystream(nonce, len(body))))


class FileStore:
    """A task record in files of a shared folder, sealed at rest, deleted at the task's end, and an
    export that carries the answers only. ``seal``/``delete``/``export_all`` switch the defects on."""

    seal = True
    delete = True
    export_all = False

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)

    def _file(self, task_id: str) -> Path:
        return self.folder / f"{hashlib.sha256(task_id.encode()).hexdigest()[:16]}.rec"

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        data = json.dumps(messages).encode()
        self._file(task_id).write_bytes(_seal(data) if self.seal else data)

    def get(self, task_id: str) -> list[dict[str, Any]] | None:
        path = self._file(task_id)
        if not path.exists():
            return None
        blob = path.read_bytes()
        return json.loads(_open(blob) if self.seal else blob)

    def finish(self, task_id: str) -> None:
        if self.delete:
            self._file(task_id).unlink(missing_ok=True)

    def raw(self) -> bytes:
        return b"".join(p.read_bytes() for p in sorted(self.folder.glob("*.rec")))

    def export(self) -> Any:
        rows: list[Any] = []
        for path in sorted(self.folder.glob("*.rec")):
            blob = path.read_bytes()
            messages = json.loads(_open(blob) if self.seal else blob)
            rows.append(messages if self.export_all else _answer(messages))
        return rows


class PlainFileStore(FileStore):
    """encrypted-at-rest: the record in plain JSON."""

    seal = False


class Base64FileStore(FileStore):
    """encrypted-at-rest: base64 is an encoding, not encryption."""

    seal = False

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        self._file(task_id).write_bytes(base64.b64encode(json.dumps(messages).encode()))

    def get(self, task_id: str) -> list[dict[str, Any]] | None:
        path = self._file(task_id)
        return json.loads(base64.b64decode(path.read_bytes())) if path.exists() else None

    def export(self) -> Any:
        return []


class KeepsFinishedStore(FileStore):
    """forgets-finished-task: finish() leaves the record where it was."""

    delete = False


class LeakyExportStore(FileStore):
    """export-no-reasoning: the warehouse copy gets the whole record."""

    export_all = True


class ProcessMemoryStore:
    """reasoning-back-byte-identical: a dict in the process, so another worker finds nothing."""

    def __init__(self) -> None:
        self.tasks: dict[str, Any] = {}

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        self.tasks[task_id] = _seal(json.dumps(messages).encode())

    def get(self, task_id: str) -> Any:
        blob = self.tasks.get(task_id)
        return None if blob is None else json.loads(_open(blob))

    def finish(self, task_id: str) -> None:
        self.tasks.pop(task_id, None)

    def raw(self) -> bytes:
        return b"".join(self.tasks.values())

    def export(self) -> Any:
        return []


class RaisingGetStore(FileStore):
    """store.call-completes: get() fails."""

    def get(self, task_id: str) -> Any:
        raise RuntimeError("backend unavailable")


class ExportsFinishedStore(FileStore):
    """export-no-reasoning: finish() feeds the whole task to the warehouse, as an ETL of finished
    tasks does (what export() returns only after the task ends)."""

    def finish(self, task_id: str) -> None:
        feed = self.folder / "warehouse.feed"
        feed.write_text(json.dumps([*json.loads(feed.read_text() if feed.exists() else "[]"), self.get(task_id)]))
        super().finish(task_id)

    def export(self) -> Any:
        feed = self.folder / "warehouse.feed"
        return [*super().export(), *json.loads(feed.read_text() if feed.exists() else "[]")]


class _PlainBesideStore(FileStore):
    """A ``FileStore`` that also keeps ``.plain`` files at rest (``raw()`` shows them)."""

    def raw(self) -> bytes:
        return super().raw() + b"".join(p.read_bytes() for p in sorted(self.folder.glob("*.plain")))


class ReadThroughCacheStore(_PlainBesideStore):
    """encrypted-at-rest: get() leaves a decrypted copy at rest (a read-through cache), gone at finish()."""

    def get(self, task_id: str) -> list[dict[str, Any]] | None:
        messages = super().get(task_id)
        if messages is not None:
            self._file(task_id).with_suffix(".plain").write_text(json.dumps(messages))
        return messages

    def finish(self, task_id: str) -> None:
        self._file(task_id).with_suffix(".plain").unlink(missing_ok=True)
        super().finish(task_id)


class JournalStore(_PlainBesideStore):
    """encrypted-at-rest: a second put() keeps the version it replaces in plain text, gone at finish()."""

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        current = self.get(task_id)
        if current is not None:
            self._file(task_id).with_suffix(".plain").write_text(json.dumps(current))
        super().put(task_id, messages)

    def finish(self, task_id: str) -> None:
        self._file(task_id).with_suffix(".plain").unlink(missing_ok=True)
        super().finish(task_id)


class LeakyExportFailsAfterFinishStore(LeakyExportStore):
    """export-no-reasoning (seen after the put) and call-completes: export() fails once the task is finished."""

    def export(self) -> Any:
        if not any(self.folder.glob("*.rec")):
            raise RuntimeError("the warehouse is offline")
        return super().export()


def file_store(folder: str) -> FileStore:
    return FileStore(folder)


def plain_store(folder: str) -> FileStore:
    return PlainFileStore(folder)


def base64_store(folder: str) -> FileStore:
    return Base64FileStore(folder)


def keeps_finished_store(folder: str) -> FileStore:
    return KeepsFinishedStore(folder)


def leaky_export_store(folder: str) -> FileStore:
    return LeakyExportStore(folder)


def memory_store() -> ProcessMemoryStore:
    return ProcessMemoryStore()


def raising_store(folder: str) -> FileStore:
    return RaisingGetStore(folder)


class SqliteSealedStore:
    """Correct, unlike FileStore: sqlite (objects bound to their thread), sealed rows, the answer
    kept in clear in its own column, rows deleted with secure_delete at the task's end."""

    def __init__(self, folder: str) -> None:
        import sqlite3

        self.folder = Path(folder)
        self.db = sqlite3.connect(self.folder / "tasks.db", isolation_level=None)
        self.db.execute("PRAGMA secure_delete=ON")
        self.db.execute("CREATE TABLE IF NOT EXISTS task (id TEXT PRIMARY KEY, sealed BLOB, answer TEXT)")

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        self.db.execute("INSERT OR REPLACE INTO task VALUES (?, ?, ?)",
                        (task_id, _seal(json.dumps(messages).encode()), _answer(messages)))

    def get(self, task_id: str) -> Any:
        row = self.db.execute("SELECT sealed FROM task WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise KeyError(task_id)
        return json.loads(_open(row[0]))

    def finish(self, task_id: str) -> None:
        self.db.execute("DELETE FROM task WHERE id = ?", (task_id,))

    def raw(self) -> bytes:
        return b"".join(p.read_bytes() for p in sorted(self.folder.iterdir()))

    def export(self) -> Any:
        return [{"id": i, "answer": a} for i, a in self.db.execute("SELECT id, answer FROM task")]


def sqlite_store(folder: str) -> SqliteSealedStore:
    return SqliteSealedStore(folder)


def thought_words(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-text: the thinking as a list of its words, each shorter than a fragment."""
    return {"answer": _answer(messages), "tokens": [w for t in _thinking(messages) for w in t.split()]}


def signature_as_hex(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """no-reasoning-ciphertext: each signature's bytes re-encoded as hex."""
    return {"answer": _answer(messages), "sig": [base64.b64decode(b["signature"] + "=" * (-len(b["signature"]) % 4)).hex()
                                                 for m in messages if isinstance(m["content"], list)
                                                 for b in m["content"] if b.get("type") == "thinking"]}


def gemini_store(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Correct for Gemini contents: thought parts dropped, thought signatures stripped from the rest."""
    return [{**c, "parts": [{k: v for k, v in p.items() if k not in ("thoughtSignature", "thought_signature")}
                            for p in c["parts"] if not p.get("thought")]} for c in contents]


def langchain_text(messages: list[Any]) -> list[dict[str, Any]]:
    """Correct for LangChain messages: type, text and tool calls, nothing else."""
    return [{"type": m.type, "text": m.text, "tool_calls": getattr(m, "tool_calls", [])} for m in messages]


def request_as_is(messages: list[Any]) -> str:
    """Correct for a provider request in any format: the messages as given."""
    from conformance.egress.decode import plain

    return json.dumps({"input": plain(messages)})


def request_without_reasoning_items(items: list[dict[str, Any]]) -> str:
    """reasoning-byte-identical for Responses items: reasoning items left out of the request."""
    return json.dumps({"input": [i for i in items if i.get("type") != "reasoning"]})


# ---- streaming targets: async iterators and streaming HTTP responses served on 127.0.0.1 ----

def _ag_ui_events(messages: list[dict[str, Any]], thinking: bool) -> list[dict[str, Any]]:
    """AG-UI events of the last reply: text deltas, and (when ``thinking``) thinking deltas
    interleaved with them, 7 characters each, so only a join by event type reads either whole."""
    text = _answer(messages)
    thought = " ".join(_thinking(messages))
    out: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
                                 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
    if thinking:
        out.append({"type": "THINKING_TEXT_MESSAGE_START"})
    for i in range(0, max(len(text), len(thought) if thinking else 0), 7):
        if thinking and thought[i:i + 7]:
            out.append({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": thought[i:i + 7]})
        if text[i:i + 7]:
            out.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": text[i:i + 7]})
    out += [{"type": "TEXT_MESSAGE_END", "messageId": "m1"}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]
    return out


def _sse_app(frames: list[str]) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        for frame in frames:
            await send({"type": "http.response.body", "body": frame.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    return app


def ag_ui_http_with_thinking(messages: list[dict[str, Any]]) -> Any:
    """no-reasoning-text: an AG-UI stream over HTTP whose thinking deltas interleave with the text's."""
    from conformance.egress.adapters.local_server import open_stream

    return open_stream(_sse_app([f"data: {json.dumps(e)}\n\n" for e in _ag_ui_events(messages, True)]))


def ag_ui_http_text_only(messages: list[dict[str, Any]]) -> Any:
    """Correct: an AG-UI stream over HTTP with the text deltas only."""
    from conformance.egress.adapters.local_server import open_stream

    return open_stream(_sse_app([f"data: {json.dumps(e)}\n\n" for e in _ag_ui_events(messages, False)]))


def data_stream_http_with_reasoning(messages: list[dict[str, Any]]) -> Any:
    """no-reasoning-text: a Vercel AI data stream (``g:`` reasoning parts, ``0:`` text parts) over HTTP."""
    from conformance.egress.adapters.local_server import open_stream

    lines = [f"g:{json.dumps(t[i:i + 7])}\n" for t in _thinking(messages) for i in range(0, len(t), 7)]
    text = _answer(messages)
    lines += [f"0:{json.dumps(text[i:i + 7])}\n" for i in range(0, len(text), 7)]
    return open_stream(_sse_app(lines))


def ag_ui_http_reasoning_in_a_header(messages: list[dict[str, Any]]) -> Any:
    """no-reasoning-ciphertext: an AG-UI stream with the text deltas only, and the reasoning's
    signature handed to the browser in a response header (state a stateless backend gets back)."""
    from conformance.egress.adapters.local_server import open_stream

    signature = next(b["signature"] for m in messages if isinstance(m["content"], list) for b in m["content"]
                     if b.get("type") == "thinking")
    frames = [f"data: {json.dumps(e)}\n\n" for e in _ag_ui_events(messages, False)]
    plain = _sse_app(frames)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def with_header(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message["headers"], (b"x-reasoning-state", signature.encode())]}
            await send(message)
        await plain(scope, receive, with_header)

    return open_stream(app)


async def async_events_with_thinking(messages: list[dict[str, Any]]) -> Any:
    """no-reasoning-text: an async iterator of AG-UI events with thinking deltas."""
    for event in _ag_ui_events(messages, True):
        yield event


async def async_events_text_only(messages: list[dict[str, Any]]) -> Any:
    """Correct: an async iterator of AG-UI events with the text deltas only."""
    for event in _ag_ui_events(messages, False):
        yield event


# ---- task-record stores on the real servers ----

class SealedRedisStore:
    """Correct, unlike the shipped stores: the record sealed in one Redis string (SET), the answer
    in clear beside it, both deleted at the task's end."""

    keep_finished = False

    def __init__(self, folder: str) -> None:
        from conformance.egress.adapters.server_stores import name_of

        self.prefix = name_of(folder) + ":"

    def _client(self) -> Any:
        from conformance.egress.adapters.server_stores import redis_client

        return redis_client()

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        client = self._client()
        client.set(self.prefix + task_id, _seal(json.dumps(messages).encode()))
        client.set(self.prefix + task_id + ":answer", _answer(messages))
        client.close()

    def get(self, task_id: str) -> Any:
        client = self._client()
        blob = client.get(self.prefix + task_id)
        client.close()
        return None if blob is None else json.loads(_open(blob))

    def finish(self, task_id: str) -> None:
        if not self.keep_finished:
            client = self._client()
            client.delete(self.prefix + task_id, self.prefix + task_id + ":answer")
            client.close()

    def raw(self) -> bytes:
        from conformance.egress.adapters.server_stores import redis_raw

        return redis_raw(self.prefix)

    def export(self) -> Any:
        client = self._client()
        answers = [client.get(k) for k in client.scan_iter(match=self.prefix + "*:answer")]
        client.close()
        return answers


class KeepsFinishedRedisStore(SealedRedisStore):
    """forgets-finished-task: finish() leaves the sealed record in Redis."""

    keep_finished = True


class PlainRedisStore(SealedRedisStore):
    """encrypted-at-rest: the record as plain JSON in the Redis string."""

    def put(self, task_id: str, messages: list[dict[str, Any]]) -> None:
        client = self._client()
        client.set(self.prefix + task_id, json.dumps(messages))
        client.close()

    def get(self, task_id: str) -> Any:
        client = self._client()
        blob = client.get(self.prefix + task_id)
        client.close()
        return None if blob is None else json.loads(blob)

    def export(self) -> Any:
        return []


def sealed_redis_store(folder: str) -> SealedRedisStore:
    return SealedRedisStore(folder)


def keeps_finished_redis_store(folder: str) -> SealedRedisStore:
    return KeepsFinishedRedisStore(folder)


def plain_redis_store(folder: str) -> SealedRedisStore:
    return PlainRedisStore(folder)
