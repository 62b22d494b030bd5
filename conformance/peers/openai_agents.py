"""The OpenAI Agents SDK's session history limit: ``SQLiteSession`` with ``SessionSettings(limit=...)``,
on Responses input items (the ``openai-responses`` format).

The items are stored with ``add_items`` in an in-memory SQLite session, and ``get_items()`` returns
what the session hands the next run: the latest ``limit`` items.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .base import Peers

LIBRARY = "openai-agents"
PEERS = Peers(LIBRARY, "agents")


@PEERS.add("openai-agents.SQLiteSession.limit", "SQLiteSession",
           "SessionSettings(limit=keep_turns), in memory", "openai-responses")
def session_limit(items: list[dict[str, Any]], keep_turns: int = 10) -> list[dict[str, Any]]:
    """Stores ``items`` in a ``SQLiteSession`` limited to ``keep_turns`` items; returns ``get_items()``."""
    from agents.memory import SessionSettings, SQLiteSession

    async def run() -> list[Any]:
        session = SQLiteSession("conformance", session_settings=SessionSettings(limit=keep_turns))
        try:
            await session.add_items(list(items))  # type: ignore[arg-type]  # plain dicts of the SDK's input shape
            return list(await session.get_items())
        finally:
            session.close()

    return asyncio.run(run())
