"""One peer: a library's own compactor with fixed settings, callable in one message format."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from dataclasses import dataclass

from .._gc import import_paused
from ..formats import get as get_format
from ..formats.wrap import wrap
from ..target import Target, resolve


class PeerNotInstalled(Exception):
    """Raised for a peer whose library is not installed (``pip install "context-conformance[peers]"``)."""


class InstalledLibrary:
    """What a row of a matrix knows of its library: whether it is installed, and its version.
    Needs ``library`` (the distribution's name) and ``module`` (an importable module of it)."""

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
        import_paused(self.module)  # a library's first import is not the compactor's time
        inner = resolve(self.callable)
        wrapped = wrap(inner, get_format(self.format))
        return Target(self.name, wrapped.func, wrapped.accepts)
