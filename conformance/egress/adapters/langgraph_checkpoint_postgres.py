"""langgraph-checkpoint-postgres: ``PostgresSaver`` on a real PostgreSQL as a queued agent's task
record, with its default ``JsonPlusSerializer`` and with ``EncryptedSerializer`` (AES-EAX through
pycryptodome). The store is the checkpointer's own API (``put``, ``get_tuple``, ``delete_thread``),
as for ``SqliteSaver``; ``raw()`` is its tables as the server holds them (``COPY ... TO STDOUT``),
``export()`` their rows. (LangGraph's Redis checkpointer needs the RediSearch and RedisJSON modules
of Redis Stack, which Debian's redis-server lacks, so it has no row.)"""

from __future__ import annotations

from typing import Any

from .base import Component
from .langgraph_checkpoint import KEY
from .server_stores import pg_connect, pg_raw, pg_rows


class PostgresCheckpointStore:
    """A task record kept by ``PostgresSaver`` in the conversation's schema."""

    def __init__(self, folder: str, encrypted: bool = False) -> None:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        self.folder = folder
        self.conn = pg_connect(folder)
        self.conn.prepare_threshold = 0
        self.conn.row_factory = dict_row
        serde = None
        if encrypted:
            from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

            serde = EncryptedSerializer.from_pycryptodome_aes(key=KEY)
        self.saver = PostgresSaver(self.conn, serde=serde) if serde is not None else PostgresSaver(self.conn)
        self.saver.setup()

    @staticmethod
    def _config(task_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": task_id, "checkpoint_ns": ""}}

    def put(self, task_id: str, messages: list[Any]) -> None:
        from langgraph.checkpoint.base import empty_checkpoint

        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": messages}
        checkpoint["channel_versions"] = {"messages": 1}
        self.saver.put(self._config(task_id), checkpoint, {"source": "loop", "step": 1}, {"messages": 1})

    def get(self, task_id: str) -> Any:
        found = self.saver.get_tuple(self._config(task_id))
        return None if found is None else found.checkpoint["channel_values"].get("messages")

    def finish(self, task_id: str) -> None:
        self.saver.delete_thread(task_id)

    def raw(self) -> bytes:
        return pg_raw(self.folder)

    def export(self) -> list[Any]:
        return pg_rows(self.folder)


def json_plus(folder: str) -> PostgresCheckpointStore:
    """Returns the store with the default serializer."""
    return PostgresCheckpointStore(folder)


def encrypted(folder: str) -> PostgresCheckpointStore:
    """Returns the store with ``EncryptedSerializer.from_pycryptodome_aes``."""
    return PostgresCheckpointStore(folder, encrypted=True)


_LIB = "langgraph-checkpoint-postgres"
_MODULE = "langgraph.checkpoint.postgres"
COMPONENTS = [
    Component(f"{_LIB}.PostgresSaver", _LIB, "PostgresSaver", "serde=JsonPlusSerializer (default)", "task-record",
              "anthropic", "conformance.egress.adapters.langgraph_checkpoint_postgres:json_plus", _MODULE,
              needs=("postgres",), stops="serde=EncryptedSerializer.from_pycryptodome_aes(key=...)"),
    Component(f"{_LIB}.PostgresSaver+EncryptedSerializer", _LIB, "PostgresSaver",
              "serde=EncryptedSerializer.from_pycryptodome_aes(key=...)", "task-record", "anthropic",
              "conformance.egress.adapters.langgraph_checkpoint_postgres:encrypted", _MODULE, needs=("postgres",)),
]
