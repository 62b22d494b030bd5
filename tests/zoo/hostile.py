"""Targets that attack the harness itself: they hang, exit, crash or eat memory."""

from __future__ import annotations

import ctypes
import os
import time

from ._history import History


def sleeps(history: History) -> History:
    """Sleeps far past any time limit."""
    time.sleep(60)
    return history


def spins(history: History) -> History:
    """Busy-loops forever in Python code."""
    while True:
        pass


def exits(history: History) -> History:
    """Ends the process on the spot, skipping every handler."""
    os._exit(3)


def segfaults(history: History) -> History:
    """Reads address 0: the process dies of SIGSEGV."""
    return [ctypes.string_at(0)]  # type: ignore[list-item]


def eats_memory(history: History) -> History:
    """Grows a list of 64 MiB blocks until memory runs out."""
    hoard = []
    while True:
        hoard.append(bytearray(64 * 2**20))


def raises_memory_error(history: History) -> History:
    """Raises MemoryError itself."""
    raise MemoryError("out of memory (on purpose)")


def returns_a_generator(history: History) -> object:
    """Returns something that cannot be sent between processes."""
    return (m for m in history)


def hangs_on_second_call(history: History) -> History:
    """Answers the first call and hangs on the second (its own output)."""
    if history and history[-1].get("content") == "compacted":
        time.sleep(60)
    return [*history, {"role": "user", "content": "compacted"}]


def floods(history: History) -> History:
    """Returns a million messages for any input: far more than a compaction returns."""
    return [{"role": "user", "content": "x"}] * 1_000_000


def prints_from_a_thread(history: History) -> History:
    """Leaves a thread behind that keeps writing to stdout, and returns its input."""
    import threading
    import time

    def chatter() -> None:
        while True:
            print("STRAY-THREAD-OUTPUT", flush=True)
            time.sleep(0.001)

    threading.Thread(target=chatter, daemon=True).start()
    return history
