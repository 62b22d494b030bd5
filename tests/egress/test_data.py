"""The egress data: the table of surfaces, the conversations and their declared canaries, located
spec errors, and the compactor loader leaving specs/egress alone."""

from __future__ import annotations

from pathlib import Path

from conformance._paths import shipped
from conformance.egress.canaries import CIPHERTEXT, KINDS, REASONING_TEXT
from conformance.egress.conversations import FORMATS, load, load_file
from conformance.egress.surfaces import load_table, table
from conformance.errors import SpecError
from conformance.engine.spec import load as load_compactor_specs

EXPECTED = {"provider-request": "byte-identical", "request-memory": "allowed", "task-record": "encrypted",
            **{name: "forbidden" for name in ("conversation-store", "log", "trace", "console", "browser-stream",
                                              "audit", "warehouse")}}


def test_the_table_of_surfaces() -> None:
    assert {s.name: s.reasoning for s in table().values()} == EXPECTED
    assert {s.answer for s in table().values()} == {"required"}


def test_a_bad_surfaces_file_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "surfaces.yaml"
    bad.write_text("egress: 1\nsurfaces:\n  - name: log\n    reasoning: sometimes\n    answer: required\n"
                   "    reader: r\n    why: w\n")
    try:
        load_table(bad)
    except SpecError as exc:
        assert exc.line == 4 and "reasoning" in exc.field
    else:
        raise AssertionError("no error")


def test_the_conversations_cover_the_formats_tasks_and_canary_kinds(conversations) -> None:
    assert {c.format for c in conversations} == set(FORMATS)
    assert {c.task for c in conversations} == {"settled", "in-flight"}
    assert {c.streamed for c in conversations} == {True, False}
    assert {c.tool_calls for c in conversations} == {True, False}
    assert {k.kind for c in conversations for k in c.canaries} == set(KINDS)
    for fmt in ("anthropic", "openai-responses"):
        assert any(c.streamed for c in conversations if c.format == fmt)


def test_canaries_are_distinct(conversations) -> None:
    for c in conversations:
        secret = c.of(REASONING_TEXT | CIPHERTEXT)
        for other in c.canaries:
            if other.kind in REASONING_TEXT | CIPHERTEXT:
                continue
            assert not any(piece in other.value for s in secret for piece in s.fragments()), (c.id, other.id)


def test_a_bad_conversation_names_file_line_and_field_and_the_rest_load(tmp_path: Path) -> None:
    good = (shipped("specs") / "egress" / "anthropic.yaml").read_text()
    broken = good.replace("kind: answer", "kind: answr", 1)
    path = tmp_path / "anthropic.yaml"
    path.write_text(broken)
    loaded = load_file(path)
    assert len(loaded.errors) == 1 and loaded.errors[0].line and "kind" in loaded.errors[0].field
    assert len(loaded.conversations) == len(load_file(shipped("specs") / "egress" / "anthropic.yaml").conversations) - 1


def test_an_undeclared_canary_is_a_spec_error(tmp_path: Path) -> None:
    good = (shipped("specs") / "egress" / "anthropic.yaml").read_text()
    path = tmp_path / "a.yaml"
    path.write_text(good.replace("value: \"Your refund of 42.10 EUR", "value: \"Your refund of 99.99 EUR", 1))
    errors = load([path]).errors
    assert errors and "does not occur" in errors[0].message


def test_the_compactor_loader_skips_the_egress_files() -> None:
    loaded = load_compactor_specs([shipped("specs")])
    assert not loaded.errors
    assert not any("egress" in s.path.replace("\\", "/").split("/")[-2] for s in loaded.scenarios)
