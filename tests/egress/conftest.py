"""Shared fixtures of the egress tests: the shipped conversations, PostgreSQL and Redis on
127.0.0.1 (each started once per session), and worker processes forked from a fork server that
imported the stores' libraries already."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from conformance.egress.conversations import Conversation, load


@pytest.fixture(scope="session")
def conversations() -> list[Conversation]:
    loaded = load()
    assert not loaded.errors, loaded.errors
    return loaded.conversations


def of_format(conversations: list[Conversation], fmt: str) -> list[Conversation]:
    return [c for c in conversations if c.format == fmt]


def _server(kind: str) -> Iterator[str]:
    """Yields the URL of a ``kind`` server started on 127.0.0.1 for the session; fails in CI (env
    ``CI`` set) and skips elsewhere when it cannot start."""
    from conformance.egress import servers

    running = servers.running(kind)
    try:
        url = running.__enter__()
    except servers.ServerUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{kind} must run in CI and cannot start: {exc}")
        pytest.skip(f"{kind} cannot start here: {exc}")
    try:
        yield url
    finally:
        running.__exit__(None, None, None)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    yield from _server("postgres")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    yield from _server("redis")
