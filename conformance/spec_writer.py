"""Write scenarios as scenario files in the project's format (``specs/README.md``).

The inverse of ``conformance.spec.load_file`` for the fields a scenario carries: what is written
loads back to an equal history, truth, params and expectations.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from .spec import Scenario

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - libyaml missing
    _Dumper = yaml.SafeDumper

HEADER = "# yaml-language-server: $schema=https://context-conformance.invalid/schema/scenarios.schema.json\n"


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


def dumps(scenarios: Sequence[Scenario], comments: Sequence[str | None] = ()) -> str:
    """Returns the text of a scenario file holding ``scenarios`` (format_version 1)."""
    notes = list(comments) + [None] * (len(scenarios) - len(comments))
    document = {"format_version": 1, "scenarios": [scenario_data(s, c) for s, c in zip(scenarios, notes)]}
    return HEADER + yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def write(path: str | Path, scenarios: Sequence[Scenario], comments: Sequence[str | None] = ()) -> Path:
    """Writes a scenario file at ``path`` (parent folders created); returns the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(scenarios, comments), encoding="utf-8")
    return target
