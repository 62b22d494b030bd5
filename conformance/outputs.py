"""Check where a command will write before it does any work, so a bad path costs one line, not a run.

Every command with an output option checks all of them here (``check_outputs``) before it reads or
writes anything: an output that names one of the command's inputs, lies inside a folder it reads,
or would replace an existing file of another kind (a recording swallowed as ``--json``'s value) is
refused with exit code 2 and nothing written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import UsageError


def _writable_folder(folder: Path, option: str, given: str) -> None:
    if not folder.exists():
        raise UsageError(f"{option} {given}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise UsageError(f"{option} {given}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {given}: the folder {folder} is not writable")


def check_output_file(given: str, option: str, make_folders: bool = False) -> None:
    """Raises ``UsageError`` unless ``given`` names a file that can be written: its folder exists (or,
    with ``make_folders``, can be created) and is writable, and it is not a folder or a read-only file."""
    path = Path(given)
    if path.is_dir():
        raise UsageError(f"{option} {given}: is a folder, not a file to write; give a file name")
    if make_folders:
        _creatable(path.parent, option, given)
    else:
        _writable_folder(path.parent, option, given)
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {given}: the file exists and is not writable")


def check_output_folder(given: str, option: str) -> None:
    """Raises ``UsageError`` unless ``given`` is a writable folder, or a folder that can be created
    (its nearest existing ancestor is a writable folder)."""
    path = Path(given)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{option} {given}: is a file, not a folder")
        _writable_folder(path, option, given)
        return
    _creatable(path, option, given)


def _creatable(folder: Path, option: str, given: str) -> None:
    """Raises ``UsageError`` unless ``folder`` is, or can be made inside, a writable folder."""
    ancestor = folder.absolute()
    while not ancestor.exists():
        ancestor = ancestor.parent
    _writable_folder(ancestor, option, given)


STDOUT = "-"  # an output option's value that means standard output, not a file
JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")  # an existing file ``--json`` may write over
MARKDOWN_SUFFIXES = (".md", ".markdown", ".txt")
YAML_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Output:
    """One path a command was told to write, as given on its command line.

    ``option`` is the option's name (``--json``), ``given`` its value (None or empty: not given; ``-``:
    standard output, when ``stdout`` allows it). A ``folder`` output is a folder the command writes
    the files ``names`` into (``--report DIR``: results.jsonl, summary.md, index.html). A file
    output writes over an existing regular file only when its suffix is one of ``suffixes`` (any
    suffix when empty) and ``refuse`` (given the existing file) returns None: what a command writes
    never replaces a file of another kind, such as a recording the option swallowed.
    ``make_folders``: the command creates the file's missing folders.
    """

    option: str
    given: str | None
    folder: bool = False
    names: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    refuse: Callable[[Path], str | None] | None = None
    stdout: bool = False
    make_folders: bool = False


REPORT_FILES = ("results.jsonl", "summary.md", "index.html")  # what a ``--report DIR`` writes into DIR


def report_output(given: str | None) -> Output:
    """Returns the ``Output`` of a ``--report DIR`` option."""
    return Output("--report", given, folder=True, names=REPORT_FILES)


def json_output(given: str | None, refuse: Callable[[Path], str | None] | None = None,
                make_folders: bool = False) -> Output:
    """Returns the ``Output`` of a ``--json FILE`` option (``-``: standard output)."""
    return Output("--json", given, suffixes=JSON_SUFFIXES, refuse=refuse, stdout=True, make_folders=make_folders)


def _resolved(path: Path) -> Path:
    """Returns ``path`` made absolute with its links followed, as far as it exists."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a link loop: the path as written, made absolute
        return path.absolute()


def _same_file(a: Path, b: Path) -> bool:
    """Returns whether ``a`` and ``b`` name one file: the same resolved path, or (both existing)
    the same file by ``os.path.samefile`` (a hard link, a bind mount)."""
    if _resolved(a) == _resolved(b):
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Returns whether ``path`` is ``folder`` or lies under it (resolved paths)."""
    return _resolved(path).is_relative_to(_resolved(folder))


def _refused(out: Output, why: str) -> UsageError:
    return UsageError(f"{out.option} {out.given}: {why}; nothing was written")


def _against_inputs(out: Output, inputs: Sequence[Path], within: bool) -> None:
    """Raises ``UsageError`` when ``out`` would write one of ``inputs``, or (with ``within``) into
    an input folder."""
    path = Path(str(out.given))
    for source in inputs:
        if _same_file(path, source):
            kind = "folder" if source.is_dir() else "file"
            raise _refused(out, f"is the input {kind} {source}")
        if within and source.is_dir() and _inside(path, source):
            raise _refused(out, f"is inside the input folder {source}, which this command reads")
        for file in [path / name for name in out.names] if out.folder else []:
            if _same_file(file, source):
                raise _refused(out, f"would write {file}, the input file {source}")


def _over_existing(out: Output) -> None:
    """Raises ``UsageError`` when the file output ``out`` would write over an existing regular file
    of another kind (its suffix not one of ``out.suffixes``, or refused by ``out.refuse``)."""
    path = Path(str(out.given))
    if not path.is_file():  # nothing there, or not a regular file (/dev/null, a pipe): nothing to lose
        return
    other = " or -" if out.stdout else ""
    if out.suffixes and path.suffix.lower() not in out.suffixes:
        raise _refused(out, f"the file exists and is not a {'/'.join(out.suffixes)} file, so it is not written "
                            f"over (give a new file name{other})")
    why = out.refuse(path) if out.refuse is not None else None
    if why:
        raise _refused(out, f"the file exists and {why}, so it is not written over (give a new file name{other})")


def check_outputs(outputs: Iterable[Output], inputs: Iterable[str | Path] = (), *, within: bool = True) -> None:
    """Raises ``UsageError``, before anything is written, unless every output given can be written
    without losing anything: it names no input (the same file, resolved or by ``os.path.samefile``)
    and, with ``within``, lies inside no input folder (a command that reads a folder would read its
    own output next time); a folder output writes none of its ``names`` over an input; a file
    output is writable (``check_output_file``) and replaces no existing file of another kind (see
    ``Output``); a folder output is writable (``check_output_folder``); no two outputs name one
    path; ``-`` only where ``stdout`` allows it, and no empty value. Returns None."""
    given = [out for out in outputs if out.given is not None]
    sources = [Path(p) for p in inputs]
    folders = [Path(out.given) for out in given if out.folder and out.given]
    for out in given:
        if not out.given:
            raise UsageError(f"{out.option} needs a {'folder' if out.folder else 'file'} name"
                             + (" (or - for standard output)" if out.stdout else ""))
        if out.given == STDOUT:
            if out.stdout:
                continue
            raise UsageError(f"{out.option} -: standard output is not a {'folder' if out.folder else 'file'} "
                             "this option can write; give a name")
        _against_inputs(out, sources, within)
        if out.folder:
            check_output_folder(out.given, out.option)
        else:
            path = Path(out.given)
            into_output_folder = any(_inside(path.parent, folder) for folder in folders)
            check_output_file(out.given, out.option, make_folders=out.make_folders or into_output_folder)
            _over_existing(out)
    files = [out for out in given if out.given != STDOUT]
    for i, first in enumerate(files):
        for second in files[i + 1:]:
            if _same_file(Path(str(first.given)), Path(str(second.given))):
                raise UsageError(f"{first.option} {first.given} and {second.option} {second.given} name the same "
                                 "path; nothing was written")
