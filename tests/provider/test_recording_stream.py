"""``iter_recording`` streams JSON lines (plain, gzip, zstd) line by line; ``iter_jsonl_range`` splits them."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
import zstandard

from conformance.provider.recordings import RecordingError, iter_jsonl_range, iter_recording, read_recording
from conformance.provider.recordings import reader

URL = "https://api.anthropic.com/v1/messages"
REQUEST = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}],
           "context_management": {"edits": [{"type": "compact_20260112"}]}}
RESPONSE = {"type": "message", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "hello"}],
            "context_management": {"applied_edits": []}, "usage": {"input_tokens": 3, "output_tokens": 1}}


def _lines(count: int, bad: frozenset[int] = frozenset()) -> bytes:
    out = []
    for n in range(1, count + 1):
        out.append("{not json" if n in bad else json.dumps({"url": URL, "request": REQUEST, "response": RESPONSE,
                                                            "n": n}))
        if n % 5 == 0:
            out.append("")  # a blank line is skipped, and still counted as a line
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("compress", ["plain", "gzip", "zstd"])
def test_json_lines_stream_with_their_line_numbers(tmp_path: Path, compress: str) -> None:
    raw = _lines(12, frozenset({7}))
    data = {"plain": raw, "gzip": gzip.compress(raw), "zstd": zstandard.ZstdCompressor().compress(raw)}[compress]
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    items = list(iter_recording(path))
    assert len(items) == 12
    numbers = [n for n, line in enumerate(raw.decode().splitlines(), 1) if line.strip()]
    assert [i.line for i in items] == numbers and [i.index for i in items] == [n - 1 for n in numbers]
    bad = items[6]
    assert bad.unreadable and bad.error == f"line {numbers[6]} is not JSON: Expecting property name enclosed in double quotes"
    assert all(i.request == REQUEST and i.dialect == "jsonl" for i in items if i is not bad)
    assert read_recording(path) == items


class Counted(io.BytesIO):
    """A stream that remembers the furthest byte anyone read."""

    furthest = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        Counted.furthest = max(Counted.furthest, self.tell())
        return data

    def readline(self, size: int | None = -1) -> bytes:
        data = super().readline(size)
        Counted.furthest = max(Counted.furthest, self.tell())
        return data


def test_json_lines_are_never_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = _lines(4000)
    monkeypatch.setattr(reader, "HEAD", 4096)
    Counted.furthest = 0
    stream = reader.iter_opened("big.jsonl", lambda: Counted(raw))
    assert next(stream).line == 1 and next(stream).line == 2
    first = len(raw.split(b"\n", 1)[0]) + 1
    assert Counted.furthest <= first + 4096 < len(raw) // 10  # the first line and the head that chose the dialect
    stream.close()


@pytest.mark.parametrize("parts", [2, 3, 7])
def test_byte_ranges_split_the_lines_exactly(tmp_path: Path, parts: int) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(_lines(40, frozenset({11})))
    whole = [(i.index, i.line, i.error) for i in iter_recording(path)]
    size = path.stat().st_size
    cuts = [size * k // parts for k in range(parts + 1)]
    split = [(i.index, i.line, i.error) for a, b in zip(cuts, cuts[1:]) for i in iter_jsonl_range(path, a, b)]
    assert split == whole


def test_a_range_read_for_some_indices_parses_those_lines_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.recordings.dialects import jsonl

    path = tmp_path / "log.jsonl"
    path.write_bytes(_lines(40, frozenset({11})))
    whole = {i.index: (i.index, i.line, i.error) for i in iter_recording(path)}
    size = path.stat().st_size
    parsed: list[int] = []
    parse = jsonl._parse
    monkeypatch.setattr(jsonl, "_parse", lambda number, raw: parsed.append(number) or parse(number, raw))
    bad = next(index for index, (_, _, error) in whole.items() if error)
    wanted = [bad, bad + 8, bad + 14]  # (indices of lines that are not blank)
    assert all(k in whole for k in wanted) and bad > 10
    found = [(i.index, i.line, i.error) for i in iter_jsonl_range(path, size // 4, size, only=set(wanted))]
    assert found == [whole[k] for k in wanted]  # the unreadable line among them, as a whole read gives it
    assert parsed == [k + 1 for k in wanted]  # no other line parsed


def test_a_range_starting_inside_a_line_skips_it(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(_lines(3))
    assert [i.line for i in iter_jsonl_range(path, 1, path.stat().st_size)] == [2, 3]
    assert [i.line for i in iter_jsonl_range(path, 0, 1)] == [1]


def test_byte_ranges_refuse_a_compressed_file(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(_lines(3)))
    with pytest.raises(RecordingError, match="uncompressed"):
        list(iter_jsonl_range(path, 0, 10))


def test_a_gzip_file_that_breaks_midway_is_an_error_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(_lines(400))[:-200])
    with pytest.raises(RecordingError, match="decompress"):
        list(iter_recording(path))


def test_a_first_line_longer_than_the_head_still_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    long_line = json.dumps({"url": URL, "request": {**REQUEST, "pad": "x" * 20000}, "response": RESPONSE})
    raw = (long_line + "\n" + json.dumps({"url": URL, "request": REQUEST, "response": RESPONSE}) + "\n") * 50
    monkeypatch.setattr(reader, "HEAD", 1024)
    Counted.furthest = 0
    stream = reader.iter_opened("long.jsonl", lambda: Counted(raw.encode()))
    assert next(stream).dialect == "jsonl"
    assert Counted.furthest < len(raw) // 10
    stream.close()


def test_a_stream_capture_with_a_bad_first_line_is_one_unreadable_record(tmp_path: Path) -> None:
    events = [{"type": "response.created", "response": {"id": "r", "object": "response", "output": []}},
              {"type": "response.output_item.done", "output_index": 0, "item": {"type": "message"}},
              {"type": "response.completed", "response": {"id": "r", "object": "response", "output": []}}]
    path = tmp_path / "chunks.jsonl"
    path.write_text(json.dumps(events[0])[:-1] + "\n" + "\n".join(json.dumps(e) for e in events[1:]) + "\n")
    (item,) = read_recording(path)
    assert item.unreadable and item.line == 1 and item.error.startswith("stream event capture: line 1 is not JSON")
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    (item,) = read_recording(path)
    assert item.response_only and item.dialect == "sse-events" and item.error is None


def test_byte_ranges_refuse_a_stream_capture(tmp_path: Path) -> None:
    path = tmp_path / "chunks.jsonl"
    path.write_text(json.dumps({"type": "message_start", "message": {"type": "message", "content": []}}) + "\n"
                    + json.dumps({"type": "message_stop"}) + "\n")
    with pytest.raises(RecordingError, match="one response"):
        list(iter_jsonl_range(path, 0, 10))
