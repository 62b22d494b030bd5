"""When a run stops early: ``--maxfail``/``-x``, and a target given up because its calls keep
timing out or killing their worker.

A target is given up once ``give_up_after`` of its scenarios have timed out or killed their worker,
counted together and in all, whatever lies between them (answers, other failures): a target that
answers three calls and then hangs in every fresh worker is given up as surely as one that always
hangs. Only timeouts and deaths count, never slowness within the limit, so a correct target is
never given up however slow it is.

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

    @property
    def counts_against(self) -> bool:
        """Returns whether this item spends the target's budget of timeouts and deaths."""
        return self.timed_out or self.died


@dataclass
class Walk:
    """The fate of the items known so far, in run order.

    ``ran`` holds the indexes whose own outcome counts; ``hung`` maps each index of a target given
    up (from the decision on) to the reason; ``given_up`` maps each such target to the reason; ``stopped_at`` is the index of the failure that
    reached ``maxfail`` (items after it are not run); ``complete`` says every item is decided.
    """

    ran: list[int] = field(default_factory=list)
    hung: dict[int, str] = field(default_factory=dict)
    given_up: dict[str, str] = field(default_factory=dict)
    stopped_at: int | None = None
    complete: bool = False
    next_unknown: int = 0

    def decided(self, index: int) -> bool:
        """Returns whether the item at ``index`` needs no run (hung target, or after the stop)."""
        return index in self.hung or (self.stopped_at is not None and index > self.stopped_at)


def give_up_reason(timeouts: int, deaths: int) -> str:
    """Returns the reason recorded for each scenario of a target given up after ``timeouts``
    timeouts and ``deaths`` worker deaths."""
    what = ("timed out" if not deaths else "killed their worker" if not timeouts
            else f"timed out or killed their worker ({timeouts} timed out, {deaths} killed it)")
    return f"not run: the target was given up after {timeouts + deaths} of its scenarios {what}"


def walk(targets: Sequence[str], finished: Mapping[int, ItemSummary], maxfail: int | None,
         give_up_after: int | None) -> Walk:
    """Returns the fates of items ``0..len(targets)-1`` (``targets[i]`` names item i's target)
    as far as the finished items decide them, reading them in order as a serial run would.
    ``give_up_after`` is the budget of timeouts and worker deaths per target (None: no budget)."""
    out = Walk()
    timeouts: dict[str, int] = {}
    deaths: dict[str, int] = {}
    failures = 0
    for index, target in enumerate(targets):
        if target in out.given_up:
            out.hung[index] = out.given_up[target]
            continue
        summary = finished.get(index)
        if summary is None:
            # later items of targets given up are known too, but nothing else is
            out.next_unknown = index
            for later in range(index + 1, len(targets)):
                if targets[later] in out.given_up:
                    out.hung[later] = out.given_up[targets[later]]
            return out
        out.ran.append(index)
        if summary.died:
            deaths[target] = deaths.get(target, 0) + 1
        elif summary.timed_out:
            timeouts[target] = timeouts.get(target, 0) + 1
        spent = timeouts.get(target, 0) + deaths.get(target, 0)
        if give_up_after and summary.counts_against and spent >= give_up_after:
            out.given_up[target] = give_up_reason(timeouts.get(target, 0), deaths.get(target, 0))
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
