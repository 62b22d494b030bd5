"""openai-agents: the SDK's server-backed session memory as a queued agent's task record, on
Responses items. ``SQLAlchemySession`` on a real PostgreSQL (``postgresql+psycopg``) and
``RedisSession`` on a real Redis, each with its defaults and wrapped in the SDK's
``EncryptedSession`` (Fernet, a key per session derived from ``encryption_key``). The store is the
session's own API (``add_items``, ``get_items``, ``clear_session``), each call in a fresh event loop
and connection, as a worker's step would; ``raw()`` is what the server holds, read through its own
client (``COPY ... TO STDOUT`` of the schema's tables; ``DUMP`` and ``LRANGE``/``HGETALL`` of the
keys), ``export()`` the rows or values."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from .base import Component
from .server_stores import name_of, pg_raw, pg_rows, pg_schema_url, redis_raw, redis_url

KEY = "egress-matrix-k1-egress-matrix-k1"  # fixed: the matrix is reproducible; never a real key


class SessionStore:
    """A task record in an openai-agents session, opened afresh for every call."""

    def __init__(self, folder: str, backend: str, encrypted: bool) -> None:
        self.folder, self.backend, self.encrypted = folder, backend, encrypted
        self.prefix = name_of(folder)
        self.url = pg_schema_url(folder, "postgresql+psycopg") if backend == "postgres" else redis_url()

    async def _with(self, task_id: str, use: Callable[[Any], Awaitable[Any]]) -> Any:
        closers: list[Any] = []
        if self.backend == "postgres":
            from agents.extensions.memory import SQLAlchemySession
            from sqlalchemy.ext.asyncio import create_async_engine
            from sqlalchemy.pool import NullPool

            engine = create_async_engine(self.url, poolclass=NullPool)
            closers.append(engine.dispose)
            session: Any = SQLAlchemySession(task_id, engine=engine, create_tables=True)
        else:
            import redis.asyncio
            from agents.extensions.memory import RedisSession

            client = redis.asyncio.Redis.from_url(self.url)
            closers.append(client.aclose)
            session = RedisSession(task_id, redis_client=client, key_prefix=self.prefix)
        if self.encrypted:
            from agents.extensions.memory import EncryptedSession

            session = EncryptedSession(task_id, session, encryption_key=KEY)
        try:
            return await use(session)
        finally:
            for close in closers:
                await close()

    def put(self, task_id: str, items: list[Any]) -> None:
        asyncio.run(self._with(task_id, lambda s: s.add_items(items)))

    def get(self, task_id: str) -> Any:
        return asyncio.run(self._with(task_id, lambda s: s.get_items()))

    def finish(self, task_id: str) -> None:
        asyncio.run(self._with(task_id, lambda s: s.clear_session()))

    def raw(self) -> bytes:
        return pg_raw(self.folder) if self.backend == "postgres" else redis_raw(self.prefix)

    def export(self) -> list[Any]:
        if self.backend == "postgres":
            return pg_rows(self.folder)
        import redis

        client = redis.Redis.from_url(self.url)
        try:
            return [client.lrange(k, 0, -1) if client.type(k) == b"list" else client.hgetall(k)
                    for k in sorted(client.scan_iter(match=self.prefix + "*"))]
        finally:
            client.close()


def sqlalchemy_postgres(folder: str) -> SessionStore:
    """Returns ``SQLAlchemySession`` on PostgreSQL, defaults."""
    return SessionStore(folder, "postgres", encrypted=False)


def sqlalchemy_postgres_encrypted(folder: str) -> SessionStore:
    """Returns ``EncryptedSession`` over ``SQLAlchemySession`` on PostgreSQL."""
    return SessionStore(folder, "postgres", encrypted=True)


def redis_session(folder: str) -> SessionStore:
    """Returns ``RedisSession``, defaults."""
    return SessionStore(folder, "redis", encrypted=False)


def redis_session_encrypted(folder: str) -> SessionStore:
    """Returns ``EncryptedSession`` over ``RedisSession``."""
    return SessionStore(folder, "redis", encrypted=True)


_LIB = "openai-agents"
_MOD = "conformance.egress.adapters.openai_agents_sessions"
_STOPS = "EncryptedSession(session_id, underlying_session, encryption_key=...)"
COMPONENTS = [
    Component(f"{_LIB}.SQLAlchemySession.postgres", _LIB, "SQLAlchemySession", "defaults, postgresql+psycopg",
              "task-record", "openai-responses", f"{_MOD}:sqlalchemy_postgres", "agents.extensions.memory",
              needs=("postgres",), stops=_STOPS),
    Component(f"{_LIB}.SQLAlchemySession.postgres+EncryptedSession", _LIB, "SQLAlchemySession",
              "EncryptedSession(encryption_key=...) over it, postgresql+psycopg", "task-record", "openai-responses",
              f"{_MOD}:sqlalchemy_postgres_encrypted", "agents.extensions.memory", needs=("postgres",)),
    Component(f"{_LIB}.RedisSession", _LIB, "RedisSession", "defaults", "task-record", "openai-responses",
              f"{_MOD}:redis_session", "agents.extensions.memory", needs=("redis",), stops=_STOPS),
    Component(f"{_LIB}.RedisSession+EncryptedSession", _LIB, "RedisSession",
              "EncryptedSession(encryption_key=...) over it", "task-record", "openai-responses",
              f"{_MOD}:redis_session_encrypted", "agents.extensions.memory", needs=("redis",)),
]
