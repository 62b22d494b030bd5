"""When a run stops early: ``--maxfail``/``-x``, and a target declared hung (or crashing).

Pure bookkeeping over items in run order (scenario within target), so a parallel run that
finishes items out of order decides exactly what a serial run would have.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ItemSummary:
    """What the stop rules need of one finished item."""

    timed_out: bool
    failed: bool
    died: bool = False  # the worker process died during the call


@dataclass
class Walk:
    """The fate of the items known so far, in run order.

    ``ran`` holds the indexes whose own outcome counts; ``hung`` maps each index of a hung target
    (from the declaration on) to the reason; ``stopped_at`` is the index of the failure that
    reached ``maxfail`` (items after it are not run); ``complete`` says every item is decided.
    """

    ran: list[int] = field(default_factory=list)
    hung: dict[int, str] = field(default_factory=dict)
    stopped_at: int | None = None
    complete: bool = False
    next_unknown: int = 0

    def decided(self, index: int) -> bool:
        """Returns whether the item at ``index`` needs no run (hung target, or after the stop)."""
        return index in self.hung or (self.stopped_at is not None and index > self.stopped_at)


def walk(targets: Sequence[str], finished: Mapping[int, ItemSummary], maxfail: int | None,
         hung_after: int | None) -> Walk:
    """Returns the fates of items ``0..len(targets)-1`` (``targets[i]`` names item i's target)
    as far as the finished items decide them, reading them in order as a serial run would."""
    out = Walk()
    streak: dict[str, int] = {}
    deaths: dict[str, int] = {}
    hung_reason: dict[str, str] = {}
    failures = 0
    for index, target in enumerate(targets):
        if target in hung_reason:
            out.hung[index] = hung_reason[target]
            continue
        summary = finished.get(index)
        if summary is None:
            # later items of hung targets are known too, but nothing else is
            out.next_unknown = index
            for later in range(index + 1, len(targets)):
                if targets[later] in hung_reason:
                    out.hung[later] = hung_reason[targets[later]]
            return out
        out.ran.append(index)
        streak[target] = streak.get(target, 0) + 1 if summary.timed_out else 0
        deaths[target] = deaths.get(target, 0) + 1 if summary.died else 0
        if hung_after and streak[target] >= hung_after:
            hung_reason[target] = (f"not run: the target is declared hung after timing out on "
                                   f"{hung_after} scenarios in a row")
        elif hung_after and deaths[target] >= hung_after:
            hung_reason[target] = (f"not run: the target's worker process died on {hung_after} "
                                   "scenarios in a row")
        if summary.failed:
            failures += 1
            if maxfail and failures >= maxfail:
                out.stopped_at = index
                out.complete = True
                out.next_unknown = len(targets)
                return out
    out.complete = True
    out.next_unknown = len(targets)
    return out
