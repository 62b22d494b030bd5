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

