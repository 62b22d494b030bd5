"""Write ``analyze`` results as they come: the table in blocks of rows, ``--json`` as a streamed
JSON array (one record a line), ``--report`` a record at a time; only the tally and the first
findings are kept.

``Tally`` holds the aggregates the summary line and the exit code need, so a run over millions of
interactions keeps none of them in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from ... import _json
from ...command_report import RecordSink
from .model import ERROR, FAILING, NOT_JUDGED, VERDICTS, Judgement
from .judging import FileEnd
from .render import judgement_result, task_in_flight, unreadable_result

BLOCK = 200  # table rows laid out together (their columns share widths)
FINDINGS = 200  # failing interactions listed again under "Findings"; the rest are counted


@dataclass
class Tally:
    """Counts of a run so far: files, interactions, verdicts, unreadable files and the first findings."""

    files: int = 0
    interactions: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    unreadable_files: int = 0
    findings: list[str] = field(default_factory=list)
    more_findings: int = 0
    unreadable: list[str] = field(default_factory=list)
    more_unreadable: int = 0

    def _unreadable(self, line: str) -> None:
        if len(self.unreadable) < FINDINGS:
            self.unreadable.append(line)
        else:
            self.more_unreadable += 1

    def add(self, found: Judgement) -> None:
        """Counts one judgement (and keeps its finding line while fewer than ``FINDINGS`` are kept)."""
        self.interactions += 1
        self.verdicts[found.verdict] += 1
        if found.verdict in FAILING:
            if len(self.findings) < FINDINGS:
                self.findings.append(f"  {found.verdict.upper()} {found.file}#{found.index}: {'; '.join(found.evidence)}")
            else:
                self.more_findings += 1
        elif found.verdict == ERROR:
            self._unreadable(f"{found.file}#{found.index}: {found.error}")

    def end(self, done: FileEnd) -> None:
        """Counts one finished file."""
        self.files += 1
        if done.error is not None:
            self.unreadable_files += 1
            self._unreadable(str(done.error))

    def exit_code(self) -> int:
        """Returns what ``run.exit_code`` returns for the same results: 1 if any interaction reached
        a task in flight or is inconsistent, whatever else failed to read; else 2 when nothing could
        be judged; else 0."""
        if any(self.verdicts[v] for v in FAILING):
            return 1
        return 0 if any(self.verdicts[v] for v in VERDICTS) else 2

    def summary(self) -> str:
        """Returns the one-line tally: files, interactions, verdicts, not judged and errors."""
        judged = {v: n for v, n in self.verdicts.items() if v in VERDICTS and n}
        tally = ", ".join(f"{n} {v}" for v, n in sorted(judged.items()))
        return (f"analyze: {self.files} file(s), {self.interactions} interaction(s): {sum(judged.values())} judged"
                + (f" ({tally})" if tally else "") + f", {self.verdicts[NOT_JUDGED]} without context management or "
                f"a judge, {self.unreadable_files + self.verdicts[ERROR]} unreadable")


class Sink(Protocol):
    """Where the events of a run go as they come: the table, ``--json``, ``--report``."""

    def event(self, event: Judgement | FileEnd) -> None:
        """Takes one judgement, or the end of a file."""

    def close(self) -> None:
        """Ends the output once every event is in."""


def _row(j: Judgement) -> list[str]:
    evidence = j.error if j.error else "; ".join(j.evidence)
    return [str(j.index), j.endpoint, j.model or "-", j.strategy or "-", task_in_flight(j), j.verdict, evidence or "-"]


HEADER = ["#", "ENDPOINT", "MODEL", "STRATEGY", "TASK IN FLIGHT", "VERDICT", "EVIDENCE"]


class TableSink:
    """Writes a table per file as its judgements come (blocks of ``BLOCK`` rows), then at ``close``
    the findings, the unreadable and the summary line of ``tally``."""

    def __init__(self, out: TextIO, tally: Tally) -> None:
        self.out, self.tally = out, tally
        self.rows: list[list[str]] = []
        self.started = False

    def _flush(self) -> None:
        from ..table import grid

        if self.rows:
            self.out.write("\n".join(grid([HEADER, *self.rows])) + "\n")
            self.out.flush()
            self.rows = []

    def event(self, event: Judgement | FileEnd) -> None:
        """Writes (or buffers, up to a block) one event."""
        if isinstance(event, FileEnd):
            self._flush()
            if event.error is not None:
                self.out.write(f"{event.error}\n\n")
            elif not self.started:
                self.out.write(f"{event.path}\n  no interactions\n\n")
            else:
                self.out.write("\n")
            self.started = False
            return
        if not self.started:
            self.out.write(event.file + "\n")
            self.started = True
        self.rows.append(_row(event))
        if len(self.rows) >= BLOCK:
            self._flush()

    def close(self) -> None:
        """Writes the findings, the unreadable and the summary line."""
        from ..._text import fit

        tally = self.tally
        if tally.findings:
            more = [f"  and {tally.more_findings} more (see --json)"] if tally.more_findings else []
            self.out.write("\n".join(["Findings", *fit(tally.findings), *more, ""]) + "\n")
        if tally.unreadable:
            more = [f"  and {tally.more_unreadable} more (see --json)"] if tally.more_unreadable else []
            self.out.write("\n".join(["Unreadable", *fit(f"  {line}" for line in tally.unreadable), *more, ""]) + "\n")
        self.out.write(tally.summary() + "\n")


def error_record(done: FileEnd) -> dict[str, Any]:
    """Returns the ``--json`` record of a file that could not be read (index null)."""
    error = done.error
    message = "" if error is None else f"line {error.line}: {error.message}" if error.line else error.message
    return {"file": done.path, "index": None, "provider": None, "endpoint": None, "model": None, "strategy": None,
            "live_start": None, "history": None, "verdict": ERROR, "evidence": [], "error": message}


class JsonSink:
    """Writes the ``--json`` records as one JSON array, a record a line, each as soon as it is judged."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.first = True
        out.write("[")

    def event(self, event: Judgement | FileEnd) -> None:
        """Writes the record of one judgement, or of a file that could not be read."""
        if isinstance(event, FileEnd):
            if event.error is None:
                return
            record = error_record(event)
        else:
            record = event.to_dict()
        self.out.write(("\n" if self.first else ",\n") + _json.dumps(record).decode("utf-8"))
        self.first = False

    def close(self) -> None:
        """Ends the array."""
        self.out.write("]\n" if self.first else "\n]\n")


class ReportSink:
    """Hands every judgement to a ``--report`` folder being written as it comes (one record an
    interaction, one an unreadable file), keeping none; at ``close`` finishes the folder with the
    exit code of ``tally``."""

    def __init__(self, report: RecordSink, tally: Tally) -> None:
        self.report, self.tally = report, tally

    def event(self, event: Judgement | FileEnd) -> None:
        """Writes the record of one judgement, or of a file that could not be read."""
        if isinstance(event, FileEnd):
            if event.error is not None:
                self.report.add(unreadable_result(event.path, event.error))
            return
        self.report.add(judgement_result(event))

    def close(self) -> None:
        """Writes the rest of the folder (the footer, summary.md, index.html)."""
        self.report.finish(self.tally.exit_code())


def write(events: Iterable[Judgement | FileEnd], sinks: list[Sink], tally: Tally) -> None:
    """Counts every event into ``tally`` and hands it to each sink as it comes, then closes them."""
    for event in events:
        if isinstance(event, FileEnd):
            tally.end(event)
        else:
            tally.add(event)
        for sink in sinks:
            sink.event(event)
    for sink in sinks:
        sink.close()
