"""``conformance analyze``: judge recorded traffic of any project, interaction by interaction.

``analyze_paths(paths)`` reads every recording under ``paths`` (``provider.recordings``), asks the
judge that claims each interaction (``registry``: one per provider, found by module name) for a
``Judgement`` and returns them per file; ``render``, ``records`` and ``exit_code`` turn them into
the table, the ``--json`` records and the exit status.
"""

from __future__ import annotations

from .model import VERDICTS, Judgement
from .registry import Judge, judges, register
from .render import check_results, records, render
from .run import FileResult, analyze_file, analyze_paths, exit_code

__all__ = ["VERDICTS", "FileResult", "Judge", "Judgement", "analyze_file", "analyze_paths", "check_results",
           "exit_code", "judges", "records", "register", "render"]
