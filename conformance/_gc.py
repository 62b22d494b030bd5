"""Pausing the cyclic garbage collector around work that builds many containers and no cycles (a
large document: ``benchmarks/machinery.py`` shows what it pays)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses the cyclic garbage collector for the block: building a large document creates millions
    of containers and no cycles, and each collection would walk them all again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
