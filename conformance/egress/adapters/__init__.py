"""The egress matrix's components: each library's own serializer or store, one file per library.

Each file's ``COMPONENTS`` is registered in the registry's ``egress_adapters`` kind
(pyproject's entry points, ``registry.shipped``), in row order; an installed package adds its
own list with an entry point, and its rows follow the shipped ones. Nothing is looked up until
``COMPONENTS`` (or ``select``) is first asked for.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ... import registry
from ...peers.base import select_rows
from .base import Component


@cache
def components() -> tuple[Component, ...]:
    """Returns every registered component: the shipped lists in their order, then installed ones;
    raises ``registry.RegistryError`` for an entry that cannot be loaded."""
    return tuple(c for group in registry.load_all("egress_adapters") for c in group)


def __getattr__(name: str) -> Any:
    """Returns ``COMPONENTS`` (a list of ``components()``), looked up on first use."""
    if name == "COMPONENTS":
        return list(components())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def select(names: list[str] | None) -> list[Component]:
    """Returns the components named (by name or library), all when ``names`` is empty; raises
    ``KeyError`` naming an unknown one."""
    return select_rows(components(), names, "egress component")


__all__ = ["COMPONENTS", "Component", "components", "select"]
