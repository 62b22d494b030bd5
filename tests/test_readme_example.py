"""The README's property-based example runs as written, and it catches a compactor that breaks a MUST."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import seed

ROOT = Path(__file__).resolve().parents[1]


def _example() -> str:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Property-based testing", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def _load(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the project's own README
    return namespace


@pytest.mark.slow
def test_the_example_is_ten_lines_or_so_and_passes() -> None:
    code = _example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 11
    seed(0)(_load(code)["test_compact_keeps_every_must"])()  # a fixed seed: no random test


@pytest.mark.slow
def test_the_example_fails_for_a_compactor_that_cuts_the_task_in_flight() -> None:
    code = _example().replace("return list(history)", "return history[-2:]")
    with pytest.raises(AssertionError, match="live.untouched-suffix"):
        seed(0)(_load(code)["test_compact_keeps_every_must"])()  # a fixed seed: no random test
