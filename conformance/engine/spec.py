"""Load scenario files, validate them against the JSON Schema, and build ``Scenario`` objects.

A file is first read the fast way (libyaml, or ``json`` for ``.json``, and a compiled validator of
the whole file); only a file with a problem is read again the located way, where every problem
becomes a ``SpecError`` naming file, line and field. A bad scenario is dropped and the rest of its
file, and every other file, still load.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import fastjsonschema

from . import spec_cache, transcript
from ._compiled_schema import compiled_check
from .._text import article
from ._yamlsource import FieldPath, Locator, is_json, load_document, parse_fast, read_text
from ..errors import SpecError
from .invariant_entries import INVARIANT_IDS
from .spec_files import load_all

SCHEMA_FILE = "scenarios.schema.json"


@dataclass(frozen=True)
class Truth:
    """Declared ground truth: where the task in flight starts, which tool uses are unanswered."""

    live_start: int
    unanswered: tuple[str, ...] = ()
    tasks: tuple[int, ...] = ()  # where each task begins: the truth of every call of the agent loop

    def live_start_before(self, answer: int) -> int:
        """Returns where the task in flight begins in the request answered by message ``answer``:
        the last task start before it (0 when none is declared before it)."""
        return max((t for t in self.tasks if t < answer), default=0)


@dataclass(frozen=True)
class Expectations:
    """What applies to a scenario and what the reference must produce (output or typed error)."""

    invariants: tuple[str, ...] | None = None
    skip: dict[str, str] = field(default_factory=dict)
    refusal_allowed: bool = False
    reference_output: list[dict[str, Any]] | None = None
    reference_raises: str | None = None


@dataclass(frozen=True)
class Scenario:
    """One compaction scenario: plain data, as written in its spec file."""

    id: str
    description: str
    family: str
    history: list[dict[str, Any]]
    truth: Truth
    features: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    expect: Expectations = field(default_factory=Expectations)
    source: dict[str, Any] | None = None
    path: str = "<memory>"
    line: int = 0

    @property
    def live_span(self) -> list[dict[str, Any]]:
        """Returns the messages of the task in flight, per the declared truth."""
        return self.history[self.truth.live_start:]

    @property
    def settled_prefix(self) -> list[dict[str, Any]]:
        """Returns the settled history before the task in flight."""
        return self.history[: self.truth.live_start]


@dataclass
class LoadResult:
    """Scenarios that loaded, and the located errors of those that did not."""

    scenarios: list[Scenario] = field(default_factory=list)
    errors: list[SpecError] = field(default_factory=list)


@cache
def schema() -> dict[str, Any]:
    """Returns the scenario-file JSON Schema shipped with the package."""
    text = resources.files("conformance").joinpath("schema").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator(part: str) -> Any:
    """Returns a validator for the ``file`` (scenarios unchecked), one ``scenario`` (messages
    unchecked), or one ``message``."""
    import jsonschema  # the located path only: a file with a problem

    full = schema()
    cls = jsonschema.validators.validator_for(full)
    if part == "file":
        return cls({**full, "properties": {**full["properties"], "scenarios": {"type": "array", "minItems": 1}}})
    defs = dict(full["$defs"])
    if part == "scenario":
        defs["message"] = {"type": "object"}  # messages are checked one by one, once each
    return cls({"$schema": full["$schema"], "$defs": defs, "$ref": f"#/$defs/{part}"})


@cache
def _whole_file_check() -> Callable[[Any], Any] | None:
    """Returns a compiled validator of a whole scenario file, messages aside (``_message_ok`` reads
    them); it raises on any problem, and accepts no file that the located validators would refuse.
    ``None`` when the schema uses what the compiler would read differently (then every file is
    located)."""
    full = schema()
    return compiled_check({**_unref_messages(full), "$defs": {**_unref_messages(full["$defs"]), "message": {}}})


def _unref_messages(node: Any) -> Any:
    """Returns a copy of a schema where a ``$ref`` to ``message`` reads as ``{}`` (anything), so
    the compiled code makes no call per message (``_message_ok`` reads messages)."""
    if isinstance(node, list):
        return [_unref_messages(n) for n in node]
    if not isinstance(node, dict):
        return node
    if node.get("$ref") == "#/$defs/message":
        return {}
    return {k: _unref_messages(v) for k, v in node.items()}


_BLOCK_BASE = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "minLength": 1}}}


@cache
def _message_shape() -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]] | None:
    """Returns the roles a message may have and block type -> required fields, read from the
    schema; ``None`` when the schema says more of messages than ``_message_ok`` checks (then every
    file takes the located path)."""
    defs = schema()["$defs"]
    message, block = defs["message"], dict(defs["block"])
    roles = message.get("properties", {}).get("role", {}).get("enum")
    expected = {"type": "object", "required": ["role", "content"], "properties": {
        "role": {"enum": roles}, "content": {"type": ["string", "array"], "items": {"$ref": "#/$defs/block"}}}}
    rules = block.pop("allOf", [])
    if message != expected or block != _BLOCK_BASE or not all(isinstance(r, str) for r in roles or [None]):
        return None
    needs: dict[str, tuple[str, ...]] = {}
    for rule in rules:
        kind = rule.get("if", {}).get("properties", {}).get("type", {}).get("const")
        required = rule.get("then", {}).get("required")
        shaped = {"if": {"properties": {"type": {"const": kind}}}, "then": {"required": required}}
        if rule != shaped or not isinstance(kind, str) or not isinstance(shaped["then"]["required"], list):
            return None
        needs[kind] = tuple(shaped["then"]["required"])
    return tuple(roles), needs


def _message_ok(message: Any, roles: tuple[str, ...], needs: dict[str, tuple[str, ...]]) -> bool:
    """Returns whether a message surely meets the schema's ``message`` (a structural check, one pass,
    stricter where in doubt: a ``False`` sends the file to the located validators)."""
    if not isinstance(message, dict) or message.get("role") not in roles:
        return False
    content = message.get("content")
    if isinstance(content, str):
        return True
    if not isinstance(content, list):
        return False
    for block in content:
        if not isinstance(block, dict):
            return False
        kind = block.get("type")
        if not isinstance(kind, str) or not kind:
            return False
        required = needs.get(kind)
        if required is not None:
            for key in required:
                if key not in block:
                    return False
    return True


def _messages_ok(raw: dict[str, Any]) -> bool:
    """Returns whether every message of a schema-valid scenario surely meets the schema."""
    shape = _message_shape()
    if shape is None:
        return False
    roles, needs = shape
    output = raw.get("expect", {}).get("reference", {}).get("output") or []
    return all(_message_ok(m, roles, needs) for m in raw["history"]) and \
        all(_message_ok(m, roles, needs) for m in output)


def _schema_errors(part: str, instance: Any, locator: Locator,
                   prefix: tuple[str | int, ...]) -> list[SpecError]:
    errors: list[SpecError] = []
    for err in sorted(_validator(part).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        where = prefix + tuple(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = set(err.schema.get("properties", {}))
            for extra in sorted(k for k in err.instance if k not in allowed):
                errors.append(locator.error(where + (extra,), "unknown key"))
            continue
        errors.append(locator.error(where, err.message))
    return errors


def _message_errors(raw: dict[str, Any], locator: Locator, at: tuple[str | int, ...],
                    checked: dict[str, list[tuple[tuple[str | int, ...], str]]]) -> list[SpecError]:
    """Returns the schema errors of the scenario's messages, validating each distinct message once."""
    lists: list[tuple[tuple[str | int, ...], Any]] = [(("history",), raw.get("history"))]
    expect = raw.get("expect")
    reference = expect.get("reference") if isinstance(expect, dict) else None
    if isinstance(reference, dict):
        lists.append((("expect", "reference", "output"), reference.get("output")))
    errors: list[SpecError] = []
    for prefix, messages in lists:
        if not isinstance(messages, list):
            continue  # a missing or mistyped list is a schema error of the scenario
        for i, message in enumerate(messages):
            key = json.dumps(message, sort_keys=True)
            if key not in checked:
                checked[key] = [(tuple(e.absolute_path), e.message) for e in _validator("message").iter_errors(message)]
            errors.extend(locator.error(at + prefix + (i,) + path, text) for path, text in checked[key])
    return errors


def _semantic_problems(raw: dict[str, Any], invariant_ids: Collection[str]) -> list[tuple[FieldPath, str]]:
    """Returns ``(field, problem)`` for what the schema cannot say: truth that does not fit the
    history, unknown invariant ids, an invariant both required and skipped."""
    problems: list[tuple[FieldPath, str]] = []
    history = raw["history"]
    truth = raw["truth"]
    if not isinstance(truth["live_start"], int):
        problems.append((("truth", "live_start"), f"{truth['live_start']!r} is not a whole number written as one"))
    elif truth["live_start"] > len(history):
        problems.append((("truth", "live_start"),
                         f"{truth['live_start']} is past the end of {article(f'{len(history)}-message history')}"))
    tasks = truth.get("tasks", [])
    if tasks and (tasks != sorted(tasks) or tasks[-1] > len(history) or
                  (truth["live_start"] < len(history) and truth["live_start"] not in tasks)):
        problems.append((("truth", "tasks"), "task starts must be in order, within the history, and name "
                                             "live_start when a task is in flight"))
    declared = set(truth.get("unanswered", ()))
    if declared:
        actual = set(transcript.unanswered_tool_uses(history))
        if declared - actual:
            problems.append((("truth", "unanswered"),
                             f"not unanswered tool uses of this history: {sorted(declared - actual)}"))
    expect = raw.get("expect", {})
    for k, name in enumerate(expect.get("invariants", ())):
        if name not in invariant_ids:
            problems.append((("expect", "invariants", k), f"unknown invariant id {name!r}"))
    for name in expect.get("skip", {}):
        if name not in invariant_ids:
            problems.append((("expect", "skip", name), f"unknown invariant id {name!r}"))
        elif name in expect.get("invariants", ()):
            problems.append((("expect", "skip", name), "both required and skipped"))
    return problems


def _build(raw: dict[str, Any], path: Path, line: int) -> Scenario:
    truth = raw["truth"]
    expect = raw.get("expect", {})
    reference = expect.get("reference", {})
    invariants = expect.get("invariants")
    return Scenario(
        id=raw["id"], description=raw["description"], family=raw["family"], history=raw["history"],
        truth=Truth(truth["live_start"], tuple(truth.get("unanswered", ())), tuple(truth.get("tasks", ()))),
        features=tuple(raw.get("features", ())), params=dict(raw.get("params", {})),
        expect=Expectations(
            invariants=tuple(invariants) if invariants is not None else None,
            skip=dict(expect.get("skip", {})), refusal_allowed=bool(expect.get("refusal_allowed", False)),
            reference_output=reference.get("output"), reference_raises=reference.get("raises")),
        source=raw.get("source"), path=str(path), line=line)


def _read_elsewhere(data: Any) -> bool:
    """Returns whether a spec file belongs to another side: a provider probe file (``probes``) or an
    egress file (``egress``), neither of which holds compactor scenarios."""
    return isinstance(data, dict) and ("probes" in data or "egress" in data) and "scenarios" not in data


def _fast_parts(path: Path, text: str, invariant_ids: Collection[str]) -> tuple[list[Any], list[int]] | None:
    """Returns the scenarios (as parsed) and the line of each of a file with no problem at all
    (none for a provider probe or egress file), or ``None`` when it has one."""
    parsed = parse_fast(path, text)
    if parsed is None:
        return None
    data, lines = parsed
    if _read_elsewhere(data):
        return [], []  # a provider probe or egress file: read by its own side
    check = _whole_file_check()
    if check is None:
        return None
    try:
        check(data)
    except fastjsonschema.JsonSchemaException:
        return None
    if len(lines) != len(data["scenarios"]):
        return None
    for raw in data["scenarios"]:
        if not _messages_ok(raw) or _semantic_problems(raw, invariant_ids):
            return None
    return data["scenarios"], lines


def _load_fast(path: Path, text: str, invariant_ids: Collection[str]) -> LoadResult | None:
    """Returns the scenarios of a file with no problem at all, or ``None`` when it has one."""
    parts = _fast_parts(path, text, invariant_ids)
    if parts is None:
        return None
    return LoadResult([_build(raw, path, line) for raw, line in zip(*parts)])


def _load_cached(path: Path, text: str, invariant_ids: Collection[str]) -> LoadResult | None:
    """Returns ``_load_fast``'s result, from the cache of validated files when this text was
    validated before (see ``spec_cache``), stored there when it is new."""
    name = spec_cache.key(text, "json" if is_json(path) else "yaml", invariant_ids)
    parts = spec_cache.get(name)
    if parts is None:
        parts = _fast_parts(path, text, invariant_ids)
        if parts is None:
            return None
        spec_cache.put(name, *parts)
    return LoadResult([_build(raw, path, line) for raw, line in zip(*parts)])


def _load_located(path: Path, text: str, invariant_ids: Collection[str]) -> LoadResult:
    """Returns the good scenarios of a file and a located error for each problem."""
    result = LoadResult()
    try:
        data, locator = load_document(path, text)
    except SpecError as exc:
        result.errors.append(exc)
        return result
    if _read_elsewhere(data):
        return result  # a provider probe or egress file: read by its own side
    result.errors.extend(_schema_errors("file", data, locator, ()))
    header_ok = not result.errors  # a bad header loads no scenario, but every problem is still named
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    checked: dict[str, list[tuple[tuple[str | int, ...], str]]] = {}
    for index, raw in enumerate(scenarios if isinstance(scenarios, list) else []):
        at: tuple[str | int, ...] = ("scenarios", index)
        errors = _schema_errors("scenario", raw, locator, at)
        if isinstance(raw, dict):  # each message is checked even beside other problems of its scenario
            errors.extend(_message_errors(raw, locator, at, checked))
        if not errors:
            errors = [locator.error(at + where, problem) for where, problem in _semantic_problems(raw, invariant_ids)]
        if errors:
            result.errors.extend(errors)
        elif header_ok:
            result.scenarios.append(_build(raw, path, locator.line(at) or 0))
    result.errors.sort(key=lambda e: e.line or 0)  # in the order of the file
    return result


def load_file(path: str | Path, text: str | None = None,
              invariant_ids: Collection[str] = INVARIANT_IDS) -> LoadResult:
    """Returns the scenarios of one file and the errors of its bad parts; a probe file yields none.

    ``invariant_ids`` are the ids ``expect.invariants`` and ``expect.skip`` may name.
    """
    file = Path(path)
    try:
        if text is None:
            text = read_text(file)
    except SpecError as exc:
        return LoadResult(errors=[exc])
    fast = _load_cached(file, text, invariant_ids)
    return fast if fast is not None else _load_located(file, text, invariant_ids)


def load(paths: Sequence[str | Path], invariant_ids: Collection[str] = INVARIANT_IDS) -> LoadResult:
    """Returns every scenario under ``paths`` with the errors found; duplicate ids are errors."""
    def one(file: Path) -> tuple[list[Scenario], list[SpecError]]:
        loaded = load_file(file, invariant_ids=invariant_ids)
        return loaded.scenarios, loaded.errors

    scenarios, errors = load_all(paths, one)
    return LoadResult(scenarios, errors)
