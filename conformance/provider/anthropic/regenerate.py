"""Re-create the shipped emulator cassettes: start the emulator on 127.0.0.1 and record every probe.

Run ``python -m conformance.provider.anthropic.regenerate [--out cassettes] [--port 0]``. The recorded URIs
always read ``http://127.0.0.1:8089`` whatever port the emulator got, and the emulator's answers
depend only on the request, so the cassettes come out byte for byte the same on every run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import default_cassettes, default_specs
from .emulator import Emulator
from ..probes import load_probes
from .record import record

STORED_URL = "http://127.0.0.1:8089"


def main(argv: list[str] | None = None) -> int:
    """Records every probe against a fresh emulator; returns 0 when all were written, else 1 (2: bad specs)."""
    parser = argparse.ArgumentParser(prog="python -m conformance.provider.anthropic.regenerate", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="cassette root (default: cassettes/)")
    parser.add_argument("--port", type=int, default=0, help="emulator port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--quiet", action="store_true", help="print only failures")
    args = parser.parse_args(argv)
    probes, errors = load_probes([default_specs()], provider="anthropic")
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 2
    with Emulator(args.port) as emulator:
        outcomes = record(list(probes.values()), "dummy", emulator.url, args.out or default_cassettes(),
                          stored_url=STORED_URL, attempts=1)
    for outcome in outcomes:
        if not (args.quiet and outcome.ok):
            print(f"{'ok    ' if outcome.ok else 'FAILED'} {outcome.probe}: {outcome.note}")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
