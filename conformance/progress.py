"""Progress of a run on stderr: a bar on a terminal (tqdm), a few plain lines otherwise.

Nothing shows for a run that ends within a second; lines fit 100 columns (and the terminal).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO

DELAY = 1.0  # seconds before anything shows
EVERY = 5.0  # seconds between plain lines
WIDTH = 100


class Progress:
    """A ``progress(done, total)`` callback for ``run``; ``close()`` clears the bar."""

    def __init__(self, stream: TextIO | None = None, label: str = "scenarios", delay: float = DELAY) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.delay = delay
        self.started = time.monotonic()
        self._last_line = self.started + delay - EVERY
        self._bar = None
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if self._tty:
            if self._bar is None:
                from tqdm import tqdm

                columns = shutil.get_terminal_size((WIDTH, 24)).columns or WIDTH
                self._bar = tqdm(total=total, file=self.stream, delay=self.delay, ncols=min(WIDTH, columns),
                                 leave=False, unit="item", desc=self.label, mininterval=0.2)
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if now - self._last_line >= EVERY and done < total:
            self._last_line = now
            line = f"{self.label}: {done}/{total} done, {now - self.started:.0f} s"
            print(line[:WIDTH], file=self.stream, flush=True)

    def close(self) -> None:
        """Removes the bar, if one was shown."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_callback(enabled: bool) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """Returns ``(callback, close)``: a ``Progress`` on stderr when ``enabled``, else no-ops."""
    if not enabled:
        return None, lambda: None
    shown = Progress()
    return shown, shown.close
