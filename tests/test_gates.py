"""The suite's own gates cannot hide a failure: a test may skip only for what is outside the
project (a browser, an optional peer library, a platform), never because the project's own code
failed to import or to register."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
_OWN = r"""["'](conformance|conformance_reference|tests)\b"""
_IMPORT_OR_SKIP_OWN = re.compile(r"importorskip\(\s*" + _OWN)
_SKIP_WHEN_UNREGISTERED = re.compile(r"skip\(.*\b(judge|registered|no probe specs)\b")


def test_no_test_skips_when_the_project_s_own_code_is_missing() -> None:
    offenders = []
    for path in sorted(p for p in TESTS.rglob("*.py") if p.name != "test_gates.py"):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _IMPORT_OR_SKIP_OWN.search(line) or _SKIP_WHEN_UNREGISTERED.search(line):
                offenders.append(f"{path.relative_to(TESTS.parent)}:{n}: {line.strip()}")
    assert not offenders, "import the project's own modules plainly (a broken import must fail):\n" + "\n".join(offenders)


def test_the_gate_sees_an_importorskip_of_the_project() -> None:
    assert _IMPORT_OR_SKIP_OWN.search('emulator = pytest.importorskip("conformance.provider.anthropic.emulator")')
    assert not _IMPORT_OR_SKIP_OWN.search('pytest.importorskip("xdist")')
    assert _SKIP_WHEN_UNREGISTERED.search('pytest.skip(f"no judge for {p} is installed")')
