"""The judges ``analyze`` asks, one per provider, found by module name so the core imports none of them.

A judge is any object with ``provider`` (a name), ``claims(interaction) -> bool`` (is this its
provider's traffic, told by endpoint and shape) and ``judge(interaction, earlier) -> Judgement``
(``earlier``: the ``Earlier`` index of the interactions before it in the same recording, for
following chains; an interaction without context management gets ``not-judged``), and optionally
``remember(interaction, earlier)``, which notes in the index what a later interaction may follow
back to this one. A provider package ships one as
``JUDGE`` in the module named in ``JUDGE_MODULES``; ``register`` adds others.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Protocol

from ..recordings import Interaction
from .earlier import Earlier
from .model import Judgement

JUDGE_MODULES = ("conformance.provider.anthropic.judge", "conformance.provider.openai.judge")


class Judge(Protocol):
    """What ``analyze`` needs of a provider's judge."""

    provider: str

    def claims(self, interaction: Interaction) -> bool:
        """Returns whether the interaction is this provider's traffic."""

    def judge(self, interaction: Interaction, earlier: Earlier | Sequence[Interaction]) -> Judgement:
        """Returns the verdict on one interaction (``not-judged`` without context management)."""


_registered: list[Judge] = []


def register(judge: Judge) -> None:
    """Adds ``judge`` ahead of the shipped ones (a judge for the same provider replaces theirs)."""
    _registered[:] = [j for j in _registered if j.provider != judge.provider]
    _registered.insert(0, judge)


def judges() -> list[Judge]:
    """Returns the registered judges, then the shipped ones whose module imports and exports ``JUDGE``."""
    found = list(_registered)
    for name in JUDGE_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):  # the module itself is absent
                continue
            raise
        judge = getattr(module, "JUDGE", None)
        if judge is not None and all(j.provider != judge.provider for j in found):
            found.append(judge)
    return found
