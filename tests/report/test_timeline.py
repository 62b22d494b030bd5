"""The timeline marks what a target removed, changed, cleared or added, message by message."""

from __future__ import annotations

from conformance.engine.redaction import Redactor, block_label, safe_block
from conformance.report.timeline import align, compare_blocks, counts, labeller

THINK = {"type": "thinking", "thinking": "private plan for the next step", "signature": "s"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a long listing of many files"}
HISTORY = [
    {"role": "user", "content": "first"},
    {"role": "assistant", "content": [THINK, {"type": "text", "text": "done"}]},
    {"role": "user", "content": "second"},
    {"role": "assistant", "content": [THINK, USE]},
    {"role": "user", "content": [RESULT]},
]


def test_unchanged_output_is_all_kept() -> None:
    rows = align(HISTORY, list(HISTORY), 2)
    assert counts(rows) == {"kept": 5, "changed": 0, "removed": 0, "added": 0}
    assert [r.span for r in rows] == ["settled", "settled", "live", "live", "live"]


def test_removed_changed_cleared_and_added_are_told_apart() -> None:
    output = [
        {"role": "user", "content": "summary of earlier work"},
        {"role": "user", "content": "second"},
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": [{**RESULT, "content": "[cleared]"}]},
    ]
    rows = align(HISTORY, output, 2)
    by_index = {r.index: r for r in rows}
    assert by_index[1].status == "removed"
    assert by_index[3].status == "changed"
    assert [b.status for b in by_index[3].blocks] == ["removed", "kept"]
    assert [b.status for b in by_index[4].blocks] == ["cleared"]
    assert [b.status for b in by_index[0].blocks] == ["removed", "added"]  # text replaced by a summary
    assert by_index[2].status == "kept"


def test_a_grown_block_is_changed_not_cleared() -> None:
    grown = {**RESULT, "content": RESULT["content"] + " and more"}
    assert [b.status for b in compare_blocks({"content": [RESULT]}, {"content": [grown]})] == ["changed"]
    assert [b.status for b in compare_blocks({"content": [RESULT]}, {"content": [RESULT, USE]})] == ["kept", "added"]


def test_no_output_marks_every_row_as_input() -> None:
    assert {r.status for r in align(HISTORY, None, 2)} == {"input"}


def test_reasoning_shows_as_hash_and_length_only() -> None:
    label = block_label(THINK)
    assert label.startswith("thinking #") and "30 chars" in label and "private" not in label
    assert "private" not in str(safe_block(THINK))
    assert "private" not in block_label({"type": "redacted_thinking", "data": "private opaque"})


def test_redactor_catches_raw_escaped_and_quoted_forms() -> None:
    secret = "it's a \"plan\"\nline two"
    r = Redactor([secret])
    for form in (secret, repr(secret), f"{{'thinking': {secret!r}}}", '{"thinking": "anything at all"}'):
        out = r.text(f"before {form} after")
        assert "plan" not in out and "anything" not in out, out
    assert r.text("nothing here") == "nothing here"


def test_a_content_form_change_is_noted_when_no_block_changed() -> None:
    output = [{"role": "user", "content": [{"type": "text", "text": "first"}]}, *HISTORY[1:]]
    row = align(HISTORY, output, 2)[0]
    assert (row.status, [b.status for b in row.blocks]) == ("changed", ["kept"])
    assert row.note == "content: a string became a list of blocks"


def test_labeller_hides_text_quoting_reasoning_whole_or_cut_short() -> None:
    label = labeller([THINK["thinking"]])
    assert label({"type": "text", "text": "I said: " + THINK["thinking"]}).startswith("text [redacted thinking #")
    assert label({"type": "text", "text": THINK["thinking"][:20]}).startswith("text [redacted thinking #")
    assert label({"type": "text", "text": "plan"}) == "text 'plan'"  # too short to count as a quote
    assert label(THINK) == block_label(THINK)


OK = {"role": "user", "content": "ok"}


def test_identical_messages_pair_by_position_from_the_end() -> None:
    rows = align([OK, OK], [OK], 1)  # the settled "ok" dropped, the one in flight kept
    by_index = {r.index: r for r in rows}
    assert by_index[0].status == "removed" and by_index[0].span == "settled"
    assert by_index[1].status == "kept" and by_index[1].out_index == 0 and by_index[1].span == "live"


def test_identical_messages_before_a_changed_end_still_pair_in_order() -> None:
    summary = {"role": "user", "content": "summary"}
    rows = align([OK, OK, {"role": "assistant", "content": "done"}], [OK, summary], 2)
    by_index = {r.index: r for r in rows}
    assert by_index[0].status == "kept" and by_index[0].out_index == 0
    assert by_index[1].status == "changed" and by_index[1].out_index == 1
    assert by_index[2].status == "removed" and counts(rows)["kept"] == 1


def test_a_dropped_last_message_is_still_the_one_removed() -> None:
    other = {"role": "assistant", "content": "x"}
    rows = align([OK, other, OK], [OK, other], 2)  # the end differs: no pairing from the end
    by_index = {r.index: r for r in rows}
    assert [by_index[i].status for i in range(3)] == ["kept", "kept", "removed"]
