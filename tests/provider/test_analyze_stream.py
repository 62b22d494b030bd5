"""``analyze`` streams: the windowed index chains follow, line ranges over worker processes giving the
records of a serial run, and ``--json`` written as it comes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.provider.analyze.earlier import Earlier
from conformance.provider.analyze.engines.tasks import Task, run_task
from conformance.provider.analyze.run import FileEnd, analyze_stream
from conformance.provider.recordings import read_recording

from .test_analyze import _paused, compaction_block, message, request, result, user

REAL = Path(__file__).parent / "real"


def _line(url: str, req: Any, resp: Any, status: int = 200) -> str:
    return json.dumps({"request": {"method": "POST", "url": url, "json": req}, "response": {"status": status, "json": resp}})


def real_lines() -> list[str]:
    """Returns every real recorded interaction of ``tests/provider/real`` as a JSON line."""
    return [_line(i.url, i.request, i.response, i.status or 200)
            for path in sorted(REAL.rglob("*.yaml")) for i in read_recording(path) if i.error is None]


def carried_pair() -> list[str]:
    """Returns two Messages interactions: a compaction inside a task in flight, then a request carrying its block."""
    url = "https://api.anthropic.com/v1/messages"
    first = _line(url, request([user("task B")], {"type": "compact_20260112"}),
                  message(*_paused()["content"], stop="tool_use",
                          iterations=[{"type": "compaction", "input_tokens": 200000}, {"type": "message"}]))
    second = _line(url, request([_paused(), result("t1", 10)], {"type": "compact_20260112"}), message())
    return [first, second]


def log(tmp_path: Path, *, name: str = "day.jsonl") -> Path:
    """Returns a JSON-lines log whose chains straddle any small split: the pair far apart, real
    chains, a line that is not JSON and a blank line."""
    first, second = carried_pair()
    lines = [first, *real_lines(), "{not json", "", *real_lines(), second, *real_lines()]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def events(path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch, split: int = 0) -> list[Any]:
    if split:
        monkeypatch.setenv("CONFORMANCE_ANALYZE_SPLIT", str(split))
    found = []
    for event in analyze_stream([path], jobs=jobs):
        found.append((event.path, event.interactions, str(event.error)) if isinstance(event, FileEnd)
                     else event.to_dict())
    return found


@pytest.mark.slow
def test_ranges_over_workers_give_the_serial_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = log(tmp_path)
    serial = events(path, 1, monkeypatch)
    ranged = events(path, 2, monkeypatch, split=4096)
    assert ranged == serial
    verdicts = [e["verdict"] for e in serial if isinstance(e, dict)]
    # the carried block is followed back across ranges to the compaction that produced it
    later = [e for e in serial if isinstance(e, dict) and any("from interaction 0" in x for x in e["evidence"])]
    assert len(later) == 1 and later[0]["verdict"] == "reached-live-task"
    assert {"reached-live-task", "settled-only", "not-judged"} <= set(verdicts) and "cannot-tell" not in verdicts
    bad = [x for e in serial if isinstance(e, dict) for x in [e["error"] or "", *e["evidence"]] if "is not JSON" in x]
    assert [x.split("; ")[-1].split(" is")[0] for x in bad] == [f"line {len(real_lines()) + 2}"]  # the file's number


def test_a_range_alone_misses_the_chain_and_says_so(tmp_path: Path) -> None:
    path = log(tmp_path)
    text = path.read_bytes()
    cut = text.index(b"\n") + 1  # everything after the compaction that produced the carried block
    outcome = run_task(Task(str(path), cut, len(text), 1, 2))
    carried = [j for j in outcome.judgements if j.verdict == "cannot-tell"
               and any("not produced in this recording" in e for e in j.evidence)]
    assert len(carried) == 1 and carried[0].index == 2 * len(real_lines()) + 3  # its line of the file, less one
    assert any(i == carried[0].index for i, _ in outcome.deferred)


def test_a_chain_past_the_window_cannot_be_told(tmp_path: Path) -> None:
    first, second = carried_pair()
    path = tmp_path / "far.jsonl"
    path.write_text("\n".join([first, *real_lines(), second]) + "\n")
    near = [e for e in analyze_stream([path], window=1000) if not isinstance(e, FileEnd)]
    far = [e for e in analyze_stream([path], window=3) if not isinstance(e, FileEnd)]
    assert near[-1].verdict == "reached-live-task"
    assert far[-1].verdict == "cannot-tell"  # never settled-only: a chain not followed is not a pass


def test_the_index_forgets_past_its_window_and_notes_misses() -> None:
    earlier = Earlier(window=2, complete=False)
    earlier.put("s", "k", {"v": 1})
    assert earlier.get("s", "k") == {"v": 1} and earlier.misses == []
    for _ in range(3):
        earlier.advance()
    assert earlier.get("s", "k") is None and earlier.misses == [("s", "k")]
    earlier.put("s", "k", 1)
    earlier.advance()
    earlier.put("s", "k", 2)
    assert earlier.get("s", "k") == 2 and earlier.get("s", "k", before=earlier.count) == 1  # the one before a link
    assert earlier.index_of("s", "k", before=earlier.count - 1) is None


def test_a_lookup_is_index_of_and_get_in_one_look() -> None:
    earlier = Earlier(window=3)
    for value in range(6):  # more puts than the versions kept, and some past the window
        earlier.put("s", "k", value)
        earlier.advance()
    for before in (None, earlier.count, earlier.count - 1, earlier.count - 2, 0):
        expected = earlier.index_of("s", "k", before)
        value = earlier.get("s", "k", before) if expected is not None else None
        earlier.misses = []
        found = earlier.lookup("s", "k", before)
        assert found == (None if expected is None else (expected, value))
        assert earlier.misses == ([] if expected is not None else [("s", "k")])
    assert earlier.lookup("s", "other") is None and earlier.misses[-1] == ("s", "other")


@pytest.mark.slow
def test_json_streams_one_record_a_line_and_jobs_do_not_change_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = log(tmp_path)
    monkeypatch.setenv("CONFORMANCE_ANALYZE_SPLIT", "4096")
    outputs = []
    for jobs in ("1", "2"):
        code = main(["analyze", str(path), "--json", "-", "--jobs", jobs])
        outputs.append((code, capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    code, out = outputs[0]
    records = json.loads(out)
    assert code == 1 and len(out.splitlines()) == len(records) + 2  # "[", a record a line, "]"
    table = main(["analyze", str(path), "--jobs", "2"])
    text = capsys.readouterr().out
    assert table == code and text.splitlines()[-1].startswith(f"analyze: 1 file(s), {len(records)} interaction(s)")


@pytest.mark.slow
def test_token_counts_recorded_before_a_truncation_decide_it_across_ranges(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    cassettes = Path(__file__).resolve().parents[2] / "cassettes" / "emulator-openai"
    lines = []
    for name in ("openai-truncation.settled-prefix", "openai-truncation.live-span"):
        items = read_recording(cassettes / f"{name}.yaml")
        counts, call = items[1:], items[0]
        lines += [_line(i.url, i.request, i.response) for i in counts] + [""] * 40 + real_lines()
        lines.append(_line(call.url, call.request, call.response))
    path = tmp_path / "counted.jsonl"
    path.write_text("\n".join(lines) + "\n")
    serial = events(path, 1, monkeypatch)
    truncations = [e for e in serial if isinstance(e, dict) and e["strategy"] == "truncation auto"]
    assert [e["verdict"] for e in truncations] == ["settled-only", "reached-live-task"]
    assert events(path, 2, monkeypatch, split=4096) == serial


@pytest.mark.slow
def test_a_large_compressed_file_on_workers_spools_and_gives_the_serial_records(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip
    import tempfile

    packed = tmp_path / "day.jsonl.gz"
    packed.write_bytes(gzip.compress(log(tmp_path).read_bytes()))
    other = log(tmp_path, name="other.jsonl")
    serial = events(packed, 1, monkeypatch) + events(other, 1, monkeypatch)
    monkeypatch.setenv("CONFORMANCE_ANALYZE_SPLIT", "4096")
    spools = set(Path(tempfile.gettempdir()).glob("conformance-analyze-*"))
    found = [(e.path, e.interactions, str(e.error)) if isinstance(e, FileEnd) else e.to_dict()
             for e in analyze_stream([packed, other], jobs=2)]
    assert found == serial and len(serial) > 100
    assert set(Path(tempfile.gettempdir()).glob("conformance-analyze-*")) == spools  # removed once read


def test_splits_cut_after_newlines_and_count_the_lines_before_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.analyze import source

    path = log(tmp_path)
    data = path.read_bytes()
    monkeypatch.setattr(source, "CHUNK", 1000)  # cuts that fall across chunk edges too
    cuts = source.splits(path, 4096)
    assert len(cuts) > 10 and cuts[0][0] == 0 and cuts[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
    for start, end, before in cuts:
        assert end - start >= 4096 or end == len(data)
        assert (start == 0 or data[start - 1:start] == b"\n") and before == data[:start].count(b"\n")


def test_input_just_over_one_range_is_cut_so_that_every_worker_gets_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.analyze import run, source

    monkeypatch.delenv("CONFORMANCE_ANALYZE_SPLIT", raising=False)
    just_over = source.SPLIT_SIZE + source.SPLIT_SIZE // 8  # one whole range and a small rest, as cut before
    for jobs in (2, 4):
        size = run.range_size(just_over, jobs)
        assert size >= run.MIN_RANGE  # (the floor binds before the count of ranges a worker)
        assert -(-just_over // size) >= jobs * run.RANGES_PER_JOB or size == run.MIN_RANGE
        assert -(-just_over // size) >= 2 * jobs
    assert run.range_size(100 * source.SPLIT_SIZE, 2) == source.SPLIT_SIZE  # a large input keeps the full ranges
    assert run.range_size(source.SPLIT_SIZE + 1, 64) == run.MIN_RANGE  # many cores: no range below the floor
    monkeypatch.setenv("CONFORMANCE_ANALYZE_SPLIT", "4096")
    assert run.range_size(just_over, 2) == 4096  # the variable is the size itself


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="workers are forks")
def test_a_worker_whose_task_raises_fails_the_run_naming_its_file(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.analyze.engines import tasks
    from conformance.provider.analyze.engines.local import WorkerFailed, run_tasks

    read = tasks._items

    def broken(task: Task) -> Any:  # a judge's bug, in the worker (a fork: it has this patch)
        if "broken" in task.path:
            raise ZeroDivisionError("a bug")
        return read(task)

    monkeypatch.setattr(tasks, "_items", broken)
    files = []
    for name in ("a.jsonl", "broken.jsonl", "c.jsonl"):
        files.append(tmp_path / name)
        files[-1].write_text(_line("https://api.anthropic.com/v1/messages", request([user("hi")]), message("ok")) + "\n")
    with pytest.raises(WorkerFailed, match="broken.jsonl: the worker failed: ZeroDivisionError: a bug"):
        list(run_tasks([Task(str(f)) for f in files], 2))
    assert [f.interactions for f in run_tasks([Task(str(files[0])), Task(str(files[2]))], 2)
            if isinstance(f, FileEnd)] == [1, 1]


def test_the_progress_bar_shows_on_a_terminal_only() -> None:
    import io

    from conformance.provider.analyze.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown, hidden = Terminal(), io.StringIO()
    for stream in (shown, hidden):
        bar = Progress(10_000_000, stream=stream, delay=0)
        bar(1200, 4_000_000)
        bar(800, 3_000_000)
        bar.close()
    assert "2000 interactions" in shown.getvalue() and "MB/s" in shown.getvalue()
    assert hidden.getvalue() == ""


def test_bad_jobs_or_window_and_a_missing_dask_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    path = log(tmp_path)
    assert main(["analyze", str(path), "--jobs", "0"]) == 2
    assert main(["analyze", str(path), "--window", "0"]) == 2
    assert "take a positive number" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the [dask] extra were not installed
    assert main(["analyze", str(path), "--engine", "dask"]) == 2
    assert "pip install 'context-conformance[dask]'" in capsys.readouterr().err


def test_the_index_keeps_no_reasoning_text(tmp_path: Path) -> None:
    from conformance.provider.analyze.judging import judge_stream
    from conformance.provider.analyze.registry import judges
    from conformance.provider.recordings import iter_recording

    from .test_analyze import REASONING

    thinking = {"role": "assistant", "content": [{"type": "thinking", "thinking": REASONING, "signature": "s"},
                                                 {"type": "text", "text": "A done"}]}
    anthropic_line = _line("https://api.anthropic.com/v1/messages",
                           request([user("A"), thinking, user("B")], {"type": "compact_20260112"}),
                           message(compaction_block("A was answered"), stop="compaction"))
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": REASONING}]}
    openai_line = _line("https://api.openai.com/v1/responses", {"model": "gpt-4.1", "input": "hi"},
                        {"id": "resp_1", "object": "response", "output": [reasoning]})
    path = tmp_path / "reasoning.jsonl"
    path.write_text(anthropic_line + "\n" + openai_line + "\n")
    earlier = Earlier()
    assert len(list(judge_stream(iter_recording(path), judges(), earlier))) == 2
    kept = b"".join(raw for *_, raw in earlier.export())
    assert b"A was answered" not in kept and len(earlier.export()) == 2  # what is kept: the two answers' notes
    assert b"PLANTED-REASONING" not in kept and b"first I will look" not in kept


def test_without_orjson_the_standard_library_gives_the_same_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import _json

    path = log(tmp_path)
    fast = events(path, 1, monkeypatch)
    assert _json.PARSER == "orjson"
    monkeypatch.setattr(_json, "_orjson", None)
    assert _json.loads(b'{"a": NaN}')["a"] != 0 and events(path, 1, monkeypatch) == fast


def chain_to_a_carried_item() -> tuple[str, str, str]:
    """Returns three real Responses interactions: a call whose ``previous_response_id`` names the
    second, which carries a compaction item the third returned."""
    lines = {json.loads(line)["response"]["json"].get("id"): line for line in real_lines()}
    body = {key: json.loads(line) for key, line in lines.items()}
    for key, line in lines.items():
        previous = body[key]["request"]["json"].get("previous_response_id")
        carried = {i.get("encrypted_content") for i in body.get(previous, {}).get("request", {}).get("json", {})
                   .get("input") or [] if isinstance(i, dict) and i.get("type") == "compaction"} - {None}
        for other, data in body.items():
            returned = {o.get("encrypted_content") for o in data["response"]["json"].get("output") or []}
            if other not in (key, previous) and carried & returned:
                return lines[previous], lines[other], line
    raise AssertionError("the real recordings hold no chain to a carried compaction item")


def test_a_later_range_chaining_to_an_earlier_one_is_judged_again_with_both(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.analyze.source import splits

    previous, producer, last = chain_to_a_carried_item()
    filler = [line for line in real_lines() if "api.anthropic.com" in line]
    head = [previous, *filler]  # the chain's link, alone in the first range
    between = filler[:2]
    path = tmp_path / "chained.jsonl"
    path.write_text("\n".join([*head, producer, *between, last, *filler, *filler]) + "\n")
    split = len("\n".join(head))  # the cut falls just after the newline that ends the head
    cuts = splits(path, split)
    lines_of = [path.read_bytes()[:end].count(b"\n") for _, end, _ in cuts]
    assert len(cuts) >= 3 and lines_of[0] == len(head) and lines_of[1] > len(head) + len(between) + 1
    serial = events(path, 1, monkeypatch)
    at_producer, at_last = len(head), len(head) + 1 + len(between)
    by_index = {e["index"]: e for e in serial if isinstance(e, dict)}
    # The last call is rebuilt through the link of the range before, and the compaction item that
    # link carries is followed to the interaction of its own range that returned it.
    evidence = by_index[at_last]["evidence"]
    assert any("through interaction(s) 0:" in x for x in evidence)
    assert any(f"(returned by interaction {at_producer})" in x for x in evidence)
    # Its range alone cannot follow the chain, and the producer has nothing an earlier range answers:
    # the parent judges the last call again, with the producer's note from its own range.
    alone = run_task(Task(str(path), cuts[1][0], cuts[1][1], 1, len(cuts), lines_before=cuts[1][2]))
    judged = {j.index: j for j in alone.judgements}
    assert judged[at_last].to_dict() != by_index[at_last] and at_last in {i for i, _ in alone.deferred}
    assert judged[at_producer].to_dict() == by_index[at_producer]
    assert events(path, 2, monkeypatch, split=split) == serial


def test_a_judgement_pickles_to_itself_every_field_kept() -> None:
    import pickle
    from dataclasses import fields

    from conformance.provider.analyze.model import Judgement

    values: dict[str, Any] = {f.name: [f.name] if f.name == "evidence" else f"{f.name}-value" for f in fields(Judgement)}
    found = Judgement(**values)
    assert pickle.loads(pickle.dumps(found)) == found  # (how a worker's judgements reach the parent)


def test_the_table_stops_at_its_row_cap_and_counts_the_rest_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A day of traffic is not printed a line per interaction: past the cap a file's interactions
    are counted under its table, while the findings, the summary and ``--json`` still hold all."""
    from conformance.provider.analyze import output

    monkeypatch.setattr(output, "TABLE_ROWS", 5)
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("\n".join(real_lines()[:4]) + "\n")
    second.write_text("\n".join(real_lines()[:6]) + "\n")
    code = main(["analyze", str(first), str(second), "--jobs", "1"])
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line[:1].isdigit()]  # a table row starts with its index
    assert [line.split()[0] for line in rows] == ["0", "1", "2", "3", "0"]
    assert "  and 5 more not shown (the tables stop at 5 rows; --json and --report hold every one)" in text
    assert text.count("more not shown") == 1  # the first file was shown whole
    assert text.splitlines()[-1].startswith("analyze: 2 file(s), 10 interaction(s)")
    assert main(["analyze", str(first), str(second), "--json", "-", "--jobs", "1"]) == code
    assert len(json.loads(capsys.readouterr().out)) == 10
