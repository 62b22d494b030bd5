"""Task-record stores: each store check catches its broken store; a correct store passes; the
steps run in three different processes."""

from __future__ import annotations

import pytest

from conformance.egress import store

ONE = "anthropic.settled.redacted-tool-loop"  # reasoning text, signature and redacted data, an answer


@pytest.mark.slow
@pytest.mark.parametrize(("factory", "caught"), [
    ("plain_store", {"store.encrypted-at-rest"}),
    ("base64_store", {"store.encrypted-at-rest"}),
    ("keeps_finished_store", {"store.forgets-finished-task"}),
    ("leaky_export_store", {"store.export-no-reasoning"}),
    ("memory_store", {"store.reasoning-back-byte-identical"}),
    ("raising_store", {"store.call-completes"}),
    ("ExportsFinishedStore", {"store.export-no-reasoning"}),  # only once the task is finished
    ("ReadThroughCacheStore", {"store.encrypted-at-rest"}),  # only after a get
    ("JournalStore", {"store.encrypted-at-rest"}),  # only after the task is put back
    ("LeakyExportFailsAfterFinishStore", {"store.export-no-reasoning", "store.call-completes"}),
])
def test_each_broken_store_is_caught_by_its_check(conversations, factory, caught, monkeypatch) -> None:
    monkeypatch.chdir(_root())
    mine = [c for c in conversations if c.id == ONE]
    report = store.run(f"tests.egress.zoo:{factory}", mine, time_limit=10)
    failing = {r.invariant for r in report.results if r.outcome in ("fail", "error")}
    assert failing == caught
    assert report.exit_code == 1


@pytest.mark.slow
@pytest.mark.parametrize("factory", ["file_store", "sqlite_store"])
def test_a_correct_store_passes_every_check(conversations, monkeypatch, factory) -> None:
    monkeypatch.chdir(_root())
    mine = [c for c in conversations if c.format == "anthropic"][:2]
    report = store.run(f"tests.egress.zoo:{factory}", mine, time_limit=10)
    assert {r.outcome for r in report.results} == {"pass"}
    assert len(report.results) == len(store.CATALOG) * len(mine)


def test_the_steps_must_run_in_different_processes(conversations) -> None:
    mine = [c for c in conversations if c.id == ONE][0]
    results = store.judge("x", mine, [{"pid": 1}, {"pid": 1, "missing": []}, {"pid": 1, "raw": []}])
    assert results[0].invariant == "store.call-completes" and results[0].outcome == "error"


def _root():
    from pathlib import Path

    return Path(__file__).resolve().parents[2]
