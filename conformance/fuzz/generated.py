"""The scenario the fuzzer draws, in a module of its own: a worker that unpickles one imports this,
not Hypothesis and the strategies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..engine.spec import Scenario


@dataclass(frozen=True, repr=False)
class GeneratedScenario(Scenario):
    """A ``Scenario`` drawn by ``histories()``; its repr is a one-line summary, never the history
    (Hypothesis prints a failing example, and a history may hold reasoning text and 40 KB results)."""

    def __repr__(self) -> str:
        return (f"<{self.id}: {len(self.history)} messages, live_start={self.truth.live_start}, "
                f"params={self.params}>")

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))
