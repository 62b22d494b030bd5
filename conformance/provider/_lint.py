"""The fields every provider's ``lint-config`` finding carries; each provider adds its own after them."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path


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


def emit(findings: Sequence[LintFinding], table: str, json_to: str | bool | None) -> int:
    """Prints the table and the verdict line, or with ``json_to`` ``-`` (or True) the findings as JSON
    instead; with a FILE, also writes them there. Returns 2 when the file cannot be written, else 0."""
    records = [asdict(f) for f in findings]
    if json_to is True or json_to == "-":
        print(json.dumps(records, indent=2))
        return 0
    print(table)
    print(verdict_line(findings))
    if json_to:
        try:
            Path(str(json_to)).write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"conformance lint-config: --json {json_to}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0
