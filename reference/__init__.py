"""The reference task-boundary compactor: ``conformance_reference.compact(history, keep_turns=10)``."""

from .compactor import REASONING_TYPES, compact, estimate_tokens, task_boundary
from .errors import (AmbiguousBoundary, CompactionError, InterleavedTasks, LiveTaskOverBudget,
                     ReorderedHistory)

__all__ = ["REASONING_TYPES", "AmbiguousBoundary", "CompactionError", "InterleavedTasks",
           "LiveTaskOverBudget", "ReorderedHistory", "compact", "estimate_tokens", "task_boundary"]
