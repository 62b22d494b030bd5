"""The fields every provider's ``lint-config`` finding carries; each provider adds its own after them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class LintFinding:
    """One mechanism's lint result: does it reach live work, from which task, and what avoids it."""

    edit: str
    label: str
    reaches: bool
    smallest_task: str
    avoid: str


def verdict_line(findings: Sequence[LintFinding]) -> str:
    """Returns the last line of ``lint-config``: whether (and through which mechanisms) it reaches live work."""
    reaching = [f.edit for f in findings if f.reaches]
    return f"lint-config: {'reaches into a task in flight via ' + ', '.join(reaching) if reaching else 'does not reach into a task in flight'}"
