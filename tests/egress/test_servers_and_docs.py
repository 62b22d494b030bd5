"""The servers the stores run on, the matrix command around them, and the matrix page grouped by
surface with a fix per row."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

import pytest

from conformance.egress import matrix, servers
from conformance.matrix.command import cmd_matrix
from conformance.egress.adapters import select
from conformance.egress.surfaces import table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_running_uses_the_server_the_environment_names(monkeypatch) -> None:
    monkeypatch.setenv(servers.ENV["redis"], "redis://127.0.0.1:1/0")
    monkeypatch.setitem(servers.STARTERS, "redis", lambda: pytest.fail("started a server"))
    with servers.running("redis") as url:
        assert url == "redis://127.0.0.1:1/0" == servers.url("redis")


def test_a_missing_program_is_a_server_unavailable(monkeypatch) -> None:
    monkeypatch.setattr(servers.shutil, "which", lambda name: None)
    monkeypatch.setattr(servers.glob, "glob", lambda pattern: [])
    monkeypatch.delenv(servers.ENV["postgres"], raising=False)
    with pytest.raises(servers.ServerUnavailable, match="initdb is not installed"):
        with servers.running("postgres"):
            pass
    with pytest.raises(servers.ServerUnavailable):
        servers.url("postgres")


def test_the_matrix_command_exits_2_and_writes_nothing_when_a_store_server_cannot_start(tmp_path, monkeypatch) -> None:
    @contextlib.contextmanager
    def broken():
        raise servers.ServerUnavailable("no server here")
        yield  # pragma: no cover

    monkeypatch.delenv(servers.ENV["redis"], raising=False)
    monkeypatch.setitem(servers.STARTERS, "redis", broken)
    args = argparse.Namespace(suite="egress", names=["redis.HSET"], specs=None, out=str(tmp_path), check=False,
                              publish=False)
    assert cmd_matrix(args) == 2
    assert list(tmp_path.iterdir()) == []


def test_servers_for_starts_only_what_the_installed_rows_need(monkeypatch) -> None:
    started: list[str] = []

    @contextlib.contextmanager
    def fake(kind):
        started.append(kind)
        yield f"{kind}://x"

    monkeypatch.setattr(servers, "running", fake)
    with matrix.servers_for(select(["haystack-ai"])):
        pass
    assert started == []
    with matrix.servers_for(select(["redis.HSET", "psycopg"])):
        pass
    assert started == ["postgres", "redis"]


def test_the_page_has_one_section_per_surface_with_the_question_and_a_fix_per_row() -> None:
    published = json.loads((DOCS / "egress-matrix.json").read_text(encoding="utf-8"))
    page = (DOCS / "egress-matrix.md").read_text(encoding="utf-8")
    used = [name for name in table() if any(r["surface"] == name for r in published["rows"])]
    sections = [line[4:-1] for line in page.splitlines() if line.startswith("## `")]
    assert sections == used
    assert page.count(matrix.QUESTION) == len(used)
    for row in published["rows"]:
        fix = matrix.smallest_fix(row, published["rows"])
        assert fix and (fix == "none needed") == (not row["failures"]), row["component"]


def test_the_smallest_fix_is_a_conforming_row_of_the_same_library_when_there_is_one() -> None:
    rows = [{"component": "a", "library": "x", "surface": "trace", "format": "anthropic", "installed": True,
             "setting": "defaults", "callable": "f", "failures": {"egress.no-reasoning-text": 1}, "stops": "s",
             "conversations": 1},
            {"component": "b", "library": "x", "surface": "trace", "format": "anthropic", "installed": True,
             "setting": "hook", "callable": "f", "failures": {}, "conversations": 1}]
    assert matrix.smallest_fix(rows[0], rows) == "hook (row `b` conforms)"
    assert matrix.smallest_fix(rows[0], rows[:1]) == "s"
    assert matrix.smallest_fix(rows[1], rows) == "none needed"
