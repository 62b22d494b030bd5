"""One peer: a library's own compactor with fixed settings, callable in one message format."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..formats import get as get_format
from ..formats.wrap import wrap
from ..engine.target import Target, resolve


class PeerNotInstalled(Exception):
    """Raised for a peer whose library is not installed (``pip install "context-conformance[peers]"``)."""


class InstalledLibrary:
    """What a row of a matrix knows of its library: whether it is installed, and its version.
    Needs ``name`` (the row's), ``library`` (the distribution's name) and ``module`` (an importable
    module of it)."""

    name: str
    library: str
    module: str

    @property
    def installed(self) -> bool:
        """Returns whether the library can be imported."""
        try:
            return importlib.util.find_spec(self.module) is not None
        except ModuleNotFoundError:
            return False

    @property
    def version(self) -> str | None:
        """Returns the installed version of the library, or None when it is not installed."""
        try:
            return importlib.metadata.version(self.library)
        except importlib.metadata.PackageNotFoundError:
            return None


_Row = TypeVar("_Row", bound=InstalledLibrary)


def select_rows(rows: Sequence[_Row], names: Iterable[str] | None, kind: str) -> list[_Row]:
    """Returns the rows called ``names`` or whose library is one of them (all when there are none).

    Raises ``KeyError`` naming an unknown one (``unknown <kind> 'x'; known: ...``).
    """
    wanted = list(names or ())
    if not wanted:
        return list(rows)
    chosen = [r for r in rows if r.name in wanted or r.library in wanted]
    unknown = [n for n in wanted if not any(n in (r.name, r.library) for r in rows)]
    if unknown:
        raise KeyError(f"unknown {kind} {unknown[0]!r}; known: {', '.join(r.name for r in rows)}")
    return chosen


@dataclass(frozen=True)
class Peer(InstalledLibrary):
    """A real compactor under test: its library, component, settings and the format it speaks."""

    name: str        # stable id, e.g. ``langchain-core.trim_messages.last``
    library: str     # the distribution, as pip names it
    component: str   # the library's class or function
    setting: str     # the settings the adapter fixes, as the library spells them
    format: str      # the message format its callable takes and returns
    callable: str    # ``module:attr`` of the callable
    module: str      # the importable module that shows the library is installed

    def target(self) -> Target:
        """Returns the peer as a ``Target`` on Anthropic-shaped histories, named after the peer.

        Raises ``PeerNotInstalled`` when its library is missing.
        """
        if not self.installed:
            raise PeerNotInstalled(f"{self.name}: {self.library} is not installed "
                                   '(pip install "context-conformance[peers]")')
        importlib.import_module(self.module)  # a library's first import is not the compactor's time
        inner = resolve(self.callable)
        wrapped = wrap(inner, get_format(self.format))
        return Target(self.name, wrapped.func, wrapped.accepts)


_Callable = TypeVar("_Callable", bound=Callable[..., Any])


class Peers(list[Peer]):
    """A library's peers, each declared on its callable: ``PEERS = Peers(library, module)``, then
    ``@PEERS.add(name, component, setting)`` above each function (in the order of the rows)."""

    def __init__(self, library: str, module: str) -> None:
        super().__init__()
        self.library, self.module = library, module

    def add(self, name: str, component: str, setting: str, format: str = "anthropic",  # noqa: A002 - Peer's field
            module: str | None = None) -> Callable[[_Callable], _Callable]:
        """Returns a decorator that appends the peer of the function it decorates (its callable is
        that function; ``module``, when given, is the peer's own module that shows the library is
        installed) and returns the function as it is."""

        def declare(function: _Callable) -> _Callable:
            self.append(Peer(name, self.library, component, setting, format,
                             f"{function.__module__}:{function.__qualname__}", module or self.module))
            return function

        return declare

