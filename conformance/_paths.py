"""Where the shipped specs and cassettes live: inside an installed wheel, or beside the package."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped(name: str) -> Path:
    """Returns the shipped folder ``name`` (``specs`` or ``cassettes``) of this installation."""
    inside = _PACKAGE / "_shipped" / name
    return inside if inside.is_dir() else _PACKAGE.parent / name


def outside_cwd(entry: str) -> bool:
    """Returns whether an import path entry is not the current folder, or names it on purpose
    (in ``PYTHONPATH``, as a checkout under development does)."""
    here = os.getcwd()
    chosen = {os.path.abspath(e) for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e}
    return entry not in ("", ".") and (os.path.abspath(entry) != here or here in chosen)


def checkout() -> Path | None:
    """Returns the root of the project checkout this package was imported from (the folder
    holding its pyproject.toml), or None when it runs from an installed copy."""
    root = _PACKAGE.parent
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, ValueError):
        return None
    return root if project.get("name") == "context-conformance" and (root / "conformance").is_dir() else None
