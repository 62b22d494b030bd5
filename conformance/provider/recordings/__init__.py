"""Read recorded traffic of any project into ``Interaction`` records, by content and not by name.

``read_recording(path)`` reads vcrpy cassettes (YAML or JSON serializer, bodies as text, bytes,
base64, gzip, brotli or zstd, or already parsed), HAR 1.2 logs and JSON lines of request and
response; event streams are reassembled into the final message. Nothing here judges anything.
"""

from __future__ import annotations

from .containers import read_recording, read_text
from .model import BodyError, Interaction, RecordingError

__all__ = ["BodyError", "Interaction", "RecordingError", "read_recording", "read_text"]
