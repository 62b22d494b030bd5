"""The egress surfaces this package adds: a table file of the suite's schema, registered in the
``context_conformance.egress_surfaces`` entry-point group."""

from __future__ import annotations

from pathlib import Path

TABLE = str(Path(__file__).with_name("surfaces.yaml"))
