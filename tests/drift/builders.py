"""Build before/after recording folders from the fixture cassettes, with one edit applied."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from .._yaml import load_yaml

FIXTURES = Path(__file__).parent / "fixtures"
BASELINE = FIXTURES / "baseline"
SERVER = "api.example"


def load(path: Path) -> dict[str, Any]:
    """Returns a cassette's data (safe loader)."""
    return load_yaml(path.read_text(encoding="utf-8"))


def save(path: Path, data: dict[str, Any]) -> None:
    """Writes cassette data as YAML."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=True), encoding="utf-8")


def folders(tmp: Path, probe: str = "json-probe",
            edit: Callable[[dict[str, Any]], None] | None = None) -> tuple[Path, Path]:
    """Returns (baseline, current) folders: the fixtures, and a copy whose ``probe`` body got ``edit``."""
    current = tmp / "current"
    shutil.copytree(BASELINE, current)
    if edit is not None:
        path = current / SERVER / f"{probe}.yaml"
        data = load(path)
        response = data["interactions"][0]["response"]
        body = json.loads(response["body"]["string"])
        edit(body)
        response["body"]["string"] = json.dumps(body)
        response["headers"]["content-type"] = ["application/json"]
        save(path, data)
    return BASELINE, current


def edit_answer(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Rewrites the recording at ``path`` with its last answer gone through ``edit``."""
    from conformance.provider import cassettes

    data = load_yaml(path.read_text(encoding="utf-8"))
    response = data["interactions"][-1]["response"]
    body = json.loads(response["body"]["string"])
    edit(body)
    response["body"]["string"] = json.dumps(body, separators=(",", ":"))
    response["headers"].pop("content-length", None)
    path.write_text(cassettes.dump(data), encoding="utf-8")
