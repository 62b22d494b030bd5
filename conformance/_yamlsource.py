"""Load a YAML document with libyaml and remember the line of every field.

Returns plain data plus a ``Locator`` that maps a field path (a tuple of keys and indices) to the
line it was written on, so every error can name file, line and field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .errors import SpecError

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


def load_document(path: str | Path, text: str | None = None) -> tuple[Any, Locator]:
    """Returns the parsed document and its ``Locator``; raises ``SpecError`` on bad YAML."""
    file = Path(path)
    if text is None:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(file, None, "", f"cannot read: {exc.strerror or exc}") from None
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpecError(file, 1, "", "empty document")
        lines: dict[FieldPath, int] = {}
        _walk(node, (), lines, file)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(file, line, "", f"invalid YAML: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise SpecError(file, None, "", f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return data, Locator(file, lines)
