"""Shared fixtures: the shipped scenarios, loaded once; the provider SDK, imported once per test
process; the long tests first; and pytest-xdist, when it is installed."""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType

import pytest

# Compiled modules, and the test modules pytest rewrites for its assertions, are cached in
# __pycache__ even where PYTHONDONTWRITEBYTECODE is set: without the cache every pytest-xdist
# worker and every command a test starts compiles them again (about 2 CPU-s per worker)
sys.dont_write_bytecode = False
# Pydantic loads every installed plugin of its own (logfire's, from the peers extra) the first time a
# model is built, in each process that imports an SDK: about 0.4 CPU-s a process, for plugins that act
# only when configured, which no test does. The pytest-xdist workers and the commands the tests start
# inherit it.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
# The validated-spec cache of the runs the tests start goes in the checkout's own (ignored) cache
# folder, never the user's: the pytest-xdist workers and the commands the tests start inherit it
os.environ.setdefault("CONFORMANCE_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".conformance_cache" / "specs"))

from conformance import LoadResult, Scenario, load  # noqa: E402  # after the line above, so that it is cached too
from conformance._gc import gc_paused  # noqa: E402

from ._order import long_first

# pytest-xdist comes with the `peers` extra; after a plain install the suite (and the conformance
# plugin run from this checkout) runs without it, so it is loaded here, not in `addopts`
XDIST = find_spec("xdist") is not None
pytest_plugins = ["xdist.plugin"] if XDIST else []

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


def pytest_configure(config: pytest.Config) -> None:
    # the mark the tests use to keep tests together on one worker, known without pytest-xdist too
    config.addinivalue_line("markers", "xdist_group(name): run on the same xdist worker as its group")


_BY_FILE = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Iterator[None]:
    """Makes ``--dist loadgroup`` the default under ``-n``, before pytest-xdist reads it, with the
    tests handed out by file (``tests/_schedule.py``) in the order collected."""
    if getattr(config.option, "dist", None) == "no":  # pytest-xdist loaded, no --dist given
        config.option.dist = "loadgroup"
        config.option.loadscopereorder = False  # the collection's order, not the files' sizes
        config.stash[_BY_FILE] = True
    return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Returns the scheduler that hands the tests out by file and group, unless ``--dist`` was given."""
    if not config.stash.get(_BY_FILE, False):
        return None
    from ._schedule import FileOrGroupScheduling

    return FileOrGroupScheduling(config, log)  # type: ignore[arg-type]  # xdist's Producer, untyped here


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    """Collects with the cyclic garbage collector paused (the test modules' imports load the harness,
    an SDK and the peers' libraries, and each pass meanwhile walks all loaded so far), then leaves
    all that out of later passes."""
    with gc_paused():
        collected = yield
    gc.freeze()
    return collected


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Moves the known long tests to the front, so that pytest-xdist hands them out first and the
    run does not end on one of them."""
    items[:] = long_first(items)


@pytest.fixture(scope="session", autouse=True)
def _provider_sdk_imported() -> None:
    """Imports both providers' SDKs once per process that runs tests (not at collection, nor in the
    pytest-xdist controller, which runs none): a command run in a test that replays the recordings
    then replays them here, rather than in processes that import the SDKs again each time."""
    import anthropic  # noqa: F401  # imported for its side effect: the SDK is in sys.modules
    import openai  # noqa: F401  # likewise


@pytest.fixture(scope="session", autouse=True)
def _collector_tuned(_provider_sdk_imported: None) -> None:
    """Leaves out of the cyclic garbage collector's passes what a test process holds for good by its
    first test (the modules, the SDKs), and lets it run less often: its full passes over everything
    the SDKs and the peer libraries define cost a test process about as much as its costliest test file
    (``python benchmarks/profile_tests.py`` prints the collector's part). The commands the tests
    start keep Python's defaults."""
    gc.set_threshold(10_000, 20, 20)  # (Python's: 700, 10, 10)
    gc.freeze()


@cache
def generated_docs_tool() -> ModuleType:
    """Returns ``tools/generated_docs.py`` loaded as the module ``generated_docs`` (once per process)."""
    spec = importlib.util.spec_from_file_location("generated_docs", ROOT / "tools" / "generated_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@cache
def shipped_specs() -> LoadResult:
    """Returns the shipped scenarios, loaded once per test process (probe files are skipped)."""
    return load([SPECS])


def covering(scenarios: Iterable[Scenario]) -> list[Scenario]:
    """Returns a few of ``scenarios`` that together have every family and every feature the
    scenarios declare (at least one scenario of each): picked greedily, the one adding the most
    not yet had first, the shortest history and then the lowest id among equals. For a test of one
    behaviour across the shapes of history the catalog has, where running every scenario tests
    the same thing again (the fewest messages, so the cheapest run)."""
    given = sorted(scenarios, key=lambda s: (len(s.history), s.id))
    has = {s.id: {("family", s.family), *(("feature", f) for f in s.features)} for s in given}
    left = set().union(*has.values()) if has else set()
    chosen: list[Scenario] = []
    while left:
        best = max(given, key=lambda s: len(has[s.id] & left))  # (max keeps the first of equals)
        chosen.append(best)
        left -= has[best.id]
    return chosen


@pytest.fixture(scope="session")
def shipped() -> LoadResult:
    """Returns the shipped scenarios (probe files are skipped by the loader)."""
    return shipped_specs()


_LOOPBACK = ("127.", "::1", "localhost")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuses every socket connection from a test except to loopback addresses."""
    import socket

    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else None
        if self.family in (socket.AF_INET, socket.AF_INET6) and not str(host).startswith(_LOOPBACK):
            raise ConnectionRefusedError(f"tests may not reach the network ({address!r})")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
def _extensions_imported() -> None:
    """Imports numpy (the harness's diff library imports it) before any ``pytester`` run: a run
    in this process drops from ``sys.modules`` what it imported, and numpy cannot be imported a
    second time in one process."""
    if find_spec("numpy") is not None:
        import numpy  # noqa: F401  # imported for its side effect: numpy loads once per process


@pytest.fixture()
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
             _extensions_imported: None) -> pytest.Pytester:
    """Returns pytest's ``pytester`` whose runs load the plugins the suite's own runs load (the
    conformance plugin and pytest-xdist) and no other installed one, as ``addopts`` does here."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTEST_PLUGINS", "conformance.plugin,xdist.plugin" if XDIST else "conformance.plugin")
    return pytester
