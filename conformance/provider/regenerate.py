"""The command every provider's ``regenerate`` module shares: start an emulator, record every probe.

Each provider passes its own emulator, recorder and stored URL; the recorded URIs always read the
stored URL whatever port the emulator got, so the cassettes come out byte for byte the same.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from . import default_cassettes, default_specs
from .probes import load_probes


def regenerate_command(module: str, description: str | None, *, provider: str,
                       emulator: Callable[[int], AbstractContextManager[Any]], record: Callable[..., Sequence[Any]],
                       stored_url: str) -> Callable[[list[str] | None], int]:
    """Returns the ``main(argv)`` of the provider's ``python -m module`` command: it records every
    ``provider`` probe against a fresh emulator and returns 0 if all were written, else 1 (2: bad specs)."""

    def main(argv: list[str] | None = None) -> int:
        return regenerate_main(argv, prog=f"python -m {module}", description=description, provider=provider,
                               emulator=emulator, record=record, stored_url=stored_url)

    return main


def regenerate_main(argv: list[str] | None, *, prog: str, description: str | None, provider: str,
                    emulator: Callable[[int], AbstractContextManager[Any]],
                    record: Callable[..., Sequence[Any]], stored_url: str) -> int:
    """Records every ``provider`` probe against a fresh emulator; returns 0 if all were written, else 1 (2: bad specs)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", type=Path, default=None, help="cassette root (default: cassettes/)")
    parser.add_argument("--port", type=int, default=0, help="emulator port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--quiet", action="store_true", help="print only failures")
    args = parser.parse_args(argv)
    probes, errors = load_probes([default_specs()], provider=provider)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 2
    with emulator(args.port) as running:
        outcomes = record(list(probes.values()), "dummy", running.url, args.out or default_cassettes(),
                          stored_url=stored_url, attempts=1)
    for outcome in outcomes:
        if not (args.quiet and outcome.ok):
            print(f"{'ok    ' if outcome.ok else 'FAILED'} {outcome.probe}: {outcome.note}")
    return 0 if all(o.ok for o in outcomes) else 1
