"""redis-py on a real Redis: the task record as a hash (one field per message, JSON), what a team
writes first. Redis has no encryption at rest. ``raw()`` is every key of the store as the server
holds it (``DUMP`` and ``HGETALL``), ``export()`` the same hash read back; ``finish`` deletes it."""

from __future__ import annotations

import json
from typing import Any

from .base import Component
from .server_stores import name_of, redis_client, redis_raw


class TaskHash:
    """A task record in the hash ``<prefix>:<task id>``."""

    def __init__(self, folder: str) -> None:
        self.prefix = name_of(folder) + ":"

    def put(self, task_id: str, messages: list[Any]) -> None:
        client = redis_client()
        try:
            client.delete(self.prefix + task_id)
            client.hset(self.prefix + task_id, mapping={f"{i:04d}": json.dumps(m) for i, m in enumerate(messages)})
        finally:
            client.close()

    def get(self, task_id: str) -> Any:
        client = redis_client()
        try:
            found = client.hgetall(self.prefix + task_id)
        finally:
            client.close()
        return [json.loads(v) for _, v in sorted(found.items())] if found else None

    def finish(self, task_id: str) -> None:
        client = redis_client()
        try:
            client.delete(self.prefix + task_id)
        finally:
            client.close()

    def raw(self) -> bytes:
        return redis_raw(self.prefix)

    def export(self) -> list[Any]:
        client = redis_client()
        try:
            return [client.hgetall(k) for k in sorted(client.scan_iter(match=self.prefix + "*"))]
        finally:
            client.close()


def hash_store(folder: str) -> TaskHash:
    """Returns the store."""
    return TaskHash(folder)


COMPONENTS = [
    Component("redis.HSET", "redis", "a task hash (HSET, one JSON field per message) on Redis", "defaults",
              "task-record", "anthropic", "conformance.egress.adapters.redis_hash:hash_store", "redis",
              needs=("redis",), stops="none in Redis (no encryption at rest): seal each value before HSET"),
]
