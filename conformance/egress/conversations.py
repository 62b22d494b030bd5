"""Egress conversations: load ``specs/egress/*.yaml`` (all but the surfaces table), with located errors.

A conversation is data: messages in one of the suite's formats, the events its last reply was
streamed as (when it was), and its canaries. The truth a check judges by is what the file declares:
the loader only verifies the declaration fits (every canary occurs in the messages; no piece of a
reasoning canary occurs in a canary of another kind), and a bad file names its line and field while
the other files still load.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..engine._yamlsource import load_document
from ..errors import SpecError
from ..engine.spec_files import load_all
from .canaries import CIPHERTEXT, REASONING_TEXT, Canary, find
from .decode import texts

FORMATS = ("anthropic", "openai-responses", "google-genai", "langchain")
SURFACES_FILE = "surfaces.yaml"


@dataclass(frozen=True)
class Conversation:
    """One egress scenario: messages in ``format``, the declared canaries, and how the task stands."""

    id: str
    description: str
    format: str
    task: str  # "settled" or "in-flight"
    tool_calls: bool
    messages: list[Any]
    canaries: tuple[Canary, ...]
    stream: list[Any] | None = None
    path: str = ""
    line: int = 0
    # the reasoning and ciphertext canaries of the conversations loaded beside it that its messages
    # do not hold (ids prefixed by their conversation's): a payload holding one carries another
    # conversation's reasoning (state a serializer kept from an earlier call)
    foreign: tuple[Canary, ...] = ()

    @property
    def streamed(self) -> bool:
        """Returns whether the last reply arrived as stream events."""
        return self.stream is not None

    def of(self, kinds: frozenset[str]) -> list[Canary]:
        """Returns the canaries of the given kinds."""
        return [c for c in self.canaries if c.kind in kinds]

    def secrets(self, kinds: frozenset[str]) -> list[Canary]:
        """Returns the canaries of the given kinds, its own and those of the conversations beside it."""
        return [*self.of(kinds), *(c for c in self.foreign if c.kind in kinds)]

    @property
    def features(self) -> tuple[str, ...]:
        """Returns the words ``-k`` matches besides the id: format, task, streamed, tools, kinds."""
        words = [self.format, self.task, "streamed" if self.streamed else "whole",
                 "tools" if self.tool_calls else "no-tools"]
        return (*words, *sorted({c.kind for c in self.canaries}))


@dataclass
class Loaded:
    """The conversations of some files and the errors of their bad parts."""

    conversations: list[Conversation] = field(default_factory=list)
    errors: list[SpecError] = field(default_factory=list)


@cache
def _validator() -> Any:
    import jsonschema

    text = resources.files("conformance").joinpath("schema").joinpath("egress.schema.json").read_text("utf-8")
    schema = json.loads(text)
    return jsonschema.validators.validator_for(schema)(schema)


def shipped_folder() -> Path:
    """Returns the shipped ``specs/egress`` folder."""
    from .._paths import shipped

    return shipped("specs") / "egress"


def load(paths: Sequence[str | Path] | None = None) -> Loaded:
    """Returns every conversation under ``paths`` (default: the shipped ones, the surfaces table
    left out) and the errors found; duplicate ids are errors."""
    def one(file: Path) -> tuple[list[Conversation], list[SpecError]]:
        loaded = load_file(file)
        return loaded.conversations, loaded.errors

    conversations, errors = load_all(paths or [shipped_folder()], one, leave_out={SURFACES_FILE})
    return Loaded(beside_each_other(conversations), errors)


def beside_each_other(conversations: Sequence[Conversation]) -> list[Conversation]:
    """Returns the conversations, each with the reasoning and ciphertext canaries of the others
    (``Conversation.foreign``) that it does not hold itself, in its canaries or its messages."""
    secret = REASONING_TEXT | CIPHERTEXT
    out = []
    for conversation in conversations:
        own = {c.value for c in conversation.canaries}
        others = {c.value: Canary(f"{other.id}/{c.id}", c.kind, c.value) for other in conversations
                  if other is not conversation for c in other.of(secret) if c.value not in own}
        held = {f.canary for f in find(conversation.messages, list(others.values()))}
        out.append(replace(conversation, foreign=tuple(c for c in others.values() if c.id not in held)))
    return out


def load_file(path: str | Path) -> Loaded:
    """Returns the conversations of one file and a located error for each bad one."""
    result = Loaded()
    try:
        data, locator = load_document(path)
    except SpecError as exc:
        result.errors.append(exc)
        return result
    if isinstance(data, dict) and "conversations" in data:
        top = {**_validator().schema, "properties": {**_validator().schema["properties"],
                                                      "conversations": {"type": "array", "minItems": 1}}}
        import jsonschema

        for err in jsonschema.validators.validator_for(top)(top).iter_errors(data):
            result.errors.append(locator.error(tuple(err.absolute_path), err.message))
        items = data["conversations"] if isinstance(data["conversations"], list) else []
    else:
        result.errors.append(locator.error((), "not an egress conversation file (no 'conversations')"))
        return result
    conversation_schema = _validator().schema["$defs"]["conversation"]
    check = jsonschema.validators.validator_for(_validator().schema)(
        {"$defs": _validator().schema["$defs"], **conversation_schema})
    for index, raw in enumerate(items):
        at: tuple[str | int, ...] = ("conversations", index)
        errors = [locator.error(at + tuple(e.absolute_path), e.message) for e in check.iter_errors(raw)]
        if not errors:
            errors = [locator.error(at + where, problem) for where, problem in _problems(raw)]
        if errors:
            result.errors.extend(errors)
            continue
        result.conversations.append(Conversation(
            id=raw["id"], description=raw["description"], format=raw["format"], task=raw["task"],
            tool_calls=raw["tool_calls"], messages=raw["messages"],
            canaries=tuple(Canary(c["id"], c["kind"], c["value"]) for c in raw["canaries"]),
            stream=raw.get("stream"), path=str(path), line=locator.line(at) or 0))
    return result


def _problems(raw: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Returns ``(field, problem)`` for a declaration that does not fit its conversation."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    ids = [c["id"] for c in raw["canaries"]]
    in_messages = [text for _, text in texts(raw["messages"])]
    canaries = [Canary(c["id"], c["kind"], c["value"]) for c in raw["canaries"]]
    for k, canary in enumerate(canaries):
        if ids.count(canary.id) > 1:
            problems.append((("canaries", k, "id"), f"duplicate canary id {canary.id!r}"))
        if not any(canary.value in text for text in in_messages):
            problems.append((("canaries", k, "value"), "this canary does not occur in the messages"))
    secret = [c for c in canaries if c.kind in REASONING_TEXT | CIPHERTEXT]
    for k, canary in enumerate(canaries):
        if canary.kind in REASONING_TEXT | CIPHERTEXT:
            continue
        for other in secret:
            if any(piece in canary.value for piece in other.fragments()):
                problems.append((("canaries", k, "value"),
                                 f"shares a fragment with the {other.kind} canary {other.id!r}: a check could not tell them apart"))
    answers = [c for c in canaries if c.kind == "answer"]
    if raw["task"] == "settled" and not answers:
        problems.append((("canaries",), "a settled task declares its answer (a canary of kind 'answer')"))
    if raw["task"] == "in-flight" and answers:
        problems.append((("task",), "a task in flight has no answer yet"))
    return problems
