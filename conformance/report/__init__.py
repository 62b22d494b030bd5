"""Renderers of a run: one module per format, each plain data in, text out."""

from __future__ import annotations

from pathlib import Path

from ..engine.command_report import Report
from ..errors import UsageError
from .folder import Folder

__all__ = ["open_report", "write_all", "write_outputs"]


def open_report(directory: str | Path, report: Report) -> Folder:
    """Returns the report folder ``directory`` being written (a ``command_report.RecordSink``): its
    header, results and provider records already written, more records to ``add``, then ``finish``.
    The command layer hands it down to the commands below it (``verify``, ``analyze``, ``drift``)."""
    return Folder(directory, report)


def write_all(directory: str | Path, report: Report) -> None:
    """Writes results.jsonl, summary.md and index.html of ``report`` into ``directory`` (created when
    missing).

    Reasoning text never reaches the files. Raises ``ValueError`` if a record breaks the schema.
    """
    Folder(directory, report).finish()


def write_outputs(report: Report, json_path: str | None, directory: str | None) -> None:
    """Writes the JSON report of a finished run to ``json_path`` (``-``: standard output) and its
    report folder to ``directory``, each when given; raises ``UsageError`` when one cannot be written."""
    try:
        if directory:
            Path(directory).mkdir(parents=True, exist_ok=True)
        if json_path:
            from . import jsonfile

            jsonfile.write(json_path, report)
        if directory:
            write_all(directory, report)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or 'the output'}: {exc.strerror or exc}") from None
