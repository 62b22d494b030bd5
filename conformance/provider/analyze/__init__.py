"""``conformance analyze``: judge recorded traffic of any project, interaction by interaction.

``analyze_stream(paths, jobs)`` reads every recording under ``paths`` (``provider.recordings``) one
interaction at a time, asks the judge that claims each (``registry``: one per provider, found by
module name) for a ``Judgement`` with the windowed index of the interactions before it
(``earlier``), and yields the judgements in input order, a ``FileEnd`` after each file, judged on
worker processes (``engines.local``) or a Dask cluster (``engines.dask``). ``output`` writes them as
they come (the report's records: ``render``); ``analyze_paths`` collects them per file for small
inputs, which ``exit_code`` turns into the exit status.
"""

from __future__ import annotations

from .earlier import Earlier
from .model import VERDICTS, Judgement
from .registry import Judge, judges, register
from .run import FileEnd, FileResult, analyze_file, analyze_paths, analyze_stream, exit_code

__all__ = ["VERDICTS", "Earlier", "FileEnd", "FileResult", "Judge", "Judgement", "analyze_file", "analyze_paths",
           "analyze_stream", "exit_code", "judges", "register"]
