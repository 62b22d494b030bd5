"""A progress bar for long ``analyze`` runs on a terminal: interactions judged, MB read, MB/s.

Nothing shows off a terminal or for a run that ends within a second; the bar is rich's, on stderr,
and is gone when the run ends.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

DELAY = 1.0  # seconds before the bar shows


class Progress:
    """A ``progress(interactions, bytes)`` callback; ``close()`` removes the bar."""

    def __init__(self, total_bytes: int, stream: TextIO | None = None, delay: float = DELAY) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total_bytes
        self.delay = delay
        self.started = time.monotonic()
        self.interactions = 0
        self.bytes = 0
        self._bar: Any = None
        self._task: Any = None
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, interactions: int, size: int) -> None:
        self.interactions += interactions
        self.bytes += size
        if not self.tty or time.monotonic() - self.started < self.delay:
            return
        if self._bar is None:
            self._open()
        elapsed = max(time.monotonic() - self.started, 1e-9)
        self._bar.update(self._task, completed=self.bytes,
                         rate=f"{self.interactions} interactions, {self.bytes / 1e6 / elapsed:.1f} MB/s")

    def _open(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress as Bar, TextColumn, TimeElapsedColumn

        console = Console(file=self.stream, force_terminal=True)
        self._bar = Bar(TextColumn("analyze"), BarColumn(), DownloadColumn(), TextColumn("{task.fields[rate]}"),
                        TimeElapsedColumn(), console=console, transient=True)
        self._task = self._bar.add_task("analyze", total=self.total or None, rate="")
        self._bar.start()

    def close(self) -> None:
        """Removes the bar (when one was shown)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
