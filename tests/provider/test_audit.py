"""Audit fails on planted secrets and reasoning text, and passes every shipped cassette."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.audit import audit

from .conftest import CASSETTES


def test_shipped_cassettes_are_clean() -> None:
    findings, files = audit([CASSETTES])
    assert files >= 30 and findings == []


PLANTS = {
    "key": ("toolu_a1", "sk-ant-api03-AbCdEfGhIjKlMnOp", "API key"),
    "org": ("content-type:", "anthropic-organization-id:\n      - 6f0c4a51-2b9e-4d1c-9a57-0d3e8c2b7f10\n      content-type:",
            "organization id"),
    "auth": ("anthropic-beta:", "authorization:\n      - Bearer abcdefghijklmnop\n      anthropic-beta:", "authorization"),
    "thinking": ("[scrubbed:", "Now I will read the log first, then [scrubbed:", "unscrubbed reasoning text"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_planted_leaks_are_found(plant: str, shipped_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new, label = PLANTS[plant]
    path = shipped_copy / "clear-thinking.keep-one-turn.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    findings, _ = audit([shipped_copy])
    assert findings and all(f.path == path for f in findings)
    assert any(label in f.message for f in findings), [str(f) for f in findings]
    assert main(["audit", str(shipped_copy)]) == 1
    assert label in capsys.readouterr().out


def test_unparseable_cassette_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("interactions: [ {")
    findings, _ = audit([tmp_path])
    assert findings and "cannot parse" in findings[0].message


def test_audit_cli_passes_clean_cassettes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", str(CASSETTES)]) == 0
    assert "0 finding(s)" in capsys.readouterr().out
