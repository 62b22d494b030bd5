"""A function run ``beside`` answers from a process of its own, which exits once it answered; what it
raises reaches the caller; a process run beside may run another beside itself (the provider replay
does: each provider's SDK in a process of its own)."""

from __future__ import annotations

import os

import pytest

from conformance.engine.worker import Beside, BesideFailed, beside, ended


def pid() -> int:
    return os.getpid()


def pids() -> tuple[int, int]:
    inner = beside(pid)
    try:
        return os.getpid(), inner.result()
    finally:
        ended(inner)


def fails() -> None:
    raise ValueError("the replay broke")


def _exited(process_id: int) -> bool:
    try:
        os.kill(process_id, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{process_id}/stat", encoding="ascii") as stat:  # a zombie not reaped yet is gone too
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.slow
def test_a_function_run_beside_answers_from_a_process_that_then_exits() -> None:
    answer = beside(pids)
    outer, inner = answer.result()
    ended(answer)
    assert len({os.getpid(), outer, inner}) == 3
    assert _exited(outer) and _exited(inner)


@pytest.mark.slow
def test_what_a_function_run_beside_raises_reaches_the_caller() -> None:
    answer = beside(fails)
    with pytest.raises(BesideFailed, match="ValueError: the replay broke"):
        answer.result()
    ended(answer)


def test_a_function_whose_module_is_imported_runs_here() -> None:
    answer = beside(pid, unless_imported="os")
    assert isinstance(answer, Beside) and answer.result() == os.getpid()
    with pytest.raises(ValueError, match="the replay broke"):
        beside(fails, unless_imported="os").result()
