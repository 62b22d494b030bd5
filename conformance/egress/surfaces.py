"""The table of surfaces, loaded from ``specs/egress/surfaces.yaml`` and checked against its schema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from ..engine._yamlsource import load_document
from ..errors import SpecError, UsageError

FORBIDDEN = "forbidden"
ENCRYPTED = "encrypted"
BYTE_IDENTICAL = "byte-identical"
ALLOWED = "allowed"


@dataclass(frozen=True)
class Surface:
    """One row of the table: a destination and what it may carry."""

    name: str
    reasoning: str  # byte-identical | allowed | encrypted | forbidden
    answer: str
    reader: str
    why: str


def surfaces_file() -> Path:
    """Returns the shipped table of surfaces."""
    from .conversations import SURFACES_FILE, shipped_folder

    return shipped_folder() / SURFACES_FILE


def load_table(path: str | Path | None = None) -> dict[str, Surface]:
    """Returns the surfaces by name, in file order; raises ``SpecError`` (file, line, field) when
    the file breaks its schema or names a surface twice."""
    import jsonschema

    data, locator = load_document(path or surfaces_file())
    schema = json.loads(resources.files("conformance").joinpath("schema").joinpath("surfaces.schema.json")
                        .read_text("utf-8"))
    for err in jsonschema.validators.validator_for(schema)(schema).iter_errors(data):
        raise locator.error(tuple(err.absolute_path), err.message)
    table: dict[str, Surface] = {}
    for index, raw in enumerate(data["surfaces"]):
        if raw["name"] in table:
            raise locator.error(("surfaces", index, "name"), f"surface {raw['name']!r} named twice")
        table[raw["name"]] = Surface(raw["name"], raw["reasoning"], raw["answer"], raw["reader"], raw["why"])
    return table


@cache
def table() -> dict[str, Surface]:
    """Returns the shipped table of surfaces, then the surfaces installed packages add (loaded once):
    each entry of the ``egress_surfaces`` registry names a table file of the shipped schema, and a
    surface the shipped table names keeps its shipped row. Raises ``SpecError`` for a broken table."""
    from .. import registry

    found = load_table()
    for path in registry.load_all("egress_surfaces"):
        for name, row in load_table(Path(path)).items():
            found.setdefault(name, row)
    return found


def surface(name: str) -> Surface:
    """Returns the surface ``name`` (shipped or installed); raises ``UsageError`` naming the known ones."""
    known = table()
    if name not in known:
        raise UsageError(f"unknown surface {name!r}; known: {', '.join(known)}")
    return known[name]


__all__ = ["ALLOWED", "BYTE_IDENTICAL", "ENCRYPTED", "FORBIDDEN", "SpecError", "Surface", "load_table",
           "surface", "surfaces_file", "table"]
