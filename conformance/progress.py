"""Progress of a run on stderr: a bar (rich) when stderr is a terminal, nothing otherwise (a log
or a pipe gets no progress lines).

Nothing shows for a run that ends within a second; the bar fits 100 columns (and the terminal).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

DELAY = 1.0  # seconds before anything shows
REFRESH = 0.2  # seconds between redraws of the bar
WIDTH = 100


class Progress:
    """A ``progress(done, total)`` callback for ``run``: a bar on ``stream`` when it is a terminal,
    else silent; ``close()`` clears the bar."""

    def __init__(self, stream: TextIO | None = None, label: str = "scenarios", delay: float = DELAY) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.delay = delay
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._bar: Any = None
        self._task: Any = None
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        if not self._tty:
            return
        now = time.monotonic()
        if now - self.started < self.delay or (now - self._last_draw < REFRESH and done < total):
            return
        self._last_draw = now
        if self._bar is None:
            self._open_bar(total)
        self._bar.update(self._task, completed=done, total=total)
        self._bar.refresh()

    def _open_bar(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        columns = shutil.get_terminal_size((WIDTH, 24)).columns or WIDTH
        console = Console(file=self.stream, width=min(WIDTH, columns), force_terminal=True)
        self._bar = Bar(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, transient=True, auto_refresh=False)
        self._task = self._bar.add_task(self.label, total=total)
        self._bar.start()

    def close(self) -> None:
        """Removes the bar, if one was shown."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def progress_callback(enabled: bool) -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """Returns ``(callback, close)``: a ``Progress`` on stderr when ``enabled`` and stderr is a
    terminal, else no-ops."""
    if not enabled or not sys.stderr.isatty():
        return None, lambda: None
    shown = Progress()
    return shown, shown.close
