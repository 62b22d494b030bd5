"""The egress catalog: stable ids and levels, each check a small pure function of a conversation,
a surface and what a serializer did with it (a store's checks live in ``store``).

A check returns the lines of its violations (empty when it holds). No line carries a canary's
text: a finding names the canary's id, kind, length and hash and where it was found.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine.results import Level
from ..engine.transcript import canonical
from .canaries import CIPHERTEXT, CREDENTIAL, REASONING_TEXT, Canary, Finding, find_in
from .conversations import Conversation
from .decode import plain, texts
from .surfaces import BYTE_IDENTICAL, FORBIDDEN, Surface


@dataclass(frozen=True)
class Served:
    """What a serializer did with one conversation: its payload (made plain) or its failure."""

    payload: Any = None
    error: str | None = None  # one line: raised, hung, or the payload could not be read
    mutated: bool = False
    found: list[tuple[str, str]] = field(default_factory=list)  # every readable text of the payload
    whole: bool = True  # the payload was read whole (not larger than the search reads)

    @property
    def returned(self) -> bool:
        """Returns whether the serializer returned a payload."""
        return self.error is None


@dataclass(frozen=True)
class Check:
    """One entry of the egress catalog."""

    id: str
    level: Level
    title: str
    applies: Callable[[Conversation, Surface], bool]
    check: Callable[[Conversation, Surface, Served], list[str]]
    needs_payload: bool = True
    surfaces: str = ""  # the surfaces it applies to, in words (for the docs)
    needs_writing: bool = False  # its pass says nothing of a call that wrote nothing (a sampler's skipped call)
    reads_written: bool = False  # judged on the calls that wrote something: one that wrote nothing says nothing of it


def wrote_nothing(served: Served) -> bool:
    """Returns whether the payload holds no text but blanks and keys (``None``, ``""``, ``b""``, an
    empty list, ``{"spans": []}``): the call wrote nothing a leak could be looked for in."""
    return not any(text.strip() for where, text in served.found if not where.endswith(".<key>"))


def _forbidden(conversation: Conversation, surface: Surface) -> bool:
    return surface.reasoning == FORBIDDEN


def leaks(served: Served, canaries: list[Canary]) -> list[Finding]:
    """Returns where each of ``canaries`` (whole or a fragment) turned up in the payload."""
    return find_in(served.found, canaries)


NOT_READ_WHOLE = "the payload is larger than the search reads, so it cannot be judged free of reasoning"


def _no_reasoning_text(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    found = [f.describe() for f in leaks(served, conversation.secrets(REASONING_TEXT))]
    return found or ([] if served.whole else [NOT_READ_WHOLE])


def _no_ciphertext(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    found = [f.describe() for f in leaks(served, conversation.secrets(CIPHERTEXT))]
    return found or ([] if served.whole else [NOT_READ_WHOLE])


def _no_credential(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    found = [f.describe() for f in leaks(served, [CREDENTIAL])]
    return found or ([] if served.whole else [NOT_READ_WHOLE.replace("free of reasoning", "free of the credential")])


def _answer_kept(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    kept = {f.canary for f in find_in(served.found, conversation.of(frozenset({"answer"})), fragments=False)}
    return [f"the answer (canary {c.id}, sha256 {c.digest}, {len(c.value)} chars) is not in the payload whole"
            for c in conversation.of(frozenset({"answer"})) if c.id not in kept]


def _has_answer(conversation: Conversation, surface: Surface) -> bool:
    return bool(conversation.of(frozenset({"answer"})))


def reasoning_units(conversation: Conversation) -> Iterator[tuple[str, Any]]:
    """Yields ``(where, unit)`` for each block, part or item of the input that holds reasoning
    (a reasoning or ciphertext canary): what must reach the provider byte-identical."""
    secrets = conversation.of(REASONING_TEXT | CIPHERTEXT)
    for i, message in enumerate(conversation.messages):
        for where, unit in _units_of(conversation.format, i, message):
            if find_in(texts(unit), secrets, fragments=False):
                yield where, unit


def _units_of(fmt: str, i: int, message: Any) -> Iterator[tuple[str, Any]]:
    if fmt == "openai-responses":
        yield f"item {i}", message
        return
    if fmt == "langchain":
        data = message.get("data", {}) if isinstance(message, dict) else {}
        content = data.get("content")
        for j, block in enumerate(content if isinstance(content, list) else []):
            yield f"message {i} content[{j}]", block
        for key, value in (data.get("additional_kwargs") or {}).items():
            yield f"message {i} additional_kwargs.{key}", value
        return
    key = "parts" if fmt == "google-genai" else "content"
    blocks = message.get(key) if isinstance(message, dict) else None
    for j, block in enumerate(blocks if isinstance(blocks, list) else []):
        yield f"message {i} {key}[{j}]", block


def sub_objects(payload: Any) -> set[str]:
    """Returns the canonical JSON of every object in ``payload`` and in the JSON it holds as text."""
    seen: set[str] = set()
    stack = [plain(payload)]
    while stack:
        value = stack.pop()
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            text = value.strip()
            if text[:1] in "{[":
                try:
                    stack.append(json.loads(text))
                except ValueError:
                    pass
        elif isinstance(value, dict):
            seen.add(canonical(value))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return seen


def _byte_identical(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    objects = sub_objects(served.payload)
    return [f"{where}: the reasoning it holds does not reach the provider unchanged (no identical object in the payload)"
            for where, unit in reasoning_units(conversation) if canonical(unit) not in objects]


def _unmutated(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    return ["the serializer changed the conversation it was given (the caller's messages)"] if served.mutated else []


def _completes(conversation: Conversation, surface: Surface, served: Served) -> list[str]:
    return [served.error] if served.error else []


CATALOG: tuple[Check, ...] = (
    Check("egress.call-completes", "MUST", "The serializer returns a payload for every conversation: no exception, no hang.",
          lambda c, s: True, _completes, needs_payload=False, surfaces="every serializer surface"),
    Check("egress.input-unmutated", "MUST", "The serializer leaves the conversation it was given as it was.",
          lambda c, s: True, _unmutated, needs_payload=False, surfaces="every serializer surface"),
    Check("egress.no-reasoning-text", "MUST",
          "No reasoning text or summary reaches the payload, whole or as a fragment of "
          "20 characters, in any string however nested or encoded (JSON inside a string, base64, hex, gzip, "
          "URL or HTML escaping, JSON escapes, upper- or lower-cased), joined across stream events, under any label.",
          _forbidden, _no_reasoning_text, surfaces="surfaces whose reasoning is forbidden", needs_writing=True),
    Check("egress.no-reasoning-ciphertext", "MUST",
          "No reasoning ciphertext (Anthropic signatures and redacted data, OpenAI encrypted_content, "
          "Gemini thought signatures) reaches the payload, whole or as a fragment, however encoded.",
          _forbidden, _no_ciphertext, surfaces="surfaces whose reasoning is forbidden", needs_writing=True),
    Check("egress.no-credential", "MUST",
          "No credential of the request (its API key, in the x-api-key and Authorization headers a serializer "
          "gets as headers= when it names that parameter, and the matrix's SDK clients send) reaches the "
          "payload, whole or as a fragment of 20 characters, however encoded.",
          _forbidden, _no_credential, surfaces="surfaces whose reasoning is forbidden", needs_writing=True),
    Check("egress.answer-kept", "MUST", "The answer reaches the payload whole (decoded, or joined across stream events).",
          _has_answer, _answer_kept, surfaces="every serializer surface, on a conversation with an answer",
          reads_written=True),
    Check("egress.reasoning-byte-identical", "MUST",
          "Every block, part or item that holds reasoning reaches the provider request as the same JSON "
          "(canonical, types kept): none dropped, reordered inside or re-encoded.",
          lambda c, s: s.reasoning == BYTE_IDENTICAL, _byte_identical, surfaces="provider-request"),
)
BY_ID: dict[str, Check] = {c.id: c for c in CATALOG}
