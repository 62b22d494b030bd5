"""The published egress docs are what the commands print, the matrix is broad enough, and the
pytest route runs a vendor's serializer."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conformance.egress.adapters import COMPONENTS, select
from conformance.egress.docs import catalog_markdown
from conformance.egress.matrix import changed_cells, component_row, markdown

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_egress_md_is_generated() -> None:
    assert (DOCS / "egress.md").read_text(encoding="utf-8") == catalog_markdown()


def test_the_published_matrix_is_broad_and_rendered_from_its_json() -> None:
    matrix = json.loads((DOCS / "egress-matrix.json").read_text(encoding="utf-8"))
    libraries = Counter(row["library"] for row in matrix["rows"])
    assert len(matrix["rows"]) >= 10 and len(libraries) >= 6
    assert all(row["installed"] for row in matrix["rows"])
    assert {row["component"] for row in matrix["rows"]} == {c.name for c in COMPONENTS}
    assert (DOCS / "egress-matrix.md").read_text(encoding="utf-8") == markdown(matrix) + "\n"
    leaky = [row for row in matrix["rows"] if row["failures"]]
    assert leaky and all(set(row["smallest"]) == set(row["failures"]) for row in leaky)
    leak_checks = {"egress.no-reasoning-text", "egress.no-reasoning-ciphertext", "store.encrypted-at-rest",
                   "store.export-no-reasoning"}
    assert all(row["leaked"] for row in leaky if leak_checks & set(row["failures"]))


@pytest.mark.slow
def test_a_row_run_again_matches_the_published_one(conversations) -> None:
    matrix = json.loads((DOCS / "egress-matrix.json").read_text(encoding="utf-8"))
    fresh = {"conversations": matrix["conversations"],
             "rows": [component_row(c, conversations) for c in select(["haystack-ai.ChatMessage.to_dict"])]}
    assert changed_cells(matrix, fresh, named=True) == []


def test_a_changed_row_is_reported() -> None:
    matrix = json.loads((DOCS / "egress-matrix.json").read_text(encoding="utf-8"))
    row = dict(matrix["rows"][0], failures={})
    assert changed_cells(matrix, {**matrix, "rows": [row]}, named=True)


HELD_OUT = '''
import json

def leaky(messages):
    return json.dumps(messages)

def never_writes(messages):  # a sampler whose calls here all fall between its samples
    return ""

def clean(messages):
    return [b.get("text") for m in messages if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "text"] + [m["content"] for m in messages if isinstance(m["content"], str)]
'''


@pytest.mark.parametrize(("name", "outcome"), [("leaky", "failed"), ("clean", "passed")])
def test_the_pytest_route(pytester: pytest.Pytester, name: str, outcome: str) -> None:
    pytester.makepyfile(vendor=HELD_OUT)
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "conformance.plugin", "--egress-target", f"vendor:{name}",
                                           "--egress-surface", "log", "-q", "-p", "no:cacheprovider")
    counts = result.parseoutcomes()
    assert counts.get(outcome, 0) >= 4, result.stdout.str()[-2000:]


def test_the_pytest_route_passes_no_conversation_a_sampler_wrote_nothing_for(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(vendor=HELD_OUT)
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest_inprocess("-p", "conformance.plugin", "--egress-target", "vendor:never_writes",
                                           "--egress-surface", "log", "-q", "-rs", "-p", "no:cacheprovider")
    counts = result.parseoutcomes()
    # a settled conversation loses its answer; one in flight (no answer) cannot be told: none passes
    assert "passed" not in counts and counts.get("skipped", 0) >= 1, result.stdout.str()[-2000:]
    assert "cannot tell: nothing was written" in result.stdout.str()


def test_the_pytest_route_runs_its_items_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(vendor=HELD_OUT)
    pytester.makepyfile(test_own="def test_own():\n    assert False\n")
    result = pytester.runpytest_inprocess("-p", "conformance.plugin", "--egress-target", "vendor:clean",
                                           "--egress-surface", "log", "-q", "-p", "no:cacheprovider")
    counts = result.parseoutcomes()
    assert counts.get("passed", 0) >= 4 and "failed" not in counts, result.stdout.str()[-2000:]


def test_egress_matrix_with_a_library_not_installed_writes_nothing_and_exits_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """As `conformance matrix` does: no file of "not installed" rows, exit 2 naming the library."""
    from conformance.cli import main
    from conformance.egress import matrix as egress_matrix
    from conformance.egress.adapters.base import Component

    ghost = Component("ghost.dump", "no-such-library", "dump", "defaults", "log", "anthropic", "no_such_module:dump",
                      "no_such_module")
    monkeypatch.setattr(egress_matrix, "select", lambda names: [ghost])
    assert main(["egress-matrix", "--out", str(tmp_path / "docs")]) == 2
    assert not (tmp_path / "docs").exists()
    err = capsys.readouterr().err
    assert "1 library not installed (no-such-library), so 1 component cannot run and no file was written" in err


@pytest.mark.slow
def test_egress_matrix_without_out_prints_the_table_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["egress-matrix", "langchain-core.messages_to_dict"]) == 0
    assert list(tmp_path.iterdir()) == []  # no docs/ of the current folder, nor anything else
    out = capsys.readouterr().out
    assert "messages_to_dict" in out and "SqliteSaver" not in out
