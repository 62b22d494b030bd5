"""What ``conformance matrix`` runs: a suite of real libraries over the suite's cases, one row per
library, version and setting, published as ``<stem>.json`` (the record) and pages rendered from it.

A suite is an entry of the ``context_conformance.matrix_suites`` group (``conformance.registry``):
the peers over the scenarios (``peers``, this package's ``matrix`` module) and the egress
components over the egress conversations (``egress``) are two entries of it, and one command
selects, runs, writes and checks either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _no_pages(out: Path, matrix: dict[str, Any], cases: Sequence[Any]) -> None:
    return None


@dataclass(frozen=True)
class Suite:
    """One suite of the matrix command.

    ``select(names)`` returns the rows' runners named (all for none; raises ``KeyError`` with the
    message for an unknown name), each with ``installed``, ``library`` and ``name``; ``load(paths)``
    returns the cases' files read (``.errors``, and the cases by ``cases(loaded)``), ``specs()`` the
    shipped folder; ``build(runners, cases)`` returns the record (``rows`` keyed by ``key``, raising
    one of ``unavailable`` when a server a row needs cannot start); ``pages(out, matrix, cases)``
    writes the pages beyond ``<stem>.md``, named in ``page_names``; ``update_readme(path, matrix)``,
    for a record with a README block, replaces it (returning whether one was found), None without one.
    """

    name: str
    stem: str
    key: str
    noun: str
    install: str
    select: Callable[[Sequence[str]], list[Any]]
    specs: Callable[[], Path]
    load: Callable[[Sequence[str | Path]], Any]
    cases: Callable[[Any], Sequence[Any]]
    build: Callable[[Sequence[Any], Sequence[Any]], dict[str, Any]]
    summary_table: Callable[[dict[str, Any]], list[str]]
    markdown: Callable[[dict[str, Any]], str]
    check_against: Callable[[dict[str, Any], Path, bool], int]
    pages: Callable[[Path, dict[str, Any], Sequence[Any]], None] = _no_pages
    page_names: tuple[str, ...] = ()
    update_readme: Callable[[Path, dict[str, Any]], bool] | None = None
    unavailable: tuple[type[Exception], ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        """Returns the names of the files a run writes into its folder."""
        return (f"{self.stem}.json", f"{self.stem}.md", *self.page_names)


def suite(name: str) -> Suite:
    """Returns the registered suite called ``name`` (no other suite is loaded); raises
    ``RegistryError`` naming the known ones, or saying why it cannot be loaded."""
    from ..registry import entry

    found: Suite = entry("matrix_suites", name).load()  # (a registered Suite)
    return found
