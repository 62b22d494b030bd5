"""Egress: no reasoning leaves through a serializer, and the answer always does.

The table of surfaces and the conversations are data (``specs/egress/``); the checks are a catalog
with stable ids (``CATALOG`` for serializers, ``STORE_CATALOG`` for task-record stores); ``run``
calls a serializer on every conversation in worker processes, ``run_store`` a store factory across
three processes per conversation. ``conformance egress`` and the pytest route are shells over them.
"""

from __future__ import annotations

from .canaries import FRAGMENT, Canary, Finding, find
from .checks import BY_ID, CATALOG, Check
from .conversations import Conversation, load
from .run import EgressReport, check, run
from .store import CATALOG as STORE_CATALOG
from .store import run as run_store
from .surfaces import Surface, surface, table

__all__ = ["BY_ID", "CATALOG", "FRAGMENT", "STORE_CATALOG", "Canary", "Check", "Conversation", "EgressReport",
           "Finding", "Surface", "check", "find", "load", "run", "run_store", "surface", "table"]
