"""Read a spec file (YAML, or JSON at JSON speed) into plain data.

Two ways in: ``parse_fast`` returns the data and the line of each scenario, or ``None`` when the
document needs a closer look; ``load_document`` (the located path, used only when a file has a
problem) returns the data plus a ``Locator`` that maps every field path to its line, so each error
can name file, line and field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .._gc import gc_paused
from ..errors import SpecError

try:
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - libyaml missing
    _Loader = yaml.SafeLoader

FieldPath = tuple[str | int, ...]


def dotted(path: Sequence[str | int]) -> str:
    """Returns a field path written as ``scenarios[3].history[0].content``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class Locator:
    """Maps field paths of one document to 1-based line numbers."""

    def __init__(self, path: Path, lines: dict[FieldPath, int]) -> None:
        self.path = path
        self._lines = lines

    def line(self, field: Sequence[str | int]) -> int | None:
        """Returns the line of ``field``, or of its nearest ancestor that has one."""
        key = tuple(field)
        while key:
            if key in self._lines:
                return self._lines[key]
            key = key[:-1]
        return self._lines.get((), None)

    def error(self, field: Sequence[str | int], message: str) -> SpecError:
        """Returns a ``SpecError`` located at ``field``."""
        return SpecError(self.path, self.line(field), dotted(field), message)


def read_text(path: str | Path) -> str:
    """Returns the file's text; raises ``SpecError`` when it cannot be read or is not UTF-8
    (naming the line and byte offset of the first bad byte)."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise SpecError(file, None, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(file, line, "", f"not UTF-8: byte 0x{raw[exc.start]:02x} at byte offset {exc.start} "
                                        f"(column {column})") from None


def is_json(path: str | Path) -> bool:
    """Returns whether the file is read as JSON (by its ``.json`` suffix)."""
    return Path(path).suffix == ".json"


class _NeedsLocating(Exception):
    """The fast parse met something only the located path reports well (a duplicate key)."""


class _FastLoader(_Loader):
    """The C loader, refusing a mapping that lost a key to a duplicate."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        mapping = super().construct_mapping(node, deep)
        if len(mapping) != len(node.value):
            raise _NeedsLocating
        return mapping


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _NeedsLocating
    return mapping


def _json_scenario_lines(text: str, data: Any) -> list[int]:
    """Returns the line of each scenario's ``id`` in a JSON document (0 where it is not found)."""
    scenarios = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(scenarios, list):
        return []
    lines, position, line = [], 0, 1
    for raw in scenarios:
        ident = raw.get("id") if isinstance(raw, dict) else None
        found = text.find(json.dumps(ident), position) if isinstance(ident, str) else -1
        if found < 0:
            lines.append(0)
            continue
        line += text.count("\n", position, found)
        position = found
        lines.append(line)
    return lines


def parse_fast(path: str | Path, text: str) -> tuple[Any, list[int]] | None:
    """Returns the document and the line of each item of its ``scenarios`` list, or ``None`` when
    the document is malformed in any way (then ``load_document`` says where)."""
    if is_json(path):
        try:
            with gc_paused():
                data = json.loads(text, object_pairs_hook=_unique_keys)
        except (ValueError, _NeedsLocating):
            return None
        return data, _json_scenario_lines(text, data)
    with gc_paused():
        return _parse_yaml_fast(text)


def _parse_yaml_fast(text: str) -> tuple[Any, list[int]] | None:
    loader = _FastLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        lines: list[int] = []
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == "scenarios" and isinstance(value, yaml.SequenceNode):
                    lines = [item.start_mark.line + 1 for item in value.value]
        return loader.construct_document(node), lines
    except (yaml.YAMLError, _NeedsLocating):
        return None
    finally:
        loader.dispose()


def _walk(node: yaml.Node, path: FieldPath, lines: dict[FieldPath, int], file: Path) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value
            if key in seen:
                raise SpecError(file, key_node.start_mark.line + 1, dotted(path + (key,)), "duplicate key")
            seen.add(key)
            _walk(value_node, path + (key,), lines, file)
            lines[path + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), lines, file)


def _json_syntax(file: Path, text: str) -> None:
    """Raises ``SpecError`` at the line of the first JSON syntax error, if any."""
    try:
        json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise SpecError(file, line, "", f"invalid JSON: {getattr(exc, 'msg', exc)}") from None


def load_document(path: str | Path, text: str | None = None) -> tuple[Any, Locator]:
    """Returns the parsed document and its ``Locator``; raises ``SpecError`` on a file that cannot be
    read, is not UTF-8, is not valid YAML (or JSON, for ``.json``), or repeats a key."""
    file = Path(path)
    if text is None:
        text = read_text(file)
    if is_json(file):
        _json_syntax(file, text)  # the values come from JSON; the YAML reader gives the lines
    with gc_paused():
        return _load_located_document(file, text)


def _load_located_document(file: Path, text: str) -> tuple[Any, Locator]:
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpecError(file, 1, "", "empty document")
        lines: dict[FieldPath, int] = {}
        _walk(node, (), lines, file)
        data = json.loads(text) if is_json(file) else loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        if is_json(file):
            return json.loads(text), Locator(file, {})  # valid JSON the YAML reader cannot place
        line, message = _syntax_error(text, exc)
        raise SpecError(file, line, "", message) from None
    except yaml.YAMLError as exc:
        raise SpecError(file, None, "", f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, Locator(file, lines)


_OPENERS = {yaml.FlowSequenceStartToken: "[", yaml.FlowMappingStartToken: "{"}
_CLOSERS = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken)
_FLOW_CONTEXTS = {"while parsing a flow sequence": "[", "while parsing a flow mapping": "{"}


def _syntax_error(text: str, exc: yaml.MarkedYAMLError) -> tuple[int | None, str]:
    """Returns the line to report a YAML syntax error at, and its message: the line that opened the
    broken token (an unclosed quote, or a ``[`` / ``{`` never closed when the file ends), else the
    line where the reader stopped."""
    problem = exc.problem or exc.context or "syntax error"
    stopped = exc.problem_mark or exc.context_mark
    stop_line = stopped.line + 1 if stopped is not None else None
    if exc.context and exc.context.startswith("while scanning") and exc.context_mark is not None:
        line = exc.context_mark.line + 1
        what = exc.context.removeprefix("while scanning ")
        if line == stop_line:
            return line, f"invalid YAML: {problem} ({exc.context})"
        return line, f"invalid YAML: {what} opened on this line is never closed ({problem} at line {stop_line})"
    if exc.context in _FLOW_CONTEXTS and exc.context_mark is not None:
        line = exc.context_mark.line + 1
        return line, (f"invalid YAML: {_FLOW_CONTEXTS[exc.context]!r} opened on this line is never closed "
                      f"({problem} at line {stop_line})")
    if stopped is not None and not text[stopped.index:].strip():  # the reader ran off the end of the file
        opener = _unclosed_flow(text)
        if opener is not None:
            line, bracket = opener
            return line, (f"invalid YAML: {bracket!r} opened on this line is never closed "
                          f"({problem} at the end of the file)")
    return stop_line, f"invalid YAML: {problem}"


def _unclosed_flow(text: str) -> tuple[int, str] | None:
    """Returns the line and bracket of the innermost ``[`` or ``{`` still open where ``text`` stops
    being valid YAML, or ``None``."""
    loader = _Loader(text)
    stack: list[tuple[int, str]] = []
    try:
        while loader.check_token():
            token = loader.get_token()
            bracket = _OPENERS.get(type(token))
            if bracket is not None:
                stack.append((token.start_mark.line + 1, bracket))
            elif isinstance(token, _CLOSERS) and stack:
                stack.pop()
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return stack[-1] if stack else None
