"""Fuzzing: Hypothesis strategies that build scenarios with their truth, the engine that runs the
catalog over them and shrinks a failure, and its command line and pytest route."""

from __future__ import annotations

from .engine import CACHE_DIR, FuzzOptions, FuzzResult, database_for, failing_checks, run_fuzz
from .strategies import GeneratedScenario, histories

__all__ = ["CACHE_DIR", "FuzzOptions", "FuzzResult", "GeneratedScenario", "database_for",
           "failing_checks", "histories", "run_fuzz"]
