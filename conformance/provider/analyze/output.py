"""Write ``analyze`` results as they come: the table in blocks of rows, or ``--json`` as a streamed
JSON array (one record a line); only the tally and the first findings are kept.

``Tally`` holds the aggregates the summary line and the exit code need, so a run over millions of
interactions keeps none of them in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from ... import _json
from .model import ERROR, FAILING, NOT_JUDGED, VERDICTS, Judgement
from .judging import FileEnd

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


def _row(j: Judgement) -> list[str]:
    from .render import task_in_flight

    evidence = j.error if j.error else "; ".join(j.evidence)
    return [str(j.index), j.endpoint, j.model or "-", j.strategy or "-", task_in_flight(j), j.verdict, evidence or "-"]


HEADER = ["#", "ENDPOINT", "MODEL", "STRATEGY", "TASK IN FLIGHT", "VERDICT", "EVIDENCE"]


def write_table(events: Iterable[Judgement | FileEnd], out: TextIO, tally: Tally) -> None:
    """Writes a table per file as its judgements come (blocks of ``BLOCK`` rows), then the findings
    and the summary line."""
    from ..table import grid

    rows: list[list[str]] = []
    started = False
    for event in events:
        if isinstance(event, FileEnd):
            tally.end(event)
            if rows:
                out.write("\n".join(grid([HEADER, *rows])) + "\n")
            if event.error is not None:
                out.write(f"{event.error}\n\n")
            elif not started:
                out.write(f"{event.path}\n  no interactions\n\n")
            else:
                out.write("\n")
            rows, started = [], False
            continue
        tally.add(event)
        if not started:
            out.write(event.file + "\n")
            started = True
        rows.append(_row(event))
        if len(rows) >= BLOCK:
            out.write("\n".join(grid([HEADER, *rows])) + "\n")
            out.flush()
            rows = []
    if tally.findings:
        from ..._text import fit

        more = [f"  and {tally.more_findings} more (see --json)"] if tally.more_findings else []
        out.write("\n".join(["Findings", *fit(tally.findings), *more, ""]) + "\n")
    if tally.unreadable:
        from ..._text import fit

        more = [f"  and {tally.more_unreadable} more (see --json)"] if tally.more_unreadable else []
        out.write("\n".join(["Unreadable", *fit(f"  {line}" for line in tally.unreadable), *more, ""]) + "\n")
    out.write(tally.summary() + "\n")


def error_record(done: FileEnd) -> dict[str, Any]:
    """Returns the ``--json`` record of a file that could not be read (index null)."""
    error = done.error
    message = "" if error is None else f"line {error.line}: {error.message}" if error.line else error.message
    return {"file": done.path, "index": None, "provider": None, "endpoint": None, "model": None, "strategy": None,
            "live_start": None, "history": None, "verdict": ERROR, "evidence": [], "error": message}


def write_json(events: Iterable[Judgement | FileEnd], out: TextIO, tally: Tally) -> None:
    """Writes the ``--json`` records as one JSON array, a record a line, each as soon as it is judged."""
    out.write("[")
    first = True
    for event in events:
        if isinstance(event, FileEnd):
            tally.end(event)
            if event.error is None:
                continue
            record = error_record(event)
        else:
            tally.add(event)
            record = event.to_dict()
        out.write(("\n" if first else ",\n") + _json.dumps(record).decode("utf-8"))
        first = False
    out.write("\n]\n" if not first else "]\n")
