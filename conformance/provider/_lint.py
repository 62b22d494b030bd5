"""The fields every provider's ``lint-config`` finding carries; each provider adds its own after them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LintFinding:
    """One mechanism's lint result: does it reach live work, from which task, and what avoids it."""

    edit: str
    label: str
    reaches: bool
    smallest_task: str
    avoid: str
