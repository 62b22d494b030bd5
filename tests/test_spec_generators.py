"""The generated scenario files are exactly what their generators write today."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {"generate_specs": ["arithmetic.yaml"],
             "generate_blind_spot_specs": ["blind-spots.yaml"],
             "generate_live_specs": ["live-content.yaml", "live-media.yaml", "live-turns.yaml"],
             "generate_portable_specs": ["portable.yaml"],
             "generate_settled_split_specs": ["paused-split.yaml", "moved-notices.yaml"],
             "generate_loop_specs": ["loop-scripts.yaml"],
             "generate_agent_shape_specs": ["agent-notices.yaml", "programmatic-calls.yaml"]}


def _generator(name: str) -> ModuleType:
    """Returns the generator script ``tools/<name>.py`` as a module."""
    spec = importlib.util.spec_from_file_location(f"_tools_{name}", ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_committed_files_equal_the_generators_output(name: str, tmp_path: Path) -> None:
    assert _generator(name).main(["generate", str(tmp_path)]) == 0
    for file in GENERATED[name]:
        fresh = (tmp_path / file).read_bytes()
        assert fresh == (ROOT / "specs" / file).read_bytes(), f"run: python tools/{name}.py"

