"""Targets that attack the harness itself: they hang, exit, crash or eat memory.

Some misbehave only on some calls, counted in the process that calls them (so in every fresh
worker the count starts again): they answer between their hangs or deaths, which a give-up rule
that counts only timeouts in a row never sees.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections import Counter

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
    return [ctypes.string_at(0)]  # type: ignore[list-item]  # never returns: the read kills the process


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


_calls: Counter[str] = Counter()  # calls of each target below in this process


def _call_number(name: str) -> int:
    """Returns how many times ``name`` has been called in this process, this call included."""
    _calls[name] += 1
    return _calls[name]


def answers_three_then_hangs(history: History) -> History:
    """Returns its input on its first three calls in a process, then hangs on every call."""
    if _call_number("answers_three_then_hangs") > 3:
        time.sleep(60)
    return list(history)


def alternates_hang_and_answer(history: History) -> History:
    """Returns its input on odd calls in a process and hangs on even ones."""
    if _call_number("alternates_hang_and_answer") % 2 == 0:
        time.sleep(60)
    return list(history)


def dies_every_other_call(history: History) -> History:
    """Returns its input on odd calls in a process and ends the process on even ones."""
    if _call_number("dies_every_other_call") % 2 == 0:
        os._exit(4)
    return list(history)


def hangs_holding_the_gil(history: History) -> History:
    """Sleeps in C code without letting go of the interpreter lock: no thread of its process runs."""
    ctypes.PyDLL(None).sleep(60)
    return history


def sleeps_a_little(history: History) -> History:
    """A correct target, only slow: returns its input after a tenth of a second."""
    time.sleep(0.1)
    return list(history)


def hangs_on_five_messages(history: History) -> History:
    """Returns its input at once, except that it hangs on every history of exactly five messages."""
    if len(history) == 5:
        time.sleep(60)
    return list(history)
