"""The cyclic garbage collector is paused while libraries import and on again after, in this
process and in every worker the fork server starts."""

from __future__ import annotations

import gc
import multiprocessing
import sys
from pathlib import Path

import pytest

from conformance._gc import import_paused
from conformance.worker import Pool


def test_a_module_imports_with_the_collector_paused_and_it_is_on_again_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "seen_collector.py").write_text("import gc\nENABLED = gc.isenabled()\n", encoding="utf-8")
    (tmp_path / "broken_import.py").write_text("raise ValueError('no')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert gc.isenabled()
    try:
        module = import_paused("seen_collector")
        assert module.ENABLED is False and gc.isenabled()
        assert import_paused("seen_collector") is module  # imported already: returned as it is
        with pytest.raises(ValueError, match="no"):
            import_paused("broken_import")
        assert gc.isenabled()
    finally:
        for name in ("seen_collector", "broken_import"):
            sys.modules.pop(name, None)


def _collector_state() -> tuple[bool, int]:
    """Returns, in the process that runs it, whether the collector is on and how many objects it leaves out."""
    return gc.isenabled(), gc.get_freeze_count()


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_a_worker_collects_and_leaves_out_what_the_fork_server_loaded() -> None:
    with Pool(1) as pool:
        pool.submit("state", _collector_state, ())
        events = pool.wait()
    assert [e.kind for e in events] == ["done"], events
    enabled, frozen = events[0].value
    assert enabled, "a worker runs target code: its collector must be on"
    assert frozen > 10_000, "the harness the fork server imported is walked again by each worker"
