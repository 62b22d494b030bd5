"""docs/coverage.md is generated from the shipped specs, and every required cell holds its minimum."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import LoadResult, coverage
from conformance.engine.spec import Scenario, Truth

from .conftest import generated_docs_tool

ROOT = Path(__file__).resolve().parents[1]


def test_every_required_cell_holds_its_minimum(shipped: LoadResult) -> None:
    assert coverage.shortfalls(shipped.scenarios) == []


def test_docs_coverage_is_the_generators_output(shipped: LoadResult) -> None:
    page = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    assert page == coverage.render(shipped.scenarios), "run: python tools/generated_docs.py --write coverage"


@pytest.mark.slow
def test_a_cell_below_its_minimum_is_reported(shipped: LoadResult) -> None:
    without_paused = [s for s in shipped.scenarios
                      if ("message", "paused turn, then a user message", "live") not in coverage.scenario_cells(s)]
    short = coverage.shortfalls(without_paused)
    assert [line for line in short if line.startswith("message / paused turn")]
    assert "**short**" in coverage.render(without_paused)


@pytest.mark.slow
def test_check_fails_on_a_stale_page(shipped: LoadResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    tool = generated_docs_tool()
    (tmp_path / "docs").mkdir()
    (tmp_path / "specs").symlink_to(ROOT / "specs", target_is_directory=True)
    stale = tmp_path / "docs" / "coverage.md"
    stale.write_text("# an old page\n", encoding="utf-8")
    monkeypatch.setattr("conformance.engine.spec.load", lambda paths: shipped)
    entry = tool.BY_NAME["coverage"]
    assert entry.check(tmp_path) == 1
    assert "docs/coverage.md is stale" in capsys.readouterr().out
    assert entry.write(tmp_path) == 0
    assert entry.check(tmp_path) == 0
    assert stale.read_text(encoding="utf-8") == coverage.render(shipped.scenarios)


def _one(history: list[dict], live_start: int, keep: int | None = None) -> Scenario:
    return Scenario(id="x.y", description="d", family="x", history=history, truth=Truth(live_start),
                    params={} if keep is None else {"keep_turns": keep})


def test_cells_name_kind_field_and_position() -> None:
    doc = {"type": "document", "source": {"type": "url", "url": "https://a.example/b.pdf"},
           "citations": {"enabled": True}, "x_new": 1}
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
               {"role": "user", "content": [{"type": "text", "text": "read", "cache_control": {"type": "ephemeral"}}, doc]},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "a  b\nç", "signature": "s"},
                                                 {"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": True,
                                             "content": [{"type": "text", "text": "x" * 2048},
                                                         {"type": "hologram_20270101"}]}]}]
    cells = coverage.scenario_cells(_one(history, 2, keep=1))
    assert {("document", "source: url", "opening"), ("document", "citations", "opening"),
            ("document", "unknown field", "opening"), ("text", "cache_control", "opening"),
            ("thinking", "text with runs of spaces", "live"), ("thinking", "text with newlines", "live"),
            ("thinking", "text with non-ASCII", "live"), ("tool_result", "is_error", "live"),
            ("tool_result", "content: text of 2 KB or more", "live"), ("tool_result", "future type in content", "live"),
            ("history", "window cuts settled history", "settled")} <= cells
    assert ("text", "unknown field", "opening") not in cells
    assert not coverage.window_cuts(_one(history, 2, keep=2))
