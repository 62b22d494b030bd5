"""The egress pytest route keeps a conversation file that does not load as a failing item, whatever
``-m`` or ``-k`` selects (as the scenario route does), so a vendor's broken file never passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.egress.conversations import shipped_folder

pytest_plugins = ["pytester"]

CLEAN = '''
def clean(messages):
    return [b.get("text") for m in messages if isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "text"] + [m["content"] for m in messages if isinstance(m["content"], str)]
'''
BROKEN = "egress: 1\nconversations:\n- id: mine.broken\n  format: anthropic\n  messages: 42\n"


@pytest.fixture
def broken(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(vendor=CLEAN)
    folder = pytester.mkdir("mine")
    (folder / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    return folder / "broken.yaml"


def run(pytester: pytest.Pytester, broken: Path, *selection: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "conformance.plugin", "--egress-target", "vendor:clean",
                                        "--egress-surface", "log", "--egress-specs", str(shipped_folder()),
                                        str(broken), *selection, "-p", "no:cacheprovider")


def test_a_file_that_does_not_load_fails_even_under_m_conformance(pytester: pytest.Pytester, broken: Path) -> None:
    result = run(pytester, broken, "-m", "conformance")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counts = result.parseoutcomes()
    assert counts.get("failed", 0) >= 1 and counts.get("passed", 0) >= 4, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["*spec error: *broken.yaml:*"])


def test_a_file_that_does_not_load_is_never_deselected_by_k(pytester: pytest.Pytester, broken: Path) -> None:
    result = run(pytester, broken, "-k", "anthropic.settled.text-only")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counts = result.parseoutcomes()
    assert counts.get("passed") == 1 and counts.get("failed", 0) >= 1 and counts.get("deselected", 0) >= 3
    result.stdout.fnmatch_lines(["*spec error: *broken.yaml:*"])
