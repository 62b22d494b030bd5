"""The docs that are generated from code stay current, and README's commands stay what CI runs."""

from __future__ import annotations

from pathlib import Path

from conformance import catalog_table

ROOT = Path(__file__).resolve().parents[1]


def test_invariant_table_in_docs_is_generated_from_the_catalog() -> None:
    assert catalog_table() in (ROOT / "docs" / "invariants.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands_and_ci_runs_the_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert "conformance run" in block[0]
    test_command = block[1].split("&&")[-1].strip()
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")



def _definition(text: str) -> str:
    start = text.index("**The task in flight begins at the first message after the last settled turn**")
    return text[start:text.index("\n\n", text.index("- a history that ends on a settled turn", start))]


def test_the_task_in_flight_is_defined_once_in_the_same_words() -> None:
    readme = _definition((ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme == _definition((ROOT / "specs" / "README.md").read_text(encoding="utf-8"))
    assert "system" in readme and "stacked" in readme
