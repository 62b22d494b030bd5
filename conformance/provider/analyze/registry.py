"""The judges ``analyze`` asks, one per provider, found through the provider registry so the core
imports none of them.

A judge is any object with ``provider`` (a name), ``claims(interaction) -> bool`` (is this its
provider's traffic, told by endpoint and shape) and ``judge(interaction, earlier) -> Judgement``
(``earlier``: the ``Earlier`` index of the interactions before it in the same recording, for
following chains; an interaction without context management gets ``not-judged``), and optionally
``remember(interaction, earlier)``, which notes in the index what a later interaction may follow
back to this one. Each registered provider gives its own (``base.Provider.judge``); ``register``
adds others.
"""

from __future__ import annotations

from .. import base
from ..base import Judge

__all__ = ["Judge", "judges", "register"]


_registered: list[Judge] = []


def register(judge: Judge) -> None:
    """Adds ``judge`` ahead of the shipped ones (a judge for the same provider replaces theirs)."""
    _registered[:] = [j for j in _registered if j.provider != judge.provider]
    _registered.insert(0, judge)


def judges() -> list[Judge]:
    """Returns the judges ``register`` added, then each registered provider's (registry order) for a
    provider none of those judges."""
    found = list(_registered)
    for provider in base.all_providers():
        judge = provider.judge()
        if all(j.provider != judge.provider for j in found):
            found.append(judge)
    return found
