"""Renderers of a run: one module per format, each plain data in, text out."""

from __future__ import annotations

from pathlib import Path

from ..command_report import Report
from .folder import Folder

__all__ = ["open_report", "write_all"]


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
