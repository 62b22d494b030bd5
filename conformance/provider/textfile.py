"""Read a spec or cassette file as UTF-8 text, naming the line and column of a byte that is not."""

from __future__ import annotations

from pathlib import Path

from ..errors import SpecError


def read_utf8(path: Path) -> str:
    """Returns the file's text; raises ``SpecError`` (file, line, column) when unreadable or not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(path, None, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(path, line, "", f"not UTF-8: byte 0x{raw[exc.start]:02x} at column {column}") from None
