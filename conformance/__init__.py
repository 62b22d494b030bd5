"""context-conformance: a conformance suite for conversation-history compaction.

The public API: load scenarios, resolve or wrap a target, run, and read the results.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import ConformanceError, SpecError, TargetError, UsageError
from .engine.expectations import KnownGap, apply_gaps, load_gaps
from .engine.invariants import BY_ID as INVARIANTS
from .engine.invariants import CATALOG, Invariant, catalog_table
from .engine.results import CheckResult, summarize
from .engine.runner import RunOptions, RunReport, check_scenario, run
from .engine.spec import Expectations, LoadResult, Scenario, Truth, load, load_file
from .engine.target import DEFAULT_TARGET, Observation, Target, call_guarded, from_callable, resolve
from .engine.transcript import find_live_start

_LAZY = {"histories": "fuzz.strategies", "run_fuzz": "fuzz", "FuzzOptions": "fuzz", "FuzzResult": "fuzz"}


def __getattr__(name: str) -> object:
    """Returns the fuzzing API on first use, so Hypothesis is imported only by those who fuzz."""
    if name in _LAZY:
        from importlib import import_module
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "CATALOG", "DEFAULT_TARGET", "INVARIANTS", "CheckResult", "ConformanceError", "Expectations",
    "FuzzOptions", "FuzzResult", "histories", "run_fuzz",
    "Invariant", "KnownGap", "LoadResult", "Observation", "RunOptions", "RunReport", "Scenario",
    "SpecError", "Target", "TargetError", "Truth", "UsageError", "__version__", "apply_gaps",
    "call_guarded", "catalog_table", "check_scenario", "find_live_start", "from_callable", "load",
    "load_file", "load_gaps", "resolve", "run", "summarize",
]
