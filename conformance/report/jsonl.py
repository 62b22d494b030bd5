"""results.jsonl: a header, one record per check (and per drift change), a footer; schema-checked."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from ..engine.results import CheckResult

if TYPE_CHECKING:
    import jsonschema  # imported by the first record validated: a run that writes no report needs none

SCHEMA_FILE = "results.schema.json"


@cache
def schema() -> dict[str, Any]:
    """Returns the published JSON Schema of one results.jsonl line."""
    text = resources.files("conformance").joinpath("schema").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def result_line(seq: int, result: CheckResult) -> dict[str, Any]:
    """Returns the results.jsonl line of one check (``seq`` counts the lines after the header)."""
    return {"record": "result", "seq": seq, **result.to_dict()}


def drift_line(seq: int, change: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the results.jsonl line of one classified drift change."""
    return {"record": "drift", "seq": seq, **{k: change[k] for k in
            ("probe", "category", "change", "path", "rule", "before", "after") if k in change}}


def footer(counts: Mapping[str, int], gating: int, exit_code: int, spec_errors: Sequence[SpecError],
           drift: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Returns the last line of results.jsonl: the outcome counts, gating failures, exit code and
    spec errors (and the drift counts of a drift report)."""
    line: dict[str, Any] = {
        "record": "footer", "counts": dict(counts), "gating_failures": gating, "exit_code": exit_code,
        "spec_errors": [{"path": e.path, "line": e.line, "field": e.field, "message": e.message}
                        for e in spec_errors]}
    if drift is not None:
        line["drift"] = dict(drift["counts"])
    return line


class LineWriter:
    """Writes results.jsonl a line at a time, each checked against the schema as it is written,
    into a hidden file beside ``path`` that becomes ``path`` at ``close``: a line that breaks the
    schema leaves no results.jsonl (``ValueError``), as a whole file checked first did."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.partial = self.path.with_name(f".{self.path.name}.partial")
        self.out = self.partial.open("w", encoding="utf-8")
        self.lines = 0

    def write(self, line: Mapping[str, Any]) -> None:
        """Writes one line; raises ``ValueError`` (and removes the partial file) if it breaks the schema."""
        self.lines += 1
        record = line.get("record")
        problems = [f"line {self.lines}: {error.message}"
                    for error in _validator(record if isinstance(record, str) else None).iter_errors(line)]
        if problems:
            self.abort()
            raise ValueError("results.jsonl does not match its schema: " + "; ".join(problems[:5]))
        self.out.write(json.dumps(line, ensure_ascii=False, sort_keys=False, default=str) + "\n")

    def close(self) -> None:
        """Ends the file: the partial file becomes ``path``."""
        self.out.close()
        self.partial.replace(self.path)

    def abort(self) -> None:
        """Closes and removes the partial file."""
        self.out.close()
        self.partial.unlink(missing_ok=True)


@cache
def _validator(record: str | None) -> jsonschema.Draft202012Validator:
    """Returns a validator for one kind of record (the whole schema when the kind is unknown).

    Checking a line against its own ``$defs`` entry gives the same answer as the schema's ``oneOf``
    (the kinds are told apart by the constant ``record``) without trying every branch on every line.
    """
    import jsonschema

    whole = schema()
    if record not in whole["$defs"] or record == "counts":
        return jsonschema.Draft202012Validator(whole)
    return jsonschema.Draft202012Validator({**whole["$defs"][record], "$defs": whole["$defs"]})


def validate(lines: Iterable[Mapping[str, Any]]) -> list[str]:
    """Returns one message per line that does not match the schema (empty when all do)."""
    problems = []
    for number, line in enumerate(lines, start=1):
        record = line.get("record") if isinstance(line, Mapping) else None
        for error in _validator(record if isinstance(record, str) else None).iter_errors(line):
            problems.append(f"line {number}: {error.message}")
    return problems


def dumps(lines: Iterable[Mapping[str, Any]]) -> str:
    """Returns the records as JSON Lines text (one compact JSON object per line)."""
    return "".join(json.dumps(line, ensure_ascii=False, sort_keys=False, default=str) + "\n" for line in lines)


def write(path: str | Path, lines: Sequence[Mapping[str, Any]]) -> None:
    """Writes the records to ``path``; raises ``ValueError`` if a record breaks the schema."""
    problems = validate(lines)
    if problems:
        raise ValueError("results.jsonl does not match its schema: " + "; ".join(problems[:5]))
    Path(path).write_text(dumps(lines), encoding="utf-8")


def read(path: str | Path) -> list[dict[str, Any]]:
    """Returns the records of a results.jsonl file."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
