"""One registry for every extension point: providers, message formats, recording dialects, egress
components and peers.

Each kind is a group of Python entry points, ``context_conformance.<kind>`` (as pytest's ``pytest11``
is): a package adds one by declaring, in its own ``pyproject.toml``::

    [project.entry-points."context_conformance.providers"]
    gemini = "my_package.gemini:PROVIDER"

The ones this project ships are declared the same way in its ``pyproject.toml``, the one list of
them: read from that file in a checkout (so a checkout run without reinstalling finds a new one too),
else from the installed distribution's metadata (``shipped``). Nothing is looked up until a command
asks for a kind (one scan of the installed distributions serves every kind), and nothing is imported
until an entry is loaded. A shipped name keeps its shipped entry: an installed package adds names,
it does not replace this project's.

An entry of ``peers`` or ``egress_adapters`` names a list of the package's objects; an entry of
``dialects`` names one dialect (a module or object with ``NAME``, ``recognises`` and ``interactions``);
an entry of ``egress_surfaces`` names the path of a table file of the shipped table's schema
(``specs/egress/surfaces.yaml``), whose surfaces come after the shipped ones; an entry of
``guard_policies`` names a callable of one ``Judgement`` (``Guard(policy="name")``); an entry of
``matrix_suites`` names a ``conformance.matrix.suite.Suite`` (``conformance matrix --suite name``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .errors import UsageError

GROUP_PREFIX = "context_conformance."

DISTRIBUTION = "context-conformance"  # this project, whose own entry points are the shipped ones
# the extension points; within a kind, the shipped entries come in the order pyproject.toml lists them
KINDS = ("providers", "formats", "peers", "dialects", "egress_surfaces", "egress_adapters", "guard_policies",
         "matrix_suites")
_CHECKOUT = Path(__file__).resolve().parent.parent / "pyproject.toml"  # (absent from an installed wheel)


class RegistryError(UsageError, LookupError):
    """An entry that is unknown or cannot be loaded; the message names the kind, the entry and why
    (the command exits 2 with it, as for any usage error)."""


@dataclass(frozen=True)
class Entry:
    """One registered extension: its kind, its name and where it lives (``module:attr``)."""

    kind: str
    name: str
    value: str
    shipped: bool

    def load(self) -> Any:
        """Returns the object the entry names; raises ``RegistryError`` when it cannot be imported."""
        return _load(self.kind, self.name, self.value)


def group(kind: str) -> str:
    """Returns the entry-point group of ``kind`` (``context_conformance.providers``...); raises
    ``RegistryError`` for a kind that is not one of ``KINDS``."""
    if kind not in KINDS:
        raise RegistryError(f"unknown extension kind {kind!r}; known: {', '.join(KINDS)}")
    return GROUP_PREFIX + kind


@cache
def _shipped_groups() -> dict[str, dict[str, str]]:
    """Returns group -> {name: value} of this project's own entry points, in the order declared: from
    the checkout's ``pyproject.toml`` when the package runs from a checkout, else from the installed
    distribution's metadata (empty when neither is found)."""
    if _CHECKOUT.is_file():
        import tomllib

        project = tomllib.loads(_CHECKOUT.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == DISTRIBUTION:
            return {group: dict(declared) for group, declared in project.get("entry-points", {}).items()
                    if group.startswith(GROUP_PREFIX)}
    from importlib.metadata import PackageNotFoundError, distribution

    found: dict[str, dict[str, str]] = {}
    try:
        points = distribution(DISTRIBUTION).entry_points
    except PackageNotFoundError:
        return found
    for ep in points:
        if ep.group.startswith(GROUP_PREFIX):
            found.setdefault(ep.group, {})[ep.name] = ep.value
    return found


def shipped(kind: str) -> tuple[tuple[str, str], ...]:
    """Returns (name, value) of every entry this project ships in ``kind``, in the order declared;
    raises ``RegistryError`` for an unknown kind."""
    return tuple(_shipped_groups().get(group(kind), {}).items())


@cache
def _installed_groups() -> dict[str, dict[str, str]]:
    """Returns group -> {name: value} of every installed entry point of this project's groups (one
    scan of the installed distributions, whatever the number of kinds asked for)."""
    from importlib.metadata import distributions  # only when a command needs a kind

    found: dict[str, dict[str, str]] = {}
    for dist in distributions():  # in ``sys.path`` order: the first distribution to name an entry wins
        for ep in dist.entry_points:
            if ep.group.startswith(GROUP_PREFIX):
                found.setdefault(ep.group, {}).setdefault(ep.name, ep.value)
    return found


def installed(kind: str) -> tuple[tuple[str, str], ...]:
    """Returns (name, value) of every entry point installed in ``kind``'s group, sorted by name,
    including this project's own when it is installed with its metadata."""
    return tuple(sorted(_installed_groups().get(group(kind), {}).items()))


@cache
def entries(kind: str) -> tuple[Entry, ...]:
    """Returns the shipped entries of ``kind`` in their order, then the installed ones of other names."""
    group(kind)  # a known kind
    own = [Entry(kind, name, value, True) for name, value in shipped(kind)]
    names = {e.name for e in own}
    return tuple(own + [Entry(kind, name, value, False) for name, value in installed(kind) if name not in names])


def names(kind: str) -> list[str]:
    """Returns the names registered in ``kind``, shipped ones first."""
    return [e.name for e in entries(kind)]


def entry(kind: str, name: str) -> Entry:
    """Returns the entry called ``name``; raises ``RegistryError`` naming the known ones."""
    for found in entries(kind):
        if found.name == name:
            return found
    raise RegistryError(f"unknown {kind[:-1] if kind.endswith('s') else kind} {name!r}; known: {', '.join(names(kind))}")


def load(kind: str, name: str) -> Any:
    """Returns the loaded object registered as ``name`` in ``kind``; raises ``RegistryError``."""
    return entry(kind, name).load()


def load_all(kind: str, keep: Callable[[Entry], bool] = lambda e: True) -> list[Any]:
    """Returns every loaded object of ``kind`` in registry order (those ``keep`` accepts)."""
    return [e.load() for e in entries(kind) if keep(e)]


@cache
def _load(kind: str, name: str, value: str) -> Any:
    from importlib.metadata import EntryPoint

    try:
        return EntryPoint(name, value, group(kind)).load()
    except (ImportError, AttributeError) as exc:
        raise RegistryError(f"the {kind} entry {name!r} ({value}) cannot be loaded: {type(exc).__name__}: {exc}") from exc


def reset() -> None:
    """Forgets what was looked up and loaded (for a test that installs an entry point mid-run)."""
    _shipped_groups.cache_clear()
    _installed_groups.cache_clear()
    entries.cache_clear()
    _load.cache_clear()
