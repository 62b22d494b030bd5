"""Layering: the drift package sits below the report package, which may import it, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

DRIFT = Path(__file__).resolve().parents[2] / "conformance" / "drift"


def imported_modules(path: Path) -> set[str]:
    """Returns the absolute module names a file of ``conformance.drift`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ["conformance", "drift"][: max(0, 2 - node.level + 1)] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_resolver_sees_a_relative_import_of_report(tmp_path: Path) -> None:
    path = tmp_path / "module.py"
    path.write_text("from ..report.markdown import cell\nfrom . import compare\n", encoding="utf-8")
    assert {"conformance.report.markdown", "conformance.drift.compare"} <= imported_modules(path)


def test_drift_never_imports_report_at_runtime() -> None:
    report_run_only = {"command.py"}  # the command writes the report files, as the CLI layer above both
    for path in sorted(DRIFT.glob("*.py")):
        if path.name in report_run_only:
            continue
        bad = sorted(m for m in imported_modules(path) if m.startswith("conformance.report"))
        assert not bad, f"{path.name} imports {bad}"
