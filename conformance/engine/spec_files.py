"""Find spec files and load a set of them: the discovery and the rule on ids every loader shares."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from ..errors import SpecError

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


class Identified(Protocol):
    """Something a spec file declares: its id and where it stands."""

    @property
    def id(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...


T = TypeVar("T", bound=Identified)


def discover(paths: Iterable[str | Path], leave_out: Collection[str] = ()) -> list[Path]:
    """Returns the spec files named by ``paths`` (files, or ``.yaml``/``.yml``/``.json`` files of
    folders searched recursively), sorted, without those named in ``leave_out``.

    Raises ``SpecError`` for a path that does not exist.
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(p for p in path.rglob("*") if p.suffix in SPEC_SUFFIXES and p.is_file())
        elif path.is_file():
            files.append(path)
        else:
            raise SpecError(path, None, "", "no such file or folder")
    return sorted(p for p in set(files) if p.name not in leave_out)


def load_all(paths: Iterable[str | Path], load_file: Callable[[Path], tuple[Sequence[T], Sequence[SpecError]]],
             leave_out: Collection[str] = ()) -> tuple[list[T], list[SpecError]]:
    """Returns what ``load_file`` read from each file under ``paths`` and the errors found, in file
    order: the first of each id is kept and each later one is an error (a missing path is the only
    error when a path does not exist)."""
    try:
        files = discover(paths, leave_out)
    except SpecError as exc:
        return [], [exc]
    kept: list[T] = []
    errors: list[SpecError] = []
    seen: dict[str, T] = {}
    for file in files:
        items, file_errors = load_file(file)
        errors.extend(file_errors)
        for item in items:
            first = seen.get(item.id)
            if first is not None:
                errors.append(SpecError(item.path, item.line, "id",
                                        f"duplicate id {item.id!r} (first at {first.path}:{first.line})"))
                continue
            seen[item.id] = item
            kept.append(item)
    return kept, errors
