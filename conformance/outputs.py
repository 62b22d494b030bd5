"""Check where a command will write before it does any work, so a bad path costs one line, not a run."""

from __future__ import annotations

import os
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
        raise UsageError(f"{option} {given}: is a folder; give a file name")
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
