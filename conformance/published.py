"""A published record (the peer matrix, the egress matrix) against a fresh run of its targets: the
rows and fields that changed, dates aside, and the check's exit code. One comparison for every
record ``tools/generated_docs.py`` checks by running targets."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._text import plural

INSTALL = 'pip install "context-conformance[peers]"'


@dataclass(frozen=True)
class Record:
    """How one kind of record is compared: the command that writes it, the field naming a row, the
    field counting its inputs, and the noun of a row."""

    command: str
    key: str
    count: str
    noun: str

    def changed_cells(self, published: dict[str, Any], fresh: dict[str, Any], named: bool = False) -> list[str]:
        """Returns one line per row or field of ``fresh`` that differs from ``published``, dates aside;
        a row not installed here is not compared; with ``named`` (some rows chosen), published rows
        that were not run are not changes."""
        lines = [f"{self.count}: {published.get(self.count)} -> {fresh[self.count]}"] \
            if published.get(self.count) != fresh[self.count] else []
        before = {row[self.key]: row for row in published.get("rows", [])}
        for row in fresh["rows"]:
            old = before.pop(row[self.key], None)
            if not row.get("installed", True):
                continue  # a row not installed here says nothing about its published one
            if old is None:
                lines.append(f"{row[self.key]}: not in the published matrix")
                continue
            lines += [f"{row[self.key]}: {key} {old.get(key)!r} -> {row.get(key)!r}"
                      for key in sorted(set(row) | set(old)) if key != "checked" and row.get(key) != old.get(key)]
        if not named:
            lines += [f"{name}: in the published matrix, no longer a {self.noun}" for name in before]
        return lines

    def check_against(self, fresh: dict[str, Any], path: Path, named: bool = False) -> int:
        """Prints what changed against the record published at ``path``; returns 1 when something did,
        2 when it cannot be read or a row is not installed (so unchecked: never a pass), else 0."""
        try:
            published = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"conformance: error: cannot read the published {self.command} record {path}: {exc}", file=sys.stderr)
            return 2
        changes = self.changed_cells(published, fresh, named)
        missing = [row[self.key] for row in fresh["rows"] if not row.get("installed", True)]
        if changes:
            print(f"{self.command}: {plural(len(changes), 'change')} against {path}; run "
                  f"`conformance {self.command}{' --publish' if self.command == 'matrix' else ''}` and commit:")
            print("\n".join(f"  {line}" for line in changes))
            return 1
        if missing:
            print(f"conformance: error: {plural(len(missing), self.noun)} not installed, so their rows were not "
                  f"checked: {', '.join(missing)} ({INSTALL})", file=sys.stderr)
            return 2
        print(f"{self.command}: {len(fresh['rows'])} rows, the same as {path} (dates aside)")
        return 0
