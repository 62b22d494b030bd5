"""The pytest plugin: ``pytest --conformance-target MODULE:ATTR`` runs every scenario as a test item.

Items are named by scenario id (``id[target]`` with several targets), marked ``conformance``, and a
failure is rendered like the CLI's. Each spec file is a pytest ``File``, so a printed node id such
as ``specs/x.yaml::scenario-id`` can be passed back to pytest, and ``--lf`` reruns the failures.
Without ``--conformance-target`` the plugin does nothing.
"""

from __future__ import annotations

import math
import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ._text import plural
from ._paths import shipped
from .errors import ConformanceError, SpecError
from .engine.expectations import KnownGap, apply_gaps, load_gaps
from .formats.wrap import FORMAT_HELP, in_format
from .engine.invariants import BY_ID
from .engine.results import CheckResult, must_checked
from .engine.runner import RunOptions, check_scenario
from .engine.spec import Scenario, load
from .engine.spec_files import discover
from .engine.target import DEFAULT_TIME_LIMIT, Target, resolve


pytest_plugins = ["conformance.egress.plugin"]  # the egress route: --egress-target / --egress-surface


class ConformanceFailure(Exception):
    """Raised by an item whose target broke a gating check (``what`` names the kind: an egress item's
    are egress checks); carries the failing results."""

    def __init__(self, results: list[CheckResult], what: str = "gating check") -> None:
        self.results = results
        super().__init__(f"{plural(len(results), what)} failed")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "history compaction conformance")
    group.addoption("--conformance-target", action="append", metavar="MODULE:ATTR", default=[],
                    help="compactor to test against the scenarios; repeat for several")
    # one path a use (repeat for several), so a node id after it stays pytest's argument
    group.addoption("--conformance-specs", action="append", metavar="PATH", default=None,
                    help="spec file or folder; repeat for several (default: the shipped specs)")
    group.addoption("--conformance-expectations", action="append", metavar="FILE", default=[],
                    help="known gaps of the target, applied strictly")
    group.addoption("--conformance-format", metavar="NAME", default=None, help=FORMAT_HELP)
    group.addoption("--conformance-time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                    help="per-call time limit")
    group.addoption("--conformance-fuzz", type=int, default=0, metavar="N",
                    help="also run each target on N generated histories (seed: --conformance-fuzz-seed)")
    group.addoption("--conformance-fuzz-seed", type=int, default=0, metavar="S", help="seed of the generated histories")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a history-compaction conformance scenario")


def pytest_report_header(config: pytest.Config) -> str | None:
    targets = config.getoption("conformance_target")
    return f"conformance targets: {', '.join(targets)}" if targets else None


@dataclass
class _Collection:
    """What a run collects: the scenarios and errors of each spec file, and how to run them."""

    files: dict[Path, tuple[list[Scenario], list[SpecError]]]
    targets: list[Target]
    named_targets: list[Target]
    gaps: list[KnownGap]
    options: RunOptions
    fmt: str | None
    reached: set[Path] = field(default_factory=set)  # spec files pytest's own collection found


_COLLECTION = pytest.StashKey[_Collection]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Loads the specs once, before pytest walks its arguments; raises ``pytest.UsageError`` on bad options."""
    names = session.config.getoption("conformance_target")
    if names:
        session.config.stash[_COLLECTION] = _load(session.config, names)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Returns True for every path pytest walks on its own (``testpaths``, or the current folder)
    when a target of either route is given (``--conformance-target``, ``--egress-target``), so that
    the route runs its items alone, in a project's checkout as outside it; paths named on the
    command line are walked."""
    routed = config.stash.get(_COLLECTION, None) is not None or config.getoption("egress_target")
    return True if routed and config.args_source is not pytest.Config.ArgsSource.ARGS else None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Returns a ``SpecFile`` for a spec file of the run that pytest reaches, so that the node ids
    printed for failures (``specs/x.yaml::scenario-id``) can be given back to pytest, and ``--lf`` works."""
    state = parent.config.stash.get(_COLLECTION, None)
    key = file_path.resolve()
    if state is None or key not in state.files:
        return None
    state.reached.add(key)
    return _spec_file(parent, key, state)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> Iterator[None]:
    """Adds the items of the spec files pytest's arguments did not reach, and one failing item per spec error.

    When the arguments reach no spec file, every scenario is added; when they reach some (a pasted
    ``file.yaml::id``, ``--lf``), pytest's own selection stands and only spec errors elsewhere are
    added. The items go through pytest's own collection (so the "collected" count includes them);
    spec error items are held back from ``-k`` / ``-m`` deselection, so a broken spec always fails.
    """
    state = config.stash.get(_COLLECTION, None)
    if state is None:
        return (yield)
    return (yield from add_sparing_spec_errors(items, _unreached_items(session, state)))


def add_sparing_spec_errors(items: list[pytest.Item], added: Iterable[pytest.Item]) -> Generator[None, Any, Any]:
    """Adds ``added`` to ``items`` and, as the body of a ``pytest_collection_modifyitems`` wrapper,
    yields to pytest's own selection (``-k``, ``-m``) with every spec error item held back, then puts
    those first again, so a broken spec always fails. Returns what the yield gave."""
    spec_errors: list[pytest.Item] = [item for item in items if isinstance(item, SpecErrorItem)]
    items[:] = [item for item in items if not isinstance(item, SpecErrorItem)]
    for item in added:
        (spec_errors if isinstance(item, SpecErrorItem) else items).append(item)
    result = yield
    items[:0] = spec_errors
    return result


def _load(config: pytest.Config, names: list[str]) -> _Collection:
    """Returns the loaded specs and targets of a run; raises ``pytest.UsageError`` on bad options."""
    spec_paths = config.getoption("conformance_specs") or _named_spec_files(config) or [shipped("specs")]
    try:
        targets = [resolve(name) for name in names]
        files = discover(spec_paths)
    except ConformanceError as exc:
        raise pytest.UsageError(str(exc)) from None
    options = RunOptions(time_limit=config.getoption("conformance_time_limit"))
    if not (math.isfinite(options.time_limit) and options.time_limit > 0):
        raise pytest.UsageError(f"--conformance-time-limit must be a positive number of seconds, "
                                f"not {options.time_limit:g}")
    everything = load(files)  # across files, so duplicate ids are errors here as in the CLI
    if not everything.scenarios and not everything.errors:
        raise pytest.UsageError(f"no scenario found in {', '.join(map(str, spec_paths))}")
    ids = [s.id for s in everything.scenarios]
    gaps: list[KnownGap] = []
    for gap_file in config.getoption("conformance_expectations"):
        try:
            gaps.extend(load_gaps(gap_file, ids, BY_ID, targets=[t.name for t in targets]))
        except SpecError as exc:
            raise pytest.UsageError(f"expectations: {exc}") from None
    fmt = config.getoption("conformance_format")
    named_targets = targets  # the fuzzer wraps them in the format itself
    try:
        targets, scenarios, _ = in_format(targets, everything.scenarios, fmt)
    except ConformanceError as exc:
        raise pytest.UsageError(str(exc)) from None
    by_file: dict[Path, tuple[list[Scenario], list[SpecError]]] = {}
    paths = list(dict.fromkeys([*map(str, files), *(e.path for e in everything.errors)]))
    for path in paths:  # every error lands in an item, even one located outside the files found
        by_file[Path(path).resolve()] = ([s for s in scenarios if s.path == str(path)],
                                         [e for e in everything.errors if e.path == str(path)])
    return _Collection(by_file, targets, named_targets, gaps, options, fmt)


def _named_spec_files(config: pytest.Config) -> list[Path]:
    """Returns the spec files named by pytest's arguments (``specs/x.yaml``, ``specs/x.yaml::id``), so
    that a printed node id runs again without ``--conformance-specs``, whichever copy of the specs
    the run that printed it had loaded."""
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        return []
    named = (Path(str(arg).split("::", 1)[0]) for arg in config.args)
    return [path for path in named if path.suffix in (".yaml", ".yml") and path.is_file()]


def _spec_file(parent: pytest.Collector, path: Path, state: _Collection) -> SpecFile:
    """Returns the collector of one spec file; outside the rootdir its node id is its absolute path,
    which pytest accepts back as an argument."""
    try:
        path.relative_to(parent.config.rootpath)
        spec_file = SpecFile.from_parent(parent, path=path)
    except ValueError:
        spec_file = SpecFile.from_parent(parent, path=path, nodeid=path.as_posix())
    scenarios, errors = state.files[path]
    spec_file.setup_items(scenarios, errors, state.targets, state.gaps, state.options)
    return spec_file


def _unreached_items(session: pytest.Session, state: _Collection) -> list[pytest.Item]:
    """Returns the items of the spec files pytest's collection did not reach (only their spec
    errors when it reached some), and the fuzz items."""
    collected: list[pytest.Item] = []
    for path, (scenarios, errors) in state.files.items():
        if path in state.reached:
            continue
        if state.reached:
            if not errors:
                continue
            scenarios = []
        spec_file = _spec_file(session, path, state)
        spec_file.setup_items(scenarios, errors, state.targets, state.gaps, state.options)
        collected.extend(session.genitems(spec_file))
    examples = session.config.getoption("conformance_fuzz")
    selecting = any("::" in str(arg) for arg in session.config.args)  # a pasted node id runs only itself
    if examples > 0 and not selecting:  # through a collector too, so the fuzz items are counted as collected
        fuzz = FuzzRun.from_parent(session, name="fuzz")
        fuzz.setup_items(state.named_targets, examples, session.config.getoption("conformance_fuzz_seed"),
                         state.options.time_limit, state.fmt)
        collected.extend(session.genitems(fuzz))
    return collected


class FuzzRun(pytest.Collector):
    """The fuzz items of a run (one per target), collected like a file."""

    def setup_items(self, targets: list[Target], examples: int, seed: int, time_limit: float,
                    fmt: str | None = None) -> None:
        self._args = (targets, examples, seed, time_limit, fmt)

    def collect(self) -> list[pytest.Item]:
        from .fuzz.plugin import fuzz_items

        targets, examples, seed, time_limit, fmt = self._args
        return list(fuzz_items(self, targets, examples, seed, time_limit, fmt))  # type: ignore[arg-type]  # a collector stands for the session, as pytest allows


class SpecFile(pytest.File):
    """One scenario file: yields a ``ScenarioItem`` per scenario and target, a ``SpecErrorItem`` per error."""

    def setup_items(self, scenarios: list[Scenario], errors: list[SpecError], targets: list[Target],
                    gaps: list[KnownGap], options: RunOptions) -> None:
        self._scenarios, self._errors, self._targets = scenarios, errors, targets
        self._gaps, self._options = gaps, options

    def collect(self) -> Iterator[pytest.Item]:
        for error in getattr(self, "_errors", []):
            name = f"spec-error:{error.line or 0}" + (f":{error.field}" if error.field else "")
            item = SpecErrorItem.from_parent(self, name=name, error=error)
            item.add_marker(pytest.mark.conformance)
            yield item
        several = len(getattr(self, "_targets", [])) > 1
        for scenario in getattr(self, "_scenarios", []):
            for target in self._targets:
                name = f"{scenario.id}[{target.name}]" if several else scenario.id
                case = ScenarioItem.from_parent(self, name=name, scenario=scenario, target=target,
                                                gaps=self._gaps, options=self._options)
                case.add_marker(pytest.mark.conformance)
                yield case


class ScenarioItem(pytest.Item):
    """One scenario run against one target."""

    def __init__(self, *, scenario: Scenario, target: Target, gaps: list[KnownGap], options: RunOptions,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scenario, self.target, self.gaps, self.options = scenario, target, gaps, options

    def runtest(self) -> None:
        results = apply_gaps(check_scenario(self.target, self.scenario, self.options), self.gaps)
        self.user_properties.append(("scenario", self.scenario.id))
        gating = {"MUST"} | ({"REFERENCE"} if self.target.name in self.options.reference_targets else set())
        failing = [r for r in results if r.level in gating and r.outcome in ("fail", "error", "xpass")]
        if failing:
            raise ConformanceFailure(failing)
        expected = [r for r in results if r.outcome == "xfail"]
        if expected:
            pytest.xfail(expected[0].message)
        if not must_checked(results):  # every MUST skipped: no evidence, so no pass
            reasons = ", ".join(sorted({r.message for r in results})) or "no invariant applies"
            # reported at the scenario's file and line (``-rs``), not at this line
            raise pytest.skip.Exception(f"nothing checked: {reasons}", _use_item_location=True)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            from .report.terminal import render_failure

            where = f"{self.scenario.path}:{self.scenario.line}"
            lines = [f"scenario {self.scenario.id}: {self.scenario.description}", f"target {self.target.name}"]
            for result in excinfo.value.results:
                lines.extend(render_failure(result, where))
            return "\n".join(lines)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, max(self.scenario.line - 1, 0), f"scenario {self.scenario.id}"


class SpecErrorItem(pytest.Item):
    """A malformed part of a spec file, reported as a failing item naming file, line and field."""

    def __init__(self, *, error: SpecError, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise self.error

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        return f"spec error: {excinfo.value}"

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:  # as pytest.Item's
        return self.path, max((self.error.line or 1) - 1, 0), f"spec error in {self.error.field or 'file'}"
