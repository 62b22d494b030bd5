"""Read recorded traffic of any project into ``Interaction`` records, by content and not by name.

``iter_recording(path)`` yields the interactions of one file one at a time, in any dialect of
``dialects`` (vcrpy, Ruby VCR, go-vcr, Polly.JS, nock, HAR, JSON lines, a bare response body, an
SSE capture), bodies as text, bytes, base64, gzip, brotli or zstd, or already parsed; event
streams are reassembled into the final message. ``read_recording`` is its list;
``iter_jsonl_range`` reads a byte range of a JSON-lines file. Nothing here judges anything.
"""

from __future__ import annotations

from .model import BodyError, Interaction, RecordingError
from .reader import iter_jsonl_range, iter_recording, read_recording, read_text

__all__ = ["BodyError", "Interaction", "RecordingError", "iter_jsonl_range", "iter_recording", "read_recording",
           "read_text"]
