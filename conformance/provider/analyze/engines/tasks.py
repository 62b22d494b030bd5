"""The unit of work an engine maps: one task per small file, one per byte range of a large JSON-lines
file; ``run_task`` is a pure function of a ``Task``, and ``in_order`` turns outcomes, in task order,
into the same judgements a serial run gives.

A range task judges without the ranges before it, so its ``Earlier`` is incomplete: every lookup
that missed is returned (``deferred``), and ``in_order`` judges again those interactions, and only
those, whose missed lookups the earlier ranges' entries hold. A judgement depends on nothing but
its interaction and the entries put before it, and what the judges note of an interaction depends
on that interaction alone, so the parent rebuilds a serial run's index exactly: the earlier
ranges' entries, then the entries the range's own interactions put before the one judged again.
Only the first ``window`` interactions of a range can reach an earlier one, so a range task keeps
the entries put while judging those (``early``, when it has lookups that missed), and the parent
reads and parses only the lines it judges again. The readers give a range's interactions the
indices and line numbers of the whole file, so nothing is renumbered.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...recordings import Interaction, RecordingError
from ..earlier import DEFAULT_WINDOW, Earlier
from ..model import Judgement, start
from ..judging import FileEnd, judge_one, judge_stream, noted, notes_of

_available: list[Any] | None = None


@dataclass(frozen=True)
class Task:
    """One file (``start`` None) or the byte range ``[start, end)`` of one, part ``part`` of ``parts``."""

    path: str
    start: int | None = None
    end: int | None = None
    part: int = 0
    parts: int = 1
    window: int = DEFAULT_WINDOW
    spool: bool = False  # write the judgements to a temporary file on this machine, not into the outcome
    lines_before: int | None = None  # newlines before ``start`` (the reader then need not count them)


@dataclass
class Outcome:
    """What ``run_task`` returns: the judgements, the lookups that missed (range tasks), the index
    entries a later range may need, the entries put while its first ``window`` interactions were
    judged (``early``: a range task with lookups that missed, whose first line's index it knew;
    else None), and the read error as ``(message, line)`` (exceptions of the readers do not all
    pickle)."""

    task: Task
    judgements: list[Judgement] = field(default_factory=list)
    deferred: list[tuple[int, list[tuple[str, str | None]]]] = field(default_factory=list)
    entries: list[tuple[int, str, str, bytes]] = field(default_factory=list)
    early: list[tuple[int, str, str, bytes]] | None = None
    error: tuple[str, int] | None = None
    size: int = 0
    spool: str | None = None


def tasks(files: Sequence[Path], split: int, window: int = DEFAULT_WINDOW, spool: bool = False) -> list[Task]:
    """Returns the tasks for ``files`` in input order: ranges of about ``split`` bytes for large JSON
    lines; with ``spool``, a file larger than ``split`` that cannot be cut spools its judgements."""
    from ..source import splits

    found: list[Task] = []
    for path in files:
        try:
            cuts = splits(path, split)
        except OSError:
            cuts = [(0, 0, 0)]
        if len(cuts) == 1:
            found.append(Task(str(path), window=window, spool=spool and cuts[0][1] > split))
        else:
            found += [Task(str(path), a, b, n, len(cuts), window, lines_before=lines)
                      for n, (a, b, lines) in enumerate(cuts)]
    return found


def _judges() -> list[Any]:
    global _available
    if _available is None:
        from ..registry import judges

        _available = judges()
    return _available


def _items(task: Task) -> Iterable[Interaction]:
    from ..source import interactions, range_interactions

    path = Path(task.path)
    if task.start is None:
        return interactions(path)
    return range_interactions(path, task.start, task.end or 0, task.lines_before)


def run_task(task: Task) -> Outcome:
    """Returns the outcome of judging one task (pure: the same task gives the same outcome anywhere)."""
    from ..source import file_size

    ranged = task.start is not None
    size = (task.end or 0) - (task.start or 0) if ranged else file_size(Path(task.path))
    out = Outcome(task, size=size)
    earlier = Earlier(task.window, complete=not ranged or task.start == 0)
    if not earlier.complete and task.lines_before is not None:  # (the index of the range's first line)
        earlier.journal, earlier.journal_until = [], task.lines_before + task.window
    spool = None
    if task.spool:  # a large file no range can split (compressed): its judgements wait on disk, not in memory
        spool = tempfile.NamedTemporaryFile("wb", prefix="conformance-analyze-", suffix=".pickle", delete=False)
        out.spool = spool.name
    try:
        for found, misses in judge_stream(_items(task), _judges(), earlier):
            if spool is not None:
                pickle.dump(found, spool, protocol=pickle.HIGHEST_PROTOCOL)
            else:
                out.judgements.append(found)
            if misses and not earlier.complete:
                out.deferred.append((found.index, list(misses)))
    except RecordingError as exc:
        out.error = (exc.message, exc.line)
    finally:
        if spool is not None:
            spool.close()
    if ranged:
        out.entries = earlier.export()
        if out.deferred:
            out.early = earlier.journal
    return out


def _rejudged(task: Task, wanted: list[int], state: Earlier, early: list[tuple[int, str, str, bytes]] | None,
              ) -> dict[int, Judgement]:
    """Returns, by index, the judgements of the range's interactions ``wanted`` (ascending), each
    judged again with the index a serial run has before it: the earlier ranges' entries (``state``),
    then the entries the range's own interactions put before it (``early``; None: those
    interactions read and noted again in order)."""
    from ..source import range_interactions

    available = _judges()
    notes = notes_of(available)
    seeded = Earlier(task.window)
    seeded.absorb(state.export())
    again: dict[int, Judgement] = {}
    last, wanted_set = max(wanted), set(wanted)
    own = iter(early or ())
    pending = next(own, None)
    only = wanted_set if early is not None else None
    for item in range_interactions(Path(task.path), task.start or 0, task.end or 0, task.lines_before, only):
        if item.index > last:
            break
        if pending is not None and pending[0] < item.index:
            before = [pending]
            pending = next(own, None)
            while pending is not None and pending[0] < item.index:
                before.append(pending)
                pending = next(own, None)
            seeded.absorb(before)
        if item.index > seeded.count:  # (as judge_stream: indices follow lines, blank ones skipped)
            seeded.settle(item.index)
        if early is not None:  # (its own entries are in ``early``: noted apart, for a judge's error alone)
            again[item.index] = noted(item, Earlier(task.window), notes, judge_one(item, seeded, available))
            continue
        if item.index in wanted_set:
            again[item.index] = noted(item, seeded, notes, judge_one(item, seeded, available))
        else:  # (what is noted does not depend on the judgement: the worker's stands)
            noted(item, seeded, notes, start(item, ""))
        seeded.advance()
    return again


def _spooled(out: Outcome) -> Generator[Judgement | FileEnd, None, int]:
    """Yields the judgements a whole-file task spooled, then its ``FileEnd``; removes the spool and
    returns how many there were."""
    count = 0
    try:
        with open(out.spool or "", "rb") as stream:
            while True:
                try:
                    found = pickle.load(stream)
                except EOFError:
                    break
                count += 1
                yield found
    finally:
        os.unlink(out.spool or "")
    error = RecordingError(out.task.path, out.error[0], out.error[1]) if out.error is not None else None
    yield FileEnd(out.task.path, count, error)
    return count


def in_order(outcomes: Iterable[Outcome], progress: Any = None) -> Iterator[Judgement | FileEnd]:
    """Yields the judgements of outcomes given in task order, and a ``FileEnd`` after each file's last
    task, as a serial run would (see the module docstring)."""
    state, count, failed = Earlier(), 0, False
    for out in outcomes:
        task = out.task
        if task.part == 0:
            state, count, failed = Earlier(task.window), 0, False
        if out.spool is not None:
            spooled = yield from _spooled(out)
            if progress is not None:
                progress(spooled, out.size)
            continue
        if not failed:
            judged = out.judgements
            answerable = [i for i, misses in out.deferred if any(state.answers(space, key, i) for space, key in misses)]
            if answerable:
                again = _rejudged(task, answerable, state, out.early)
                judged = [again.get(found.index, found) for found in judged]
            yield from judged
            count += len(judged)
            if out.error is not None:
                failed = True
                yield FileEnd(task.path, count, RecordingError(task.path, out.error[0], out.error[1]))
            else:
                state.absorb(out.entries)
                if judged:
                    state.settle(judged[-1].index + 1)
                if task.part == task.parts - 1:
                    yield FileEnd(task.path, count)
        if progress is not None:
            progress(len(out.judgements), out.size)
