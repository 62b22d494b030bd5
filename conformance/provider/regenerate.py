"""Re-create the shipped emulator cassettes: start the emulator on 127.0.0.1 and record every probe.

Run ``python -m conformance.provider.regenerate [--out cassettes] [--port 8089]``. A fixed port keeps
the recorded URIs, and so the cassettes, byte-for-byte stable between runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import default_cassettes, default_specs
from .emulator import Emulator
from .probes import load_probes
from .record import record


def main(argv: list[str] | None = None) -> int:
    """Records every probe against a fresh emulator; returns 0 when all were written, else 1 (2: bad specs)."""
    parser = argparse.ArgumentParser(prog="python -m conformance.provider.regenerate", description=__doc__)
    parser.add_argument("--out", type=Path, default=None, help="cassette root (default: cassettes/)")
    parser.add_argument("--port", type=int, default=8089, help="emulator port on 127.0.0.1")
    args = parser.parse_args(argv)
    probes, errors = load_probes([default_specs()])
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 2
    with Emulator(args.port) as emulator:
        outcomes = record(list(probes.values()), "dummy", emulator.url, args.out or default_cassettes())
    for outcome in outcomes:
        print(f"{'ok    ' if outcome.ok else 'FAILED'} {outcome.probe}: {outcome.note}")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
