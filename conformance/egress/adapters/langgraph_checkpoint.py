"""langgraph-checkpoint (+ -sqlite): ``SqliteSaver`` on a database file as a queued agent's task
record, with its default ``JsonPlusSerializer`` and with ``EncryptedSerializer`` (AES-EAX through
pycryptodome). The store is the checkpointer's own API: ``put`` a checkpoint whose ``messages``
channel holds the task, ``get_tuple`` it back, ``delete_thread`` at the task's end; ``raw()`` is the
database file, ``export()`` every row of its tables (what a warehouse copy of the database gets)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .base import Component

KEY = b"egress-matrix-k1"  # 16 bytes, fixed: the matrix is reproducible; never a real key


def serializer(encrypted: bool) -> Any:
    """Returns ``EncryptedSerializer.from_pycryptodome_aes`` when ``encrypted``, else None (the
    checkpointer's default ``JsonPlusSerializer``)."""
    if not encrypted:
        return None
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

    return EncryptedSerializer.from_pycryptodome_aes(key=KEY)


class SaverStore:
    """A task record kept through a LangGraph checkpointer's own API (``self.saver``): ``put`` a
    checkpoint whose ``messages`` channel holds the task, ``get_tuple`` it back, ``delete_thread``
    at the task's end; ``_saved`` runs after each write."""

    saver: Any

    @staticmethod
    def _config(task_id: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": task_id, "checkpoint_ns": ""}}

    def _saved(self) -> None:
        """Makes a write durable where the connection needs it (nothing by default)."""

    def put(self, task_id: str, messages: list[Any]) -> None:
        from langgraph.checkpoint.base import empty_checkpoint

        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": messages}
        checkpoint["channel_versions"] = {"messages": 1}
        self.saver.put(self._config(task_id), checkpoint, {"source": "loop", "step": 1}, {"messages": 1})
        self._saved()

    def get(self, task_id: str) -> Any:
        found = self.saver.get_tuple(self._config(task_id))
        return None if found is None else found.checkpoint["channel_values"].get("messages")

    def finish(self, task_id: str) -> None:
        self.saver.delete_thread(task_id)
        self._saved()


class CheckpointStore(SaverStore):
    """A task record kept by ``SqliteSaver`` in ``folder/checkpoints.db``."""

    def __init__(self, folder: str, encrypted: bool = False) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        self.path = Path(folder) / "checkpoints.db"
        self.conn = sqlite3.connect(self.path, check_same_thread=False)
        serde = serializer(encrypted)
        self.saver = SqliteSaver(self.conn, serde=serde) if serde is not None else SqliteSaver(self.conn)
        self.saver.setup()

    def _saved(self) -> None:
        self.conn.commit()

    def raw(self) -> bytes:
        self.conn.commit()
        return b"".join(p.read_bytes() for p in sorted(self.path.parent.glob(self.path.name + "*")))

    def export(self) -> list[Any]:
        tables = [r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [list(row) for t in tables for row in self.conn.execute(f'SELECT * FROM "{t}"')]  # noqa: S608 - table names from sqlite_master itself


def json_plus(folder: str) -> CheckpointStore:
    """Returns the store with the default serializer."""
    return CheckpointStore(folder)


def encrypted(folder: str) -> CheckpointStore:
    """Returns the store with ``EncryptedSerializer.from_pycryptodome_aes``."""
    return CheckpointStore(folder, encrypted=True)


COMPONENTS = [
    Component("langgraph-checkpoint-sqlite.SqliteSaver", "langgraph-checkpoint-sqlite", "SqliteSaver",
              "serde=JsonPlusSerializer (default)", "task-record", "anthropic",
              "conformance.egress.adapters.langgraph_checkpoint:json_plus", "langgraph.checkpoint.sqlite",
              stops="serde=EncryptedSerializer.from_pycryptodome_aes(key=...)"),
    Component("langgraph-checkpoint-sqlite.SqliteSaver+EncryptedSerializer", "langgraph-checkpoint-sqlite",
              "SqliteSaver", "serde=EncryptedSerializer.from_pycryptodome_aes(key=...)", "task-record", "anthropic",
              "conformance.egress.adapters.langgraph_checkpoint:encrypted", "langgraph.checkpoint.sqlite"),
]
