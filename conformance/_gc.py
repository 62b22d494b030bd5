"""Pausing the cyclic garbage collector around work that builds many containers and no cycles (a
large document, the checks' facts, a library's import)."""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses the cyclic garbage collector for the block: building a large document (or the facts
    the checks share) creates millions of containers and no cycles, and each collection would walk
    them all again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def import_paused(name: str) -> ModuleType:
    """Returns the module ``name``, imported with the collector paused when it is not imported yet
    (a library's import builds its classes and tables to keep, and each pass meanwhile walks all it
    has built so far); raises what the import raises."""
    if name in sys.modules:
        return importlib.import_module(name)
    with gc_paused():
        return importlib.import_module(name)
