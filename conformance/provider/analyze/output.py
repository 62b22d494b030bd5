"""Write ``analyze`` results as they come, each writer taking the command's ``Report`` and its
records (``Report.probes``, the ``CheckResult`` of each judged interaction and unreadable file) one
at a time: the table in blocks of rows, ``--json`` as a streamed JSON array (one record a line),
``--report`` the folder; only the tally and the first findings are kept.

``Tally`` holds the aggregates the summary line and the exit code need, so a run over millions of
interactions keeps none of them in memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from ... import _json
from ...engine.command_report import RecordSink, Report
from ...engine.results import CheckResult
from .judging import FileEnd
from .model import ERROR, FAILING, NOT_JUDGED, VERDICTS, Judgement
from .render import judgement_result, unreadable_result

BLOCK = 200  # table rows laid out together (their columns share widths)
FINDINGS = 200  # failing interactions listed again under "Findings"; the rest are counted
TABLE_ROWS = 1000  # interactions a run's tables show; the rest are counted per file (all are in --json)
UNREADABLE = "analyze.readable"  # the invariant of the record of a file that could not be read


def _unreadable_file(result: CheckResult) -> bool:
    return result.invariant == UNREADABLE


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

    def add(self, result: CheckResult) -> None:
        """Counts one record: a judged interaction (keeping its finding line while fewer than
        ``FINDINGS`` are kept) or a file that could not be read."""
        if _unreadable_file(result):
            self.unreadable_files += 1
            self._unreadable(result.message)
            return
        d = result.details
        verdict = d["verdict"]
        self.interactions += 1
        self.verdicts[verdict] += 1
        if verdict in FAILING:
            if len(self.findings) < FINDINGS:
                self.findings.append(f"  {verdict.upper()} {d['file']}#{d['index']}: {'; '.join(d['evidence'])}")
            else:
                self.more_findings += 1
        elif verdict == ERROR:
            self._unreadable(f"{d['file']}#{d['index']}: {result.message}")

    def end_file(self) -> None:
        """Counts one finished file."""
        self.files += 1

    def exit_code(self) -> int:
        """Returns what ``run.exit_code`` returns for the same results: 1 if any interaction has a
        failing verdict (``FAILING``: it reached a task in flight, the task lost its reasoning or goes
        on from stale reasoning, its history was rejected as broken, or it is inconsistent), whatever
        else failed to read; else 2 when nothing could be judged; else 0."""
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


class Writer(RecordSink, Protocol):
    """Where the records of a run go as they come (the table, ``--json``, ``--report``): ``add``
    takes one record, ``end_file`` marks the end of a file's records, ``finish`` ends the output."""

    def end_file(self, path: str) -> None:
        """Takes the end of the records of the file ``path``."""


def _task_in_flight(details: dict[str, Any]) -> str:
    """Returns where the task in flight starts, e.g. ``from 2 of 3`` or ``settled (4)``; ``-`` when not judged."""
    live_start, history = details["live_start"], details["history"]
    if live_start is None or history is None:
        return "-"
    return f"settled ({history})" if live_start >= history else f"from {live_start} of {history}"


def _row(result: CheckResult) -> list[str]:
    d = result.details
    return [str(d["index"]), d["endpoint"], d["model"] or "-", d["config"] or "-", _task_in_flight(d), d["verdict"],
            result.message or "-"]


HEADER = ["#", "ENDPOINT", "MODEL", "STRATEGY", "TASK IN FLIGHT", "VERDICT", "EVIDENCE"]


class TableSink:
    """Writes the terminal output of a ``Report`` of ``analyze`` as its records come: a table per
    file (blocks of ``BLOCK`` rows), then at ``finish`` the findings, the unreadable and the summary
    line. After ``TABLE_ROWS`` rows in a run (a day of traffic would be millions of lines), a file's
    further interactions are counted under its table, not shown: the findings and the summary still
    count every one, and ``--json`` and ``--report`` hold them all."""

    def __init__(self, out: TextIO, report: Report) -> None:
        self.out, self.report, self.tally = out, report, Tally()
        self.rows: list[list[str]] = []
        self.started = False
        self.unreadable = False  # the file being read ended with an error, already written
        self.shown = 0  # rows of the run's tables so far
        self.hidden = 0  # interactions of the file being read past ``TABLE_ROWS``, not shown

    def _flush(self) -> None:
        from ..table import grid

        if self.rows:
            self.out.write("\n".join(grid([HEADER, *self.rows])) + "\n")
            self.out.flush()
            self.rows = []

    def add(self, result: CheckResult) -> None:
        """Writes (or buffers, up to a block) one record."""
        self.tally.add(result)
        if _unreadable_file(result):
            self._flush()
            self.out.write(f"{result.message}\n\n")
            self.started, self.unreadable = False, True
            return
        if not self.started:
            self.out.write(result.details["file"] + "\n")
            self.started = True
        if self.shown >= TABLE_ROWS:
            self.hidden += 1
            return
        self.shown += 1
        self.rows.append(_row(result))
        if len(self.rows) >= BLOCK:
            self._flush()

    def end_file(self, path: str) -> None:
        """Ends the table of ``path`` (``no interactions`` when it had none)."""
        self.tally.end_file()
        if self.unreadable:
            self.unreadable = False
            return
        self._flush()
        if self.hidden:
            self.out.write(f"  and {self.hidden} more not shown (the tables stop at {TABLE_ROWS} rows; --json and "
                           "--report hold every one)\n")
            self.hidden = 0
        self.out.write(f"{path}\n  no interactions\n\n" if not self.started else "\n")
        self.started = False

    def finish(self, exit_code: int | None = None) -> None:
        """Writes the findings, the unreadable and the summary line (the exit code is not shown)."""
        from ..._text import fit

        tally = self.tally
        if tally.findings:
            more = [f"  and {tally.more_findings} more (see --json)"] if tally.more_findings else []
            self.out.write("\n".join(["Findings", *fit(tally.findings), *more, ""]) + "\n")
        if tally.unreadable:
            more = [f"  and {tally.more_unreadable} more (see --json)"] if tally.more_unreadable else []
            self.out.write("\n".join(["Unreadable", *fit(f"  {line}" for line in tally.unreadable), *more, ""]) + "\n")
        self.out.write(tally.summary() + "\n")


def _error_message(result: CheckResult) -> str:
    """Returns the ``error`` of the ``--json`` record of an unreadable file: ``line N: why`` or ``why``
    (the record's message is ``path:N: why`` or ``path: why``)."""
    message = result.message
    prefix = f"{result.scenario}:"
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix):]
    if rest.startswith(" "):
        return rest[1:]
    line, _, why = rest.partition(": ")
    return f"line {line}: {why}"


def json_record(result: CheckResult) -> dict[str, Any]:
    """Returns the ``--json`` record of one record of the report: ``Judgement.to_dict`` of a judged
    interaction, and for an unreadable file the same keys, index null."""
    if _unreadable_file(result):
        return {"file": result.scenario, "index": None, "provider": None, "endpoint": None, "model": None,
                "strategy": None, "live_start": None, "history": None, "verdict": ERROR, "evidence": [],
                "error": _error_message(result)}
    d = result.details
    return {"file": d["file"], "index": d["index"], "provider": result.target, "endpoint": d["endpoint"],
            "verdict": d["verdict"], "model": d["model"], "strategy": d["config"], "live_start": d["live_start"],
            "history": d["history"], "evidence": list(d["evidence"]),
            "error": result.message if d["verdict"] == ERROR else None}


class JsonSink:
    """Writes the ``--json`` output of a ``Report`` of ``analyze``: one JSON array, a record a line,
    each as soon as it comes."""

    def __init__(self, out: TextIO, report: Report) -> None:
        self.out, self.report = out, report
        self.first = True
        out.write("[")

    def add(self, result: CheckResult) -> None:
        """Writes the record of one judgement, or of a file that could not be read."""
        self.out.write(("\n" if self.first else ",\n") + _json.dumps(json_record(result)).decode("utf-8"))
        self.first = False

    def end_file(self, path: str) -> None:
        """Writes nothing: the array has no file boundaries."""

    def finish(self, exit_code: int | None = None) -> None:
        """Ends the array."""
        self.out.write("]\n" if self.first else "\n]\n")


class ReportSink:
    """Hands every record to a ``--report`` folder being written as it comes, keeping none."""

    def __init__(self, report: RecordSink) -> None:
        self.report = report

    def add(self, result: CheckResult) -> None:
        """Writes one record into the folder."""
        self.report.add(result)

    def end_file(self, path: str) -> None:
        """Writes nothing: the folder has no file boundaries."""

    def finish(self, exit_code: int | None = None) -> None:
        """Writes the rest of the folder (the footer, summary.md, index.html)."""
        self.report.finish(exit_code)


def _record(event: Judgement | FileEnd) -> CheckResult | None:
    """Returns the report's record of an event: a judgement, or a file that could not be read; None
    for the end of a file read to the end."""
    if not isinstance(event, FileEnd):
        return judgement_result(event)
    return None if event.error is None else unreadable_result(event.path, event.error)


def write(events: Iterable[Judgement | FileEnd], writers: list[Writer]) -> int:
    """Turns every event into the report's record (``Report.probes``) and hands it to each writer as
    it comes, then finishes them; returns the exit code (see ``Tally.exit_code``)."""
    tally = Tally()
    for event in events:
        result = _record(event)
        if result is not None:
            tally.add(result)
            for writer in writers:
                writer.add(result)
        if isinstance(event, FileEnd):
            tally.end_file()
            for writer in writers:
                writer.end_file(event.path)
    code = tally.exit_code()
    for writer in writers:
        writer.finish(code)
    return code
