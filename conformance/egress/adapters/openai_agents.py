"""openai-agents: ``SQLiteSession``, the SDK's conversation memory, on Responses input items: what
``add_items`` writes to its ``agent_messages`` table, read back from the database file."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from .base import Component


def sqlite_session(items: list[dict[str, Any]]) -> list[str]:
    """Returns the ``message_data`` rows ``SQLiteSession.add_items`` stored for the items."""
    from agents import SQLiteSession

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.db"
        session = SQLiteSession("conversation", str(path))
        asyncio.run(session.add_items(items))
        session.close()
        with sqlite3.connect(path) as db:
            return [row[0] for row in db.execute("SELECT message_data FROM agent_messages ORDER BY id")]


COMPONENTS = [
    Component("openai-agents.SQLiteSession.add_items", "openai-agents", "SQLiteSession.add_items", "defaults",
              "conversation-store", "openai-responses", "conformance.egress.adapters.openai_agents:sqlite_session",
              "agents", stops="none in the library (reasoning_item_id_policy='omit' drops the id only)"),
]
