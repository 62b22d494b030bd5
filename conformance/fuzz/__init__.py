"""Fuzzing: Hypothesis strategies that build scenarios with their truth, the engine that runs the
catalog over them and shrinks a failure, and its command line and pytest route.

The names below are loaded on first use, so a command that does not fuzz never imports Hypothesis.
"""

from __future__ import annotations

from importlib import import_module

_WHERE = {"CACHE_DIR": "engine", "FuzzOptions": "engine", "FuzzResult": "engine", "database_for": "engine",
          "failing_checks": "engine", "run_fuzz": "engine", "GeneratedScenario": "generated",
          "histories": "strategies"}


def __getattr__(name: str) -> object:
    """Returns the fuzzing API name ``name`` from the module that defines it; raises AttributeError."""
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_WHERE)
