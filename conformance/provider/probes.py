"""Load provider probe specs (``specs/provider/*.yaml``): validate each file and let its provider
build the probes.

A probe file has ``format_version: 1``, ``probes: [...]`` and optionally ``provider`` (the
implicit provider when absent). It is validated against the provider's probe schema (the shipped
providers share ``conformance/schema/probe.schema.json``) and each probe is then built, and
checked against the documented semantics, by its provider (``base.Provider.build_probe``).
Every problem is a located ``SpecError``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fastjsonschema

from ..engine._compiled_schema import compiled_check
from ..engine._yamlsource import load_document, read_text
from ..errors import SpecError
from . import base

if TYPE_CHECKING:
    import jsonschema  # imported where a probe file has a problem to locate (or a lint config to check)

SCHEMA_FILE = "probe.schema.json"
AnyProbe = base.ProviderProbe


@cache
def schema() -> dict[str, Any]:
    """Returns the probe JSON Schema shipped with the package."""
    text = resources.files("conformance").joinpath("schema", SCHEMA_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def subschema_validator(name: str) -> jsonschema.Draft202012Validator:
    """Returns a validator for one ``$defs`` entry of the probe schema (e.g. ``lintConfig``)."""
    import jsonschema

    root = schema()
    return jsonschema.Draft202012Validator({"$schema": root["$schema"], "$defs": root["$defs"],
                                            "$ref": f"#/$defs/{name}"})


def _compiled(provider: str | None = None) -> Callable[[Any], Any] | None:
    """Returns the compiled check of ``provider``'s probe schema (None: see ``compiled_check``),
    compiled once per schema: providers that share one (the shipped ones) share its check."""
    return _compiled_schema(json.dumps(base.of(provider).probe_schema(), sort_keys=True))


@cache
def _compiled_schema(text: str) -> Callable[[Any], Any] | None:
    """Returns the compiled check of the schema written as JSON ``text``."""
    return compiled_check(json.loads(text))


def _schema_errors(data: Any, provider: str | None = None) -> Iterator[jsonschema.ValidationError]:
    """Yields the provider's schema's errors in ``data``: none at once when the compiled check accepts it."""
    check = _compiled(provider)
    if check is not None:
        try:
            check(data)
            return
        except fastjsonschema.JsonSchemaException:
            pass  # the located validator says where
    import jsonschema

    yield from jsonschema.Draft202012Validator(base.of(provider).probe_schema()).iter_errors(data)


def _provider_name(data: dict[str, Any]) -> str | None:
    """Returns the file's registered provider name, None for none or one no registry entry has
    (the implicit provider's schema then says what is wrong with it)."""
    name = data.get("provider")
    return name if isinstance(name, str) and name in base.names() else None


_LOADED: dict[tuple[str, str, str | None, tuple[str, ...]], tuple[list[AnyProbe], list[SpecError]]] = {}
_LOADED_LIMIT = 64


def load_file(path: Path, provider: str | None = None) -> tuple[list[AnyProbe], list[SpecError]]:
    """Returns the file's valid probes and one ``SpecError`` per bad probe (or for the whole file);
    with ``provider``, nothing from a file of another provider's probes (they are not built).

    A process that loads the same file again (the pytest plugin, a notebook, the tests) gets a copy
    of what the same text gave before, with the same providers registered."""
    try:
        text = read_text(path)
    except SpecError as exc:
        return [], [exc]
    key = (str(path), text, provider, tuple(base.names()))
    if key not in _LOADED:
        if len(_LOADED) >= _LOADED_LIMIT:
            _LOADED.clear()
        _LOADED[key] = _load_text(path, text, provider)
    return copy.deepcopy(_LOADED[key])


def _load_text(path: Path, text: str, provider: str | None) -> tuple[list[AnyProbe], list[SpecError]]:
    """Returns ``load_file``'s answer for ``text``, the contents of ``path``."""
    try:
        data, locator = load_document(path, text)
    except SpecError as exc:
        return [], [exc]
    if not isinstance(data, dict) or "probes" not in data:
        return [], [SpecError(path, 1, "probes", "not a probe file (no top-level `probes:`)")]
    given, name = data.get("provider"), _provider_name(data)  # (the compiled check fills in defaults)
    if provider is not None and provider != (name if name is not None else base.implicit().name):
        return [], []  # another provider's probes: not built
    by_probe: dict[int, list[jsonschema.ValidationError]] = {}
    errors: list[SpecError] = []
    for error in _schema_errors(data, name):
        where = tuple(error.absolute_path)
        if len(where) >= 2 and where[0] == "probes" and isinstance(where[1], int):
            by_probe.setdefault(where[1], []).append(error)
        else:
            errors.append(locator.error(where, error.message))
    if not errors and name is None and given is not None:
        errors.append(locator.error(("provider",), f"{given!r} is not a provider; known: "
                                    f"{', '.join(base.names())}"))
    if errors:
        return [], errors
    probes: list[AnyProbe] = []
    builder = base.of(name)
    for index, raw in enumerate(data["probes"]):
        where = ("probes", index)
        if index in by_probe:
            from jsonschema.exceptions import best_match

            problem = best_match(by_probe[index])
            errors.append(locator.error(tuple(problem.absolute_path), problem.message))
            continue
        try:
            probes.append(builder.build_probe(raw, path, where, locator))
        except SpecError as exc:
            errors.append(exc)
    return probes, errors


def spec_files(paths: Iterable[Path]) -> list[Path]:
    """Returns the YAML files under ``paths`` (files as given, folders searched recursively)."""
    found: list[Path] = []
    for path in paths:
        found += sorted(path.rglob("*.y*ml")) if path.is_dir() else [path]
    return found


def load_probes(paths: Iterable[Path], provider: str | None = None) -> tuple[dict[str, AnyProbe], list[SpecError]]:
    """Returns probes by id from every file under ``paths`` (each built by the provider its file
    names; only ``provider``'s when given) and the errors found; ids must be unique."""
    probes: dict[str, AnyProbe] = {}
    errors: list[SpecError] = []
    for path in spec_files(paths):
        found, bad = load_file(path, provider)
        errors += bad
        for probe in found:
            if provider is not None and probe.provider != provider:
                continue
            if probe.id in probes:
                errors.append(SpecError(path, probe.line, "id", f"duplicate probe id {probe.id!r} "
                                        f"(first in {probes[probe.id].path}:{probes[probe.id].line})"))
                continue
            probes[probe.id] = probe
    return probes, errors
