"""What the task-record stores on real servers share: each conversation's store lives in a schema
(PostgreSQL) or under a key prefix (Redis) of its own, named from the folder the harness gives
every worker of the conversation; ``raw()`` reads what the server holds through its own client
(``COPY ... TO STDOUT`` in binary of every table of the schema; ``DUMP`` of every key, with the
value ``GET``/``HGETALL``/``LRANGE`` give)."""

from __future__ import annotations

import hashlib
from typing import Any

from ..servers import POSTGRES, REDIS, url


def name_of(folder: str) -> str:
    """Returns the schema name (and key prefix) of a conversation's store."""
    return "egress_" + hashlib.sha256(folder.encode()).hexdigest()[:12]


def pg_url() -> str:
    """Returns the URL of the running PostgreSQL; raises ``ServerUnavailable``."""
    return url(POSTGRES)


def redis_url() -> str:
    """Returns the URL of the running Redis; raises ``ServerUnavailable``."""
    return url(REDIS)


def pg_connect(folder: str) -> Any:
    """Returns an autocommit ``psycopg`` connection whose ``search_path`` is the store's schema
    (created when missing)."""
    import psycopg

    schema = name_of(folder)
    conn = psycopg.connect(pg_url(), autocommit=True)
    conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    conn.execute(f'SET search_path TO "{schema}"')
    return conn


def pg_schema_url(folder: str, driver: str = "postgresql") -> str:
    """Returns a URL (``driver`` scheme) of the running PostgreSQL whose connections use the
    store's schema (created when missing)."""
    pg_connect(folder).close()
    base = pg_url().split("://", 1)[1]
    return f"{driver}://{base}?options=-csearch_path%3D{name_of(folder)}"


def pg_tables(conn: Any, schema: str) -> list[str]:
    """Returns the tables of ``schema``."""
    rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (schema,))
    return [r[0] for r in rows]


def pg_raw(folder: str) -> bytes:
    """Returns every table of the store's schema as ``COPY ... TO STDOUT (FORMAT binary)`` gives it."""
    schema = name_of(folder)
    out = b""
    with pg_connect(folder) as conn:
        for table in pg_tables(conn, schema):
            with conn.cursor().copy(f'COPY "{schema}"."{table}" TO STDOUT (FORMAT binary)') as copy:
                out += b"".join(bytes(chunk) for chunk in copy)
    return out


def pg_rows(folder: str) -> list[Any]:
    """Returns every row of every table of the store's schema (what a warehouse copy gets)."""
    schema = name_of(folder)
    with pg_connect(folder) as conn:
        return [list(row) for table in pg_tables(conn, schema)
                for row in conn.execute(f'SELECT * FROM "{schema}"."{table}"')]  # noqa: S608 - names of the store's own schema


class PostgresSchemaStore:
    """A task-record store whose data are the tables of its conversation's schema (``folder``):
    ``raw()`` and ``export()`` read them as ``pg_raw`` and ``pg_rows`` do."""

    folder: str

    def raw(self) -> bytes:
        """Returns every table of the schema as the server holds it."""
        return pg_raw(self.folder)

    def export(self) -> list[Any]:
        """Returns every row of every table of the schema."""
        return pg_rows(self.folder)


def redis_client() -> Any:
    """Returns a ``redis.Redis`` client of the running Redis."""
    import redis

    return redis.Redis.from_url(redis_url())


def redis_raw(prefix: str) -> bytes:
    """Returns, for every key under ``prefix``, its ``DUMP`` and the value its type's read gives."""
    client = redis_client()
    out = b""
    try:
        for key in sorted(client.scan_iter(match=f"{prefix}*")):
            out += key + b"\n" + (client.dump(key) or b"") + b"\n"
            kind = client.type(key)
            if kind == b"string":
                out += client.get(key) or b""
            elif kind == b"hash":
                out += b"".join(k + b"=" + v + b"\n" for k, v in sorted(client.hgetall(key).items()))
            elif kind == b"list":
                out += b"\n".join(client.lrange(key, 0, -1))
    finally:
        client.close()
    return out


def redis_keys(prefix: str) -> list[bytes]:
    """Returns the keys under ``prefix``."""
    client = redis_client()
    try:
        return sorted(client.scan_iter(match=f"{prefix}*"))
    finally:
        client.close()
