"""Write scenarios as scenario files in the project's format (``specs/README.md``).

The inverse of ``conformance.engine.spec.load_file`` for the fields a scenario carries: what is written
loads back to an equal history, truth, params and expectations.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .spec import SCHEMA_FILE, Scenario

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - libyaml missing
    _Dumper = yaml.SafeDumper

SCHEMA_IN_CHECKOUT = Path("conformance") / "schema" / SCHEMA_FILE
HEADER = (f"# A context-conformance scenario file (format_version 1), valid against {SCHEMA_FILE},\n"
          f"# the JSON Schema shipped in the conformance package (conformance/schema/{SCHEMA_FILE}).\n")


def header_for(path: str | Path) -> str:
    """Returns the comment that opens a scenario file written at ``path``: inside a checkout of the
    project, a ``$schema`` path relative to the file that editors resolve; elsewhere a comment
    naming the shipped schema (no ``$schema`` that would point at nothing)."""
    folder = Path(path).resolve().parent
    for root in (folder, *folder.parents):
        schema_file = root / SCHEMA_IN_CHECKOUT
        if schema_file.is_file():
            relative = Path(os.path.relpath(schema_file, folder)).as_posix()
            return f"# yaml-language-server: $schema={relative}\n"
    return HEADER


def scenario_data(scenario: Scenario, comment: str | None = None) -> dict[str, Any]:
    """Returns the scenario as the plain mapping of one entry of a scenario file."""
    data: dict[str, Any] = {"id": scenario.id, "description": scenario.description, "family": scenario.family}
    if scenario.features:
        data["features"] = list(scenario.features)
    if comment:
        data["comment"] = comment
    data["history"] = scenario.history
    if scenario.params:
        data["params"] = dict(scenario.params)
    truth: dict[str, Any] = {"live_start": scenario.truth.live_start}
    if scenario.truth.unanswered:
        truth["unanswered"] = list(scenario.truth.unanswered)
    data["truth"] = truth
    expect: dict[str, Any] = {}
    if scenario.expect.invariants is not None:
        expect["invariants"] = list(scenario.expect.invariants)
    if scenario.expect.skip:
        expect["skip"] = dict(scenario.expect.skip)
    if scenario.expect.refusal_allowed:
        expect["refusal_allowed"] = True
    if scenario.expect.reference_output is not None:
        expect["reference"] = {"output": scenario.expect.reference_output}
    elif scenario.expect.reference_raises is not None:
        expect["reference"] = {"raises": scenario.expect.reference_raises}
    if expect:
        data["expect"] = expect
    return data


def dumps(scenarios: Sequence[Scenario], comments: Sequence[str | None] = (), header: str = HEADER) -> str:
    """Returns the text of a scenario file holding ``scenarios`` (format_version 1), opened by ``header``."""
    notes = list(comments) + [None] * (len(scenarios) - len(comments))
    document = {"format_version": 1, "scenarios": [scenario_data(s, c) for s, c in zip(scenarios, notes)]}
    return header + yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def write(path: str | Path, scenarios: Sequence[Scenario], comments: Sequence[str | None] = ()) -> Path:
    """Writes a scenario file at ``path`` (parent folders created); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(scenarios, comments, header_for(target)), encoding="utf-8")
    return target
