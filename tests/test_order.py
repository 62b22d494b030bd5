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


def test_the_long_tests_come_first_in_their_order_and_the_others_keep_theirs() -> None:
    class Item:
        def __init__(self, nodeid: str) -> None:
            self.nodeid = nodeid

    others = [Item("tests/test_a.py::test_one"), Item("tests/test_a.py::test_two[x]")]
    long = [Item(f"{LONG[1]}[p]"), Item(LONG[0]), Item(f"{LONG[1]}[q]")]
    ordered = long_first([others[0], long[0], others[1], long[1], long[2]])
    assert [i.nodeid for i in ordered] == [i.nodeid for i in (long[1], long[0], long[2], *others)]


def test_the_collection_starts_with_the_long_tests(request: pytest.FixtureRequest) -> None:
    collected = [item.nodeid.split("[", 1)[0] for item in request.session.items]
    present = [nodeid for nodeid in LONG if nodeid in collected]
    assert collected[:1] == present[:1] or not present
    firsts = [collected.index(nodeid) for nodeid in present]
    assert firsts == sorted(firsts)
