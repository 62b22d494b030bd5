"""Where the shipped specs and cassettes live: inside an installed wheel, or beside the package."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped(name: str) -> Path:
    """Returns the shipped folder ``name`` (``specs`` or ``cassettes``) of this installation."""
    inside = _PACKAGE / "_shipped" / name
    return inside if inside.is_dir() else _PACKAGE.parent / name
