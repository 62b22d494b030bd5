"""The long tests that the suite runs first are tests that exist, and they do run first."""

from __future__ import annotations

import re

import pytest

from ._order import LONG, long_first
from .conftest import ROOT


@pytest.mark.parametrize("nodeid", LONG)
def test_each_long_test_named_is_defined_in_its_file(nodeid: str) -> None:
    path, name = nodeid.split("::")
    source = (ROOT / path).read_text(encoding="utf-8")
    assert re.search(rf"^def {re.escape(name)}\(", source, re.MULTILINE), f"{nodeid} is no test: update tests/_order.py"


def test_the_files_of_long_tests_come_first_with_their_long_tests_first_and_each_file_together() -> None:
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    def of(nodeid: str) -> str:
        return nodeid.split("::")[0]

    others = [Item("tests/test_a.py::test_one"), Item("tests/test_a.py::test_two[x]")]
    long = [Item(f"{LONG[1]}[p]"), Item(LONG[0]), Item(f"{LONG[1]}[q]")]
    beside = [Item(f"{of(LONG[0])}::test_short"), Item(f"{of(LONG[1])}::test_short")]
    ordered = long_first([others[0], beside[0], long[0], others[1], long[1], beside[1], long[2]])
    assert [i.nodeid for i in ordered] == [i.nodeid for i in (long[1], beside[0], long[0], long[2], beside[1], *others)]


def test_the_collection_starts_with_the_long_tests_and_keeps_each_file_together(request: pytest.FixtureRequest) -> None:
    collected = [item.nodeid.split("[", 1)[0] for item in request.session.items]
    present = [nodeid for nodeid in LONG if nodeid in collected]
    assert collected[:1] == present[:1] or not present
    files = [nodeid.split("::")[0] for nodeid in collected]
    runs = [name for n, name in enumerate(files) if n == 0 or files[n - 1] != name]
    assert len(runs) == len(set(runs))  # no file's tests are split
    best = {}  # file -> the place in LONG of its first long test
    for place, nodeid in enumerate(present):
        best.setdefault(nodeid.split("::")[0], place)
    assert [name for name in runs if name in best] == sorted(best, key=best.__getitem__)
    assert runs[: len(best)] == [name for name in runs if name in best]  # before every other file


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("tests/test_a.py::test_one", "tests/test_a.py"),
    ("tests/test_a.py::test_one[x-1]", "tests/test_a.py"),
    ("tests/test_a.py::TestB::test_one", "tests/test_a.py"),
    ("tests/test_a.py::test_one@zoo", "zoo"),
    ("tests/test_a.py::test_one[x-1]@zoo", "zoo"),
    ("tests/test_a.py::test_one[user@host]", "tests/test_a.py"),
])
def test_the_workers_get_a_file_or_a_group_at_a_time(nodeid: str, scope: str) -> None:
    pytest.importorskip("xdist")
    from ._schedule import FileOrGroupScheduling

    assert FileOrGroupScheduling._split_scope(None, nodeid) == scope  # type: ignore[arg-type]  # reads no state
