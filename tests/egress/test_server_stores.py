"""Task-record stores on a real PostgreSQL and a real Redis, started on 127.0.0.1 for the session:
``raw()`` reads what the server holds through its own client, so a store that leaves reasoning
readable there is caught and a sealed one passes; the library rows give their published verdicts.
Each conversation's steps run in three worker processes, as for every store."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.egress import store
from conformance.egress.adapters import select
from conformance.engine.worker import preloading


DOCS = Path(__file__).resolve().parents[2] / "docs"
pytestmark = pytest.mark.xdist_group("egress-servers")  # one worker starts PostgreSQL and Redis, once
ONE = {"anthropic": "anthropic.settled.redacted-tool-loop", "openai-responses": "openai-responses.settled.tool-loop"}


def _failing(report) -> set[str]:
    return {r.invariant for r in report.results if r.outcome in ("fail", "error")}


@pytest.mark.parametrize(("factory", "caught"), [
    ("sealed_redis_store", set()),
    ("plain_redis_store", {"store.encrypted-at-rest"}),
    ("keeps_finished_redis_store", {"store.forgets-finished-task"}),
])
def test_redis_stores_are_judged_on_what_the_server_holds(conversations, redis_server, factory, caught,
                                                         monkeypatch) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    mine = [c for c in conversations if c.id == ONE["anthropic"]]
    report = store.run(f"tests.egress.zoo:{factory}", mine, time_limit=20)
    assert _failing(report) == caught
    assert len(report.results) == len(store.CATALOG)


ROWS = ["psycopg.postgres-table.jsonb", "psycopg.postgres-table.pgcrypto", "redis.HSET",
        "langgraph-checkpoint-postgres.PostgresSaver", "langgraph-checkpoint-postgres.PostgresSaver+EncryptedSerializer",
        "openai-agents.RedisSession"]


@pytest.fixture(scope="module")
def preloaded() -> Iterator[None]:
    """Forks each step's fresh worker from a fork server that imported the rows' libraries once
    (the openai-agents import alone takes seconds of CPU, paid otherwise by all three steps)."""
    rows = [c for c in select(ROWS) if c.installed]
    with preloading([m for c in rows for m in (c.module, c.callable.split(":")[0])]):
        yield


@pytest.mark.slow
@pytest.mark.parametrize("name", ROWS)
def test_a_server_store_row_on_one_conversation_agrees_with_the_published_row(
        conversations, postgres_server, redis_server, preloaded, name) -> None:
    component = select([name])[0]
    published = {r["component"]: r for r in json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]}[name]
    mine = [c for c in conversations if c.id == ONE[component.format]]
    report = store.run(component.callable, mine, time_limit=30)
    assert _failing(report) == set(published["failures"])
    assert {r.invariant for r in report.results if r.outcome == "pass"} >= {
        "store.call-completes", "store.reasoning-back-byte-identical", "store.forgets-finished-task"}


def test_the_default_rows_leave_reasoning_readable_and_each_encrypted_row_conforms() -> None:
    rows = {r["component"]: r for r in json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]}
    pairs = [("psycopg.postgres-table.jsonb", "psycopg.postgres-table.pgcrypto"),
             ("langgraph-checkpoint-postgres.PostgresSaver", "langgraph-checkpoint-postgres.PostgresSaver+EncryptedSerializer"),
             ("openai-agents.SQLAlchemySession.postgres", "openai-agents.SQLAlchemySession.postgres+EncryptedSession"),
             ("openai-agents.RedisSession", "openai-agents.RedisSession+EncryptedSession")]
    for default, sealed in pairs:
        assert "store.encrypted-at-rest" in rows[default]["failures"], default
        assert rows[sealed]["failures"] == {} and rows[sealed]["conversations"] > 0, sealed
    assert "store.encrypted-at-rest" in rows["redis.HSET"]["failures"]
