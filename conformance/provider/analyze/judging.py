"""Judge a stream of one recording's interactions, one at a time: the first judge that claims each
gives its verdict, then every judge notes in the windowed index (``Earlier``) what later ones may
follow back to it. ``FileEnd`` marks the end of a file in a stream of judgements."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..recordings import Interaction, RecordingError
from .earlier import Earlier
from .model import ERROR, NOT_JUDGED, Judgement, failed, start
from .registry import Judge


@dataclass
class FileEnd:
    """Marks the end of one file's judgements in a stream: how many there were, and the error that
    stopped the file (None when it was read to the end)."""

    path: str
    interactions: int = 0
    error: RecordingError | None = None


def _guess_provider(item: Interaction) -> str:
    host = item.host
    from .. import base

    for name in base.names():
        if name in host:
            return name
    return "unknown"


def _raised(judge: Judge, exc: Exception) -> str:
    # Named by type and place only: the message of an exception may quote the body.
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f"the {judge.provider} judge raised {type(exc).__name__} ({Path(frame.filename).name}:{frame.lineno})"


def judge_one(item: Interaction, earlier: Earlier | Sequence[Interaction], available: Sequence[Judge]) -> Judgement:
    """Returns the verdict of the first judge that claims ``item``; a judge that raises is an error, not a crash."""
    if item.unreadable:  # the record itself (a line, an entry) is not readable: an error, whoever's traffic
        return failed(item, _guess_provider(item), item.error or "unreadable record")
    for judge in available:
        try:
            if not judge.claims(item):
                continue
            if item.error is not None and not isinstance(item.request, dict):
                return failed(item, judge.provider, item.error)  # (a readable request: the judge decides)
            return judge.judge(item, earlier)
        except Exception as exc:  # noqa: BLE001 - a judge's bug must not hide the other interactions' verdicts
            return failed(item, judge.provider, _raised(judge, exc))
    found = start(item, _guess_provider(item), NOT_JUDGED)
    if item.error is not None:  # traffic no judge claims: not judged, whatever its bodies hold
        found.evidence.append(f"no judge claims this traffic; {item.error}")
        return found
    found.evidence.append("no judge for this traffic" if found.provider == "unknown"
                          else f"no judge for {found.provider} is installed")
    return found


def remember(item: Interaction, earlier: Earlier, available: Sequence[Judge], found: Judgement) -> Judgement:
    """Lets every judge note what later interactions may follow back to ``item``; returns ``found``,
    or its error when a judge raised while noting."""
    return noted(item, earlier, notes_of(available), found)


def notes_of(available: Sequence[Judge]) -> list[tuple[Judge, Callable[[Interaction, Earlier], None]]]:
    """Returns each judge that has a ``remember``, with it (looked up once for a whole stream, for ``noted``)."""
    found = []
    for judge in available:
        note = getattr(judge, "remember", None)
        if note is not None:
            found.append((judge, note))
    return found


def noted(item: Interaction, earlier: Earlier, notes: list[tuple[Judge, Callable[[Interaction, Earlier], None]]],
          found: Judgement) -> Judgement:
    """Lets each of ``notes`` (``notes_of``) note ``item`` in ``earlier``; returns ``found``, or the
    error of the first judge that raised while noting (when ``found`` is not an error already).
    Every judge notes, whichever raised: what the index holds after an interaction depends on that
    interaction alone, never on its judgement."""
    result = found
    for judge, note in notes:
        try:
            note(item, earlier)
        except Exception as exc:  # noqa: BLE001 - a judge's bug is an error of this interaction
            if result.verdict != ERROR:
                result = failed(item, judge.provider, _raised(judge, exc))
    return result


def judge_stream(items: Iterable[Interaction], available: Sequence[Judge], earlier: Earlier | None = None,
                 ) -> Iterator[tuple[Judgement, list[tuple[str, str | None]]]]:
    """Yields ``(judgement, misses)`` per interaction in order: what the judge looked up in ``earlier``
    and did not find (for a range judged without the ranges before it). Raises ``RecordingError``
    when the recording turns out unreadable part way."""
    earlier = Earlier() if earlier is None else earlier
    notes = notes_of(available)
    for item in items:
        if item.index > earlier.count:  # indices follow lines: a blank line is skipped, not an interaction
            earlier.settle(item.index)
        found = judge_one(item, earlier, available)
        misses = earlier.misses
        found = noted(item, earlier, notes, found)
        yield found, misses
        earlier.settle(earlier.count + 1)  # (``advance``, one call fewer an interaction)
