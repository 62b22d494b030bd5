"""The catalog's plain data is its one source: the checks are built on the entries, in their order,
and the runner's special records follow the entries' flags."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from conformance.engine import invariants
from conformance.engine.invariant_entries import ENTRIES, INVARIANT_IDS, Entry, the_one


def test_the_catalog_is_built_on_the_entries_in_their_order() -> None:
    assert [inv.id for inv in invariants.CATALOG] == [e.id for e in ENTRIES]
    assert INVARIANT_IDS == {e.id for e in ENTRIES} and len(INVARIANT_IDS) == len(ENTRIES)
    for entry, inv in zip(ENTRIES, invariants.CATALOG):
        for f in fields(Entry):
            if f.name != "check":
                assert getattr(inv, f.name) == getattr(entry, f.name), (entry.id, f.name)
        assert inv.check is invariants.CHECKS[entry.id] and callable(inv.check)
    assert set(invariants.CHECKS) == INVARIANT_IDS  # every check is bound to one entry, by its id


def test_an_entry_without_a_check_is_refused_by_name() -> None:
    with pytest.raises(LookupError, match="no.such-invariant has no check"):
        invariants._built(Entry("no.such-invariant", "MUST", "A statement."))


PREFIX = {"thinking.replayed-intact", "thinking.prefix-unchanged", "thinking.chain-unbroken"}
LOOP = {*PREFIX, "loop.every-call"}


def test_the_runners_special_checks_are_named_by_flags() -> None:
    assert invariants.CRASH_CHECK.id == the_one("reports_crash").id == "call.completes"
    assert invariants.OUTPUT_GUARD.id == the_one("guards_output").id == "output.well-formed"
    assert [e.id for e in ENTRIES if e.lists_mutation] == ["input.unmutated"]
    assert [e.id for e in ENTRIES if e.second_call] == ["output.idempotent"]
    assert {e.id for e in ENTRIES if not e.needs_output} == {"call.completes", "input.unmutated",
                                                               "reference.exact-output", *LOOP}
    assert {e.id for e in ENTRIES if e.loop} == LOOP  # judged on the loop's earlier calls when the last gave nothing
    assert {e.id for e in ENTRIES if e.prefix_check} == PREFIX  # what --models older leaves out


def test_a_flag_the_runner_needs_once_held_twice_or_never_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.engine.invariant_entries as module

    monkeypatch.setattr(module, "ENTRIES", (*ENTRIES, replace(ENTRIES[-1], id="call.twice", reports_crash=True)))
    with pytest.raises(LookupError, match="2 invariants are reports_crash"):
        module.the_one("reports_crash")
    monkeypatch.setattr(module, "ENTRIES", ENTRIES[1:])
    with pytest.raises(LookupError, match="0 invariants are reports_crash"):
        module.the_one("reports_crash")
