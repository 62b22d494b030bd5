"""Find and read the recordings of a folder: standard vcrpy cassettes, keyed for comparison.

A cassette is untrusted input: it is read with YAML's safe loader only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from ..engine._yamlsource import read_text
from ..errors import SpecError
from ..engine.transcript import deep_copy

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_READ: dict[tuple[str, bytes], dict[str, Any]] = {}  # (path, its text's hash) -> the cassette data
_READ_KEPT = 512


def read(path: Path) -> dict[str, Any]:
    """Returns the cassette data (a copy of its own); raises ``SpecError`` when it is not a vcrpy
    cassette. A file read again with the same text is not parsed again (drift reads a baseline
    once per comparison)."""
    text = read_text(path)
    key = (str(path), hashlib.sha256(text.encode("utf-8")).digest())
    if key not in _READ:
        if len(_READ) >= _READ_KEPT:
            _READ.clear()
        _READ[key] = _parsed(path, text)
    copied: dict[str, Any] = deep_copy(_READ[key])
    return copied


def _parsed(path: Path, text: str) -> dict[str, Any]:
    """Returns ``read`` of ``path`` holding ``text``."""
    try:
        data = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(path, mark.line + 1 if mark else None, "", f"not valid YAML: {problem}") from None
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise SpecError(path, None, "interactions", "not a vcrpy cassette (no interactions list)")
    return data


def files(folder: Path) -> dict[str, Path]:
    """Returns the cassettes under ``folder`` by key: the relative path without ``.yaml``."""
    found = sorted(p for p in folder.rglob("*.yaml") if p.is_file() and not p.name.startswith("."))
    return {p.relative_to(folder).with_suffix("").as_posix(): p for p in found}


def _strip_server(keys: dict[str, Path]) -> dict[str, Path] | None:
    tops = {k.split("/", 1)[0] for k in keys}
    if len(tops) != 1 or not all("/" in k for k in keys):
        return None
    return {k.split("/", 1)[1]: p for k, p in keys.items()}


def pair(baseline: Path, current: Path) -> dict[str, tuple[Path | None, Path | None]]:
    """Returns key -> (baseline file, current file), None where one side lacks the recording.

    When each side holds recordings of one server only and the server names differ (the emulator in
    another mode, a renamed host), probes are paired by the path below the server folder.
    """
    before, after = files(baseline), files(current)
    if before and after and not set(before) & set(after):
        b, a = _strip_server(before), _strip_server(after)
        if b is not None and a is not None:
            before, after = b, a
    return {key: (before.get(key), after.get(key)) for key in sorted(set(before) | set(after))}
