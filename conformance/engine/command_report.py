"""The one report of every command (``run``, ``egress``, ``analyze``, ``verify``, ``drift``), which
every writer takes.

The writers that take a ``Report``: the terminal output (``report.terminal.render`` of ``run`` and
``egress``, ``provider.analyze.output.TableSink``, ``provider.verify_output.terminal``,
``drift.output.terminal``); the ``--json`` output (``report.jsonfile.write`` of ``run`` and
``egress``, ``provider.analyze.output.JsonSink``, ``provider.verify_output.json_text``,
``drift.output.json_text``) and drift's ``--markdown`` (``drift.output.markdown``); the ``--report``
folder of every command (``report.open_report``, ``report.folder``: results.jsonl by
``report.jsonl``, summary.md, the CI job summary, by ``report.markdown``, index.html by
``report.html``). ``analyze`` keeps no records: its writers are opened on a ``Report`` whose
``probes`` stay empty and take each record as it comes (``RecordSink.add``).

One record type, ``CheckResult``, for every command: a scenario on a compactor (``run``), a
conversation on a serializer (``egress``), a replayed recording (``verify``, ``run``) and a judged
interaction (``analyze``) each have a subject (``scenario``), a check (``invariant``) and an outcome;
the provider's own verdict rides in ``details["verdict"]``. One type means one results.jsonl line
kind, one set of tallies and one exit-code rule for all of them. Drift is the exception: its
records are classified changes between two recordings (before, after, rule), not outcomes of a
check, so they stay the drift data (``drift``) and become results.jsonl's ``drift`` lines.

The module sits low in the layers (it imports only the result records and the errors), so the
commands below the report package build a ``Report`` and hand it to a writer the command layer
passes down (``OpenReport``): no import climbs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import SpecError
from .results import CheckResult, gating_failures

if TYPE_CHECKING:
    from .spec import Scenario
    from .target import Observation

COMMANDS = ("run", "egress", "analyze", "verify", "drift")


@dataclass
class Report:
    """Everything one command produced, as plain data.

    ``results`` are the checks of the targets (a scenario or a conversation on a target), ``probes``
    the provider's records (replayed recordings, judged interactions); ``scenarios`` and
    ``observations`` are the compactor scenarios a ``run`` ran and what each target returned (the
    failure timelines are drawn from them; other commands run none). ``stopped``, ``given_up`` and
    ``interrupted`` say what ended a run early. ``verdict`` and ``code`` are set by a command whose
    verdict or exit code is not the default rule (``exit_code``).
    """

    command: str = "run"
    results: list[CheckResult] = field(default_factory=list)
    probes: Sequence[CheckResult] = ()
    spec_errors: list[SpecError] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    reference_targets: frozenset[str] = frozenset()
    scenarios: list[Scenario] = field(default_factory=list)
    observations: dict[tuple[str, str], Observation] = field(default_factory=dict)
    stopped: str = ""  # why the run ended before every scenario ran (``--maxfail``, Ctrl-C), else empty
    given_up: dict[str, str] = field(default_factory=dict)  # target -> why its other scenarios did not run
    interrupted: bool = False  # Ctrl-C: the records are those of the scenarios that finished
    drift: Mapping[str, Any] | None = None  # the classified changes of ``drift`` (drift.compare)
    verdict: str | None = None  # the command's own verdict (e.g. NOTHING CHECKED); None: the writers'
    code: int | None = None  # the command's own exit code; None: the rule of ``exit_code``

    def failures(self) -> list[CheckResult]:
        """Returns the results that make the run fail (MUST, plus REFERENCE for reference targets)."""
        must = gating_failures(self.results, ("MUST",))
        ref = [r for r in gating_failures(self.results, ("REFERENCE",)) if r.target in self.reference_targets]
        return must + ref

    @property
    def exit_code(self) -> int:
        """Returns ``code`` when the command set one; else 2 for spec errors, 1 when a gating check
        failed, 0 when the target conforms."""
        if self.code is not None:
            return self.code
        if self.spec_errors:
            return 2
        return 1 if self.failures() else 0


class RecordSink(Protocol):
    """A report being written: records are added as they come, ``finish`` writes the rest."""

    def add(self, result: CheckResult) -> None:
        """Writes one more provider record (``Report.probes``) of the report."""

    def finish(self, exit_code: int | None = None) -> None:
        """Writes the footer and the files built from the whole report (``exit_code``: the report's
        ``exit_code`` when None)."""


# (folder, report) -> the sink that writes it: ``report.open_report``, handed down by the command layer
OpenReport = Callable[[str | Path, Report], RecordSink]


def write_report(open_report: OpenReport, directory: str | Path, report: Report) -> None:
    """Writes the whole of ``report`` (its records all in memory) into ``directory`` with
    ``open_report``; raises what the writer raises (``OSError``, ``ValueError``)."""
    open_report(directory, report).finish()
