"""The validated form of spec files, kept between runs and keyed by content.

Reading the shipped YAML and checking it against the schema takes most of a run's start-up; the
result of a file that loaded without a problem is plain data (its scenarios as parsed, and the
line of each), so it is stored once under the user's cache folder, by a key made of everything
the result depends on: the file's text and kind, the invariant ids it may name, the schema, the
loading code and the parser's versions. A changed file, schema or loader is a new key; a file with
a problem is never stored (its errors are found again on every run); a cache folder that cannot be
read or written only costs the time. ``CONFORMANCE_CACHE_DIR`` names another folder, or ``off``.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from collections.abc import Collection, Iterable
from functools import cache
from pathlib import Path
from typing import Any

FORMAT = b"spec-cache 1"
ENVIRONMENT = "CONFORMANCE_CACHE_DIR"
_PACKAGE = Path(__file__).resolve().parents[1]
# what the validated form of a file depends on, besides the file itself (paths in the package)
_LOADER_FILES = ("engine/spec.py", "engine/_yamlsource.py", "engine/_compiled_schema.py", "engine/transcript.py",
                 "engine/invariant_entries.py", "engine/spec_cache.py", "schema/scenarios.schema.json")
_PLAIN = (str, int, float, bool, type(None))


def folder() -> Path | None:
    """Returns the cache folder (``None`` when ``CONFORMANCE_CACHE_DIR`` is ``off``, or when no
    home folder can be found)."""
    chosen = os.environ.get(ENVIRONMENT, "")
    if chosen.lower() in ("off", "0", "none"):
        return None
    if chosen:
        return Path(chosen)
    try:
        if sys.platform == "win32":
            base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        elif sys.platform == "darwin":
            base = Path.home() / "Library" / "Caches"
        else:
            base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except (RuntimeError, KeyError):  # no home folder to be found: no cache
        return None
    return base / "context-conformance" / "specs"


@cache
def _loader_digest() -> bytes:
    """Returns a digest of the loading code, the schema and the parsers' versions."""
    import fastjsonschema
    import yaml

    digest = hashlib.sha256(FORMAT)
    for name in _LOADER_FILES:
        try:
            digest.update(name.encode() + b"\0" + (_PACKAGE / name).read_bytes() + b"\0")
        except OSError:
            digest.update(name.encode() + b"\0missing\0")
    digest.update(f"{yaml.__version__} {getattr(yaml, '__with_libyaml__', '')} "
                  f"{fastjsonschema.VERSION} {sys.version_info[:2]}".encode())
    return digest.digest()


def key(text: str, kind: str, invariant_ids: Collection[str]) -> str:
    """Returns the cache key of a file's text read as ``kind`` (``json`` or ``yaml``) with the
    invariant ids it may name."""
    digest = hashlib.sha256(_loader_digest())
    digest.update(kind.encode() + b"\0" + "\0".join(sorted(invariant_ids)).encode() + b"\0\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def is_plain(value: Any) -> bool:
    """Returns whether ``value`` is plain data that reads back exactly as it was (dicts, lists,
    strings, numbers, booleans and None; no dates, sets or tuples a YAML file may hold)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.keys())
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind not in _PLAIN:
            return False
    return True


def get(name: str) -> tuple[list[Any], list[int]] | None:
    """Returns the stored scenarios (as parsed) and lines of the key ``name``, or ``None`` when
    there are none (or the stored file cannot be read as such)."""
    where = folder()
    if where is None:
        return None
    try:
        data = marshal.loads((where / f"{name}.marshal").read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(data, tuple) and len(data) == 3 and data[0] == name and isinstance(data[1], list)
            and isinstance(data[2], list) and len(data[1]) == len(data[2])):
        return None
    return data[1], data[2]


def put(name: str, scenarios: list[Any], lines: Iterable[int]) -> bool:
    """Stores the scenarios (as parsed) and lines of the key ``name``; returns whether they were
    stored (never raises: not plain data, or a folder that cannot be written, stores nothing)."""
    where = folder()
    if where is None or not is_plain(scenarios):
        return False
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=where, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(marshal.dumps((name, scenarios, list(lines))))
            os.replace(temporary, where / f"{name}.marshal")  # readers see a whole file or none
        except BaseException:
            os.unlink(temporary)
            raise
    except (OSError, ValueError):
        return False
    return True
