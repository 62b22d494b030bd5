"""Message formats a compactor under test may speak, by name.

Each entry converts an Anthropic-shaped history to its format and back, losslessly on what the
format carries, and names the reason a history cannot be expressed in it (``Format.why_not``).
``wrap`` turns a target that speaks a format into one the runner can call. The formats are the
``formats`` kind of ``conformance.registry``: the shipped ones and any an installed package
declares in the ``context_conformance.formats`` entry-point group (a ``Format`` object).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping

from .. import registry
from ..errors import UsageError
from .base import Format, FormatError

KIND = "formats"


class _Registered(Mapping[str, Format]):
    """The registered formats by name, shipped ones first; a format's module is imported when it is read."""

    def __getitem__(self, name: str) -> Format:
        if name not in registry.names(KIND):
            raise KeyError(name)
        found = registry.load(KIND, name)
        if not isinstance(found, Format) or found.name != name:
            raise registry.RegistryError(f"the format entry {name!r} is not a Format named {name!r} "
                                         "(see conformance.formats.base)")
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(registry.names(KIND))

    def __len__(self) -> int:
        return len(registry.names(KIND))


FORMATS: Mapping[str, Format] = _Registered()


def get(name: str) -> Format:
    """Returns the format called ``name``; raises ``UsageError`` naming the known ones, or the
    package a format's objects need when it is missing."""
    try:
        fmt = FORMATS[name]
    except KeyError:
        raise UsageError(f"unknown format {name!r}; known: {', '.join(FORMATS)}") from None
    if fmt.requires and importlib.util.find_spec(fmt.requires) is None:
        raise UsageError(f"the {name} format needs {fmt.requires}: pip install \"context-conformance[peers]\"")
    return fmt


__all__ = ["FORMATS", "Format", "FormatError", "get"]
