"""Real compactors of other libraries as conformance targets, found through ``conformance.registry``.

Each module here adapts one library: its ``PEERS`` (``base.Peers``) names the library, and each
callable is declared a peer where it is defined (``@PEERS.add``: what component, which settings,
which message format it speaks); the callables import the library only when one is called. Adding a library is adding one module and its line in the ``peers`` kind of the
registry; an installed package adds its own in the ``context_conformance.peers`` entry-point group
(naming a list of ``Peer``).
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import registry
from .base import Peer, PeerNotInstalled, Peers, select_rows


def all_peers() -> list[Peer]:
    """Returns every peer of every registered adapter, in registry (shipped: module) then declaration order."""
    return [peer for group in registry.load_all("peers") for peer in group]


def select(names: Iterable[str] = ()) -> list[Peer]:
    """Returns the peers called ``names`` or whose library is one of them (all when empty).

    Raises ``KeyError`` naming an unknown one.
    """
    return select_rows(all_peers(), names, "peer")


__all__ = ["Peer", "PeerNotInstalled", "Peers", "all_peers", "select"]
