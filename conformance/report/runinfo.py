"""Who produced a report: suite version and commit, Python, SDK and library versions, start time."""

from __future__ import annotations

import datetime as _dt
import os
import platform
from importlib import metadata
from typing import Any

from .. import __version__

LIBRARIES = ("anthropic", "httpx", "vcrpy", "deepdiff", "jsonschema", "PyYAML", "pytest")


def library_version(name: str) -> str | None:
    """Returns the installed version of distribution ``name``, or None when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def run_info() -> dict[str, Any]:
    """Returns the environment of this run as plain data (python, platform, library versions)."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(terse=True),
        "sdk": {name: library_version(name) for name in LIBRARIES},
    }


def header(command: str, targets: list[str], scenarios: int) -> dict[str, Any]:
    """Returns the header record of a report: suite version and commit, targets, run info, start time."""
    return {
        "record": "header",
        "format_version": 1,
        "suite": "context-conformance",
        "suite_version": __version__,
        "suite_commit": os.environ.get("GITHUB_SHA") or None,
        "command": command,
        "targets": list(targets),
        "scenarios": scenarios,
        "run_info": run_info(),
        "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
