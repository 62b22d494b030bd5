"""Shared fixtures of the egress tests: the shipped conversations, PostgreSQL and Redis on
127.0.0.1 (each started once per session), and worker processes forked from a fork server that
imported the stores' libraries already."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence

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


def _stop_fork_server() -> None:
    """Stops this process's fork server when it runs (its workers run on); the next pool starts a
    new one with the preload of that moment."""
    from conformance.worker import _helpers

    server = _helpers().get("forkserver")
    if server is not None:
        server._stop()


@contextlib.contextmanager
def workers_preloading(modules: Sequence[str]) -> Iterator[None]:
    """Runs the block with the fork server importing ``modules`` once before it forks a worker, so
    the fresh worker of each step does not import a store's library again; the plain fork server
    (the harness alone) is back afterwards, for the tests of what a fresh worker imports."""
    from conformance import worker

    saved = list(worker.PRELOAD)
    _stop_fork_server()
    worker.PRELOAD[:] = [*saved, *dict.fromkeys(modules)]
    try:
        yield
    finally:
        _stop_fork_server()
        worker.PRELOAD[:] = saved
