"""Real compactors of other libraries as conformance targets, discovered from this package.

Each module here adapts one library: it lists its ``PEERS`` (what component, which settings, which
message format its callable speaks) and defines those callables, importing the library only when
one is called. Adding a library is adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from .base import Peer, PeerNotInstalled


def all_peers() -> list[Peer]:
    """Returns every peer of every adapter module here, in module then declaration order."""
    peers: list[Peer] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        peers.extend(getattr(module, "PEERS", []))
    return peers


def select(names: Iterable[str] = ()) -> list[Peer]:
    """Returns the peers called ``names`` or whose library is one of them (all when empty).

    Raises ``KeyError`` naming an unknown one.
    """
    wanted = list(names)
    peers = all_peers()
    if not wanted:
        return peers
    chosen = [p for p in peers if p.name in wanted or p.library in wanted]
    unknown = [n for n in wanted if not any(n in (p.name, p.library) for p in peers)]
    if unknown:
        raise KeyError(f"unknown peer {unknown[0]!r}; known: {', '.join(p.name for p in peers)}")
    return chosen


__all__ = ["Peer", "PeerNotInstalled", "all_peers", "select"]
