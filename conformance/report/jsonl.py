"""results.jsonl: a header, one record per check (and per drift change), a footer; schema-checked."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..results import CheckResult, summarize_shown
from .runinfo import header

if TYPE_CHECKING:
    import jsonschema  # imported by the first record validated: a run that writes no report needs none

SCHEMA_FILE = "results.schema.json"


@cache
def schema() -> dict[str, Any]:
    """Returns the published JSON Schema of one results.jsonl line."""
    text = resources.files("conformance").joinpath("schema").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def records(report: Any, results: Sequence[CheckResult], exit_code: int, *, command: str = "run",
            drift: Mapping[str, Any] | None = None, gating: int = 0) -> list[dict[str, Any]]:
    """Returns the lines of results.jsonl as plain data, header first and footer last."""
    lines: list[dict[str, Any]] = [header(command, list(report.targets), len(report.scenarios))]
    seq = 0
    for result in results:
        seq += 1
        lines.append({"record": "result", "seq": seq, **result.to_dict()})
    for change in (drift or {}).get("changes", []):
        seq += 1
        lines.append({"record": "drift", "seq": seq, **{k: change[k] for k in
                      ("probe", "category", "change", "path", "rule", "before", "after") if k in change}})
    footer: dict[str, Any] = {
        "record": "footer", "counts": summarize_shown(results)["outcomes"], "gating_failures": gating,
        "exit_code": exit_code,
        "spec_errors": [{"path": e.path, "line": e.line, "field": e.field, "message": e.message}
                        for e in report.spec_errors]}
    if drift is not None:
        footer["drift"] = dict(drift["counts"])
    lines.append(footer)
    return lines


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
