"""The scheduled drift workflow: triggers, secret, steps, and command lines the CLI accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import build_parser

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "drift.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return workflow["jobs"]["drift"]["steps"]


def _commands(workflow: dict[str, Any]) -> list[str]:
    env = {k: str(v) for k, v in workflow["jobs"]["drift"]["env"].items()}
    lines = []
    for step in _steps(workflow):
        text = step.get("run", "").replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip()
            for name, value in env.items():
                line = line.replace(f'"${name}"', value).replace(f"${name}", value)
            if line.startswith("conformance "):
                lines.append(line)
    return lines


def test_runs_on_a_schedule_and_by_hand(workflow: dict[str, Any]) -> None:
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert re.fullmatch(r"[\d*/,-]+( [\d*/,-]+){4}", triggers["schedule"][0]["cron"])
    assert "workflow_dispatch" in triggers


def test_the_key_comes_from_a_secret_on_the_record_step_only(workflow: dict[str, Any]) -> None:
    with_key = [s for s in _steps(workflow) if "ANTHROPIC_API_KEY" in str(s)]
    assert len(with_key) == 1 and "conformance record" in with_key[0]["run"]
    assert with_key[0]["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"


def test_records_audits_drifts_publishes_and_uploads(workflow: dict[str, Any]) -> None:
    commands = [c.split()[1] for c in _commands(workflow)]
    assert commands == ["record", "audit", "drift"]
    text = WORKFLOW.read_text()
    assert "GITHUB_STEP_SUMMARY" in text and "actions/upload-artifact" in text
    assert "pip install ." in text


def test_every_command_line_parses(workflow: dict[str, Any]) -> None:
    parser = build_parser()
    for line in _commands(workflow):
        args = parser.parse_args(shlex.split(line)[1:])
        assert callable(args.func), line
