"""psycopg on a real PostgreSQL: a plain task table (``messages jsonb``), what a team writes first,
and the same table with the messages sealed by PostgreSQL's own ``pgcrypto``
(``pgp_sym_encrypt``, the key sent with each query). ``raw()`` is the table as the server holds it
(``COPY ... TO STDOUT``), ``export()`` its rows; ``finish`` deletes the task's row."""

from __future__ import annotations

import json
from typing import Any

from .base import Component
from .server_stores import PostgresSchemaStore, pg_connect

KEY = "egress-matrix-k1"  # fixed: the matrix is reproducible; never a real key


class TaskTable(PostgresSchemaStore):
    """A task record in the table ``task_record`` of the conversation's schema."""

    def __init__(self, folder: str, sealed: bool = False) -> None:
        self.folder, self.sealed = folder, sealed
        with pg_connect(folder) as conn:
            if sealed:
                conn.execute("CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA public")
            conn.execute("CREATE TABLE IF NOT EXISTS task_record (task_id text PRIMARY KEY, "
                         f"messages {'bytea' if sealed else 'jsonb'} NOT NULL)")

    def put(self, task_id: str, messages: list[Any]) -> None:
        value = "public.pgp_sym_encrypt(%s, %s)" if self.sealed else "%s::jsonb"
        args = (task_id, json.dumps(messages), KEY) if self.sealed else (task_id, json.dumps(messages))
        with pg_connect(self.folder) as conn:
            # the interpolated part is one of two fixed SQL expressions; the data go as parameters
            conn.execute(f"INSERT INTO task_record VALUES (%s, {value}) ON CONFLICT (task_id) DO UPDATE "  # noqa: S608 - fixed SQL; the data go as parameters
                         "SET messages = EXCLUDED.messages", args)

    def get(self, task_id: str) -> Any:
        read = "public.pgp_sym_decrypt(messages, %s)" if self.sealed else "messages::text"
        args = (KEY, task_id) if self.sealed else (task_id,)
        with pg_connect(self.folder) as conn:
            row = conn.execute(f"SELECT {read} FROM task_record WHERE task_id = %s",  # noqa: S608 - a fixed expression
                               args).fetchone()
        return None if row is None else json.loads(row[0])

    def finish(self, task_id: str) -> None:
        with pg_connect(self.folder) as conn:
            conn.execute("DELETE FROM task_record WHERE task_id = %s", (task_id,))


def plain(folder: str) -> TaskTable:
    """Returns the store with the messages as ``jsonb``."""
    return TaskTable(folder)


def pgcrypto(folder: str) -> TaskTable:
    """Returns the store with the messages sealed by ``pgp_sym_encrypt``."""
    return TaskTable(folder, sealed=True)


_LIB = "psycopg"
COMPONENTS = [
    Component(f"{_LIB}.postgres-table.jsonb", _LIB, "a task_record table (messages jsonb) on PostgreSQL",
              "defaults: the messages as jsonb", "task-record", "anthropic",
              "conformance.egress.adapters.psycopg_table:plain", "psycopg", needs=("postgres",),
              stops="pgcrypto: store pgp_sym_encrypt(messages, key) in a bytea column"),
    Component(f"{_LIB}.postgres-table.pgcrypto", _LIB, "a task_record table (messages bytea) on PostgreSQL",
              "messages sealed with pgcrypto pgp_sym_encrypt(messages, key)", "task-record", "anthropic",
              "conformance.egress.adapters.psycopg_table:pgcrypto", "psycopg", needs=("postgres",)),
]
