"""The README's quick start: it comes right after the two commands, its target file runs as the
README says, and the failure it shows is what that command prints today."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_quickstart", ROOT / "tools" / "readme_quickstart.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_quick_start_is_the_first_section_and_the_own_specs_section_follows() -> None:
    headings = [line for line in README.splitlines() if line.startswith("## ")]
    assert headings[:3] == ["## Quick start", "## Running your own copy of the specs", "## Layout"]
    assert README.index("## Layout") < README.index("## What it checks") < README.index("## Benchmarks")


@pytest.mark.slow
def test_the_failure_shown_is_what_the_command_prints(tmp_path: Path) -> None:
    tool = _tool()
    assert " ".join(tool.COMMAND) in README  # the command shown is the command run
    code, output = tool.run_output(README)
    assert code == 1
    assert tool.block(output) in README, f"regenerate with: python tools/generated_docs.py --write readme-quickstart\n{output}"
    assert "live.untouched-suffix (fail)  specs/real-failures.yaml:" in output  # a path relative to the run


def test_the_quick_start_target_is_a_plain_callable_that_breaks_a_task_in_flight() -> None:
    namespace: dict[str, object] = {}
    exec(compile(_tool().target_code(README), "README.md", "exec"), namespace)  # noqa: S102 - our README
    compact = namespace["compact"]
    history = [{"role": "user", "content": str(k)} for k in range(5)]
    assert callable(compact) and compact(history, keep_turns=2) == history[-2:]


def test_the_own_specs_section_names_both_installs_and_the_option() -> None:
    section = README.split("## Running your own copy of the specs", 1)[1].split("\n## ", 1)[0]
    for needed in ("pip install .", "pip install -e .", "conformance run --specs ./specs", "--conformance-specs"):
        assert needed in section, needed
