"""The error types the harness raises.

``ConformanceError`` is the root. ``SpecError`` names a bad spec or cassette by file, line and field;
``TargetError`` names a target that cannot be resolved; ``UsageError`` is a bad command line.
"""

from __future__ import annotations

from pathlib import Path


class ConformanceError(Exception):
    """Root of every error the harness raises on purpose."""


class UsageError(ConformanceError):
    """A bad command line or option value (exit code 2)."""


class TargetError(ConformanceError):
    """A target given as ``module:attr`` that cannot be imported or is not callable."""


class SpecError(ConformanceError):
    """A malformed spec: carries the file, the 1-based line and the dotted field path."""

    def __init__(self, path: str | Path, line: int | None, field: str, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str, str]]:
        return (type(self), (self.path, self.line, self.field, self.message))  # crosses processes whole

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"
