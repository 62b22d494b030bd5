"""One registry for every extension point: the shipped entries are declared in pyproject as any
package declares its own, lookups name what is known, and a broken entry is a usage error."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from conformance import registry
from conformance.formats import FORMATS
from conformance.peers import all_peers
from conformance.provider import base

from .conftest import ROOT


def test_the_shipped_entries_are_pyprojects_and_the_installed_metadata_says_the_same() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    for kind in registry.KINDS:
        assert registry.shipped(kind) == tuple(declared.get(registry.group(kind), {}).items()), kind
    from importlib.metadata import distribution

    metadata: dict[str, dict[str, str]] = {}
    for ep in distribution(registry.DISTRIBUTION).entry_points:  # (what an installed wheel reads instead)
        metadata.setdefault(ep.group, {})[ep.name] = ep.value
    for kind in registry.KINDS:
        assert metadata.get(registry.group(kind), {}) == dict(registry.shipped(kind)), kind


def test_an_installed_wheel_reads_its_shipped_entries_from_its_metadata(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    monkeypatch.setattr(registry, "_CHECKOUT", tmp_path / "pyproject.toml")  # (no checkout beside the package)
    registry.reset()
    try:
        assert [name for name, _ in registry.shipped("providers")] == ["anthropic", "openai"]
        assert len(registry.shipped("peers")) == 18 and registry.shipped("egress_surfaces") == ()
    finally:
        registry.reset()


def test_lookups_go_through_the_registry() -> None:
    assert base.names()[:2] == ["anthropic", "openai"] and base.implicit().name == "anthropic"
    assert list(FORMATS)[:6] == [name for name, _ in registry.shipped("formats")]
    assert {p.library for p in all_peers()} >= {"langchain-core", "autogen-core"}
    with pytest.raises(registry.RegistryError, match="unknown provider 'nope'; known: anthropic, openai"):
        base.get("nope")
    with pytest.raises(registry.RegistryError, match="unknown extension kind 'gadgets'"):
        registry.names("gadgets")


def test_a_broken_entry_is_a_usage_error_naming_it() -> None:
    broken = registry.Entry("providers", "broken", "no_such_module_here:PROVIDER", False)
    with pytest.raises(registry.RegistryError, match=r"providers entry 'broken' \(no_such_module_here:PROVIDER\) "
                                                     "cannot be loaded: ModuleNotFoundError"):
        broken.load()
    assert isinstance(registry.RegistryError("x"), registry.UsageError)


def test_dialects_and_egress_components_come_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.egress import adapters
    from conformance.egress.adapters.base import Component
    from conformance.provider.recordings import dialects

    assert dialects.names() == tuple(name for name, _ in registry.shipped("dialects"))
    shipped = [c for _, value in registry.shipped("egress_adapters") for c in registry.Entry(
        "egress_adapters", "x", value, True).load()]
    assert list(adapters.components()) == shipped == adapters.COMPONENTS
    extra = Component("toy.dump", "toy-lib", "dump", "defaults", "log", "anthropic", "toy_lib:dump", "toy_lib")
    monkeypatch.setitem(sys.modules, "toy_lib_components", type(sys)("toy_lib_components"))
    sys.modules["toy_lib_components"].COMPONENTS = [extra]  # type: ignore[attr-defined]  # a module made here
    monkeypatch.setattr(registry, "installed", lambda kind: (("toy", "toy_lib_components:COMPONENTS"),)
                        if kind == "egress_adapters" else ())
    registry.reset()
    adapters.components.cache_clear()
    try:
        assert adapters.components()[-1] is extra and adapters.select(["toy-lib"]) == [extra]
    finally:
        registry.reset()
        adapters.components.cache_clear()
