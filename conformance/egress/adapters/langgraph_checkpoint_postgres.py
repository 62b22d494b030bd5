"""langgraph-checkpoint-postgres: ``PostgresSaver`` on a real PostgreSQL as a queued agent's task
record, with its default ``JsonPlusSerializer`` and with ``EncryptedSerializer`` (AES-EAX through
pycryptodome). The store is the checkpointer's own API (``put``, ``get_tuple``, ``delete_thread``),
as for ``SqliteSaver``; ``raw()`` is its tables as the server holds them (``COPY ... TO STDOUT``),
``export()`` their rows. (LangGraph's Redis checkpointer needs the RediSearch and RedisJSON modules
of Redis Stack, which Debian's redis-server lacks, so it has no row.)"""

from __future__ import annotations


from .base import Component
from .langgraph_checkpoint import SaverStore, serializer
from .server_stores import PostgresSchemaStore, pg_connect


class PostgresCheckpointStore(PostgresSchemaStore, SaverStore):
    """A task record kept by ``PostgresSaver`` in the conversation's schema."""

    def __init__(self, folder: str, encrypted: bool = False) -> None:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        self.folder = folder
        self.conn = pg_connect(folder)
        self.conn.prepare_threshold = 0
        self.conn.row_factory = dict_row
        serde = serializer(encrypted)
        self.saver = PostgresSaver(self.conn, serde=serde) if serde is not None else PostgresSaver(self.conn)
        self.saver.setup()


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
