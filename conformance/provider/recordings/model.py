"""The one shape every recording format is read into: an ``Interaction`` per request and its answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit


class BodyError(ValueError):
    """A body that cannot be decoded (bad base64, a compression that does not inflate, an unknown stream)."""


class RecordingError(ValueError):
    """A file that is not a recording this reader knows; ``line`` is 1-based, 0 when unknown."""

    def __init__(self, path: str, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.path, self.message, self.line = path, message, line

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


@dataclass
class Interaction:
    """One recorded request and its answer, bodies decoded to plain JSON data.

    ``request``/``response`` are the parsed JSON bodies (a streamed response is reassembled into
    the final object); ``None`` when absent (a response-only file has no request). ``error`` names
    why the interaction cannot be read; the other fields then hold what could be read;
    ``unreadable`` says the record itself (a line, an entry) could not be read, not only a body.
    ``line`` is the 1-based line of a JSON-lines record, whose ``index`` is ``line - 1`` (so a byte
    range read alone numbers it as the whole file does); 0 otherwise. ``dialect`` names the reader.
    """

    file: str
    index: int
    method: str = "POST"
    url: str = ""
    request: Any = None
    response: Any = None
    status: int | None = None
    streamed: bool = False
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    line: int = 0
    dialect: str = ""
    unreadable: bool = False

    @property
    def response_only(self) -> bool:
        """Returns whether only a response was recorded (a bare body, an SSE capture, a batch output line)."""
        return self.request is None and self.response is not None

    @property
    def where(self) -> str:
        """Returns where the record sits in its file, e.g. ``line 12`` or ``interaction 3``."""
        return f"line {self.line}" if self.line else f"interaction {self.index}"

    @property
    def host(self) -> str:
        """Returns the host of the request URL (empty when the recording gave none)."""
        return _split(self.url)[0]

    @property
    def endpoint(self) -> str:
        """Returns the request path without query, e.g. ``/v1/messages`` (empty when unknown)."""
        return _split(self.url)[1]


@lru_cache(maxsize=1024)
def _split(url: str) -> tuple[str, str]:
    """Returns (host, path) of ``url``: a log names few distinct URLs, each split once."""
    parts = urlsplit(url)
    return parts.hostname or "", parts.path if url else ""
