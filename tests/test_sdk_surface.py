"""``tools/sdk_surface.py``: the SDK surface the suite relies on, listed and compared with the stored
list, offline. A fact the stored list holds and the SDKs lack fails (exit 1) by name; a new fact is
reported and passes; the installed SDKs hold every stored fact."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import pydantic
import pytest

ROOT = Path(__file__).resolve().parents[1]


@cache
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sdk_surface", ROOT / "tools" / "sdk_surface.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Block(pydantic.BaseModel):
    type: str
    text: str


class Other(pydantic.BaseModel):
    type: str


Blocks = Annotated[Block | Other, "discriminated by type"]


def call(model: str, messages: list[Any], *, betas: list[str] | None = None) -> None:
    """A stand-in for an SDK method."""


HERE = "tests.test_sdk_surface"


def test_each_kind_of_object_is_listed_by_what_the_suite_relies_on() -> None:
    found = tool().surface([f"{HERE}:Block", f"{HERE}:Blocks", f"{HERE}:call", f"{HERE}:Gone", "no_such_module:X"])
    assert found == sorted([f"{HERE}:Block field type", f"{HERE}:Block field text", f"{HERE}:Blocks member Block",
                            f"{HERE}:Blocks member Other", f"{HERE}:call param model", f"{HERE}:call param messages",
                            f"{HERE}:call param betas", f"{HERE}:Gone missing", "no_such_module:X missing"])


def test_a_stored_fact_the_sdks_lack_fails_by_name_and_a_new_one_passes(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    now = tool().surface()
    stored = tmp_path / "surface.txt"
    stored.write_text("# listed on an older release\n" + "\n".join([*now[1:], "anthropic:Anthropic param gone_option"]))
    assert tool().main(["--check", str(stored)]) == 1
    out = capsys.readouterr().out
    assert "  gone: anthropic:Anthropic param gone_option" in out and f"  new:  {now[0]}" in out
    stored.write_text("\n".join(now[1:]))
    assert tool().main(["--check", str(stored)]) == 0
    assert f"  new:  {now[0]}" in capsys.readouterr().out
    assert tool().main(["--check", str(tmp_path / "absent.txt")]) == 2


def test_the_installed_sdks_hold_every_fact_of_the_stored_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert tool().main(["--check"]) == 0, capsys.readouterr().out
    assert "missing" not in (ROOT / "tools" / "sdk-surface.txt").read_text()  # every name the list holds was found
