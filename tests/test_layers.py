"""The layers read top to bottom: no import cycle among the modules of ``conformance`` (imports
inside functions included), and ``conformance`` never imports the reference."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "conformance"


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def _imports() -> dict[str, set[str]]:
    """Returns module -> the modules of the package it imports, wherever in it the import stands
    (read once per process; callers must not change it)."""
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:
                    child = f"{target}.{alias.name}"
                    graph[name].add(child if child in modules else target)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names)
    return {name: {t for t in targets if t in modules and t != name} for name, targets in graph.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Returns the strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.slow
def test_no_import_cycle_in_the_package() -> None:
    graph = _imports()
    assert graph["conformance.matrix.build"] >= {"conformance.matrix.rows"}  # the reader sees the imports
    assert _cycles(graph) == []


def _between_packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Returns the graph of the package's top-level modules and subpackages (``conformance.X``):
    one imports another when any module of it imports any of the other's."""
    def top(module: str) -> str:
        return ".".join(module.split(".")[:2])

    found: dict[str, set[str]] = defaultdict(set)
    for name, targets in graph.items():
        found[top(name)].update(top(t) for t in targets if top(t) != top(name))
    return dict(found)


@pytest.mark.slow
def test_no_import_cycle_between_the_packages() -> None:
    # (the target module called the worker package, whose jobs module calls targets)
    modules = _imports()
    assert "conformance.engine.worker" not in modules["conformance.engine.target"]
    graph = _between_packages(modules)
    assert graph["conformance.egress"] >= {"conformance.engine"}  # the reader sees the engine's users
    assert _cycles(graph) == []
    assert _cycles(_between_packages({"conformance.engine.target": {"conformance.report"},
                                      "conformance.report.terminal": {"conformance.engine.results"}})) != []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.slow
def test_the_package_never_imports_the_reference() -> None:
    for path in _modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            assert not any(n.split(".")[0] in ("conformance_reference", "reference") for n in names), path


# the provider side's core, and the packages that read every provider's traffic or recordings through it
PROVIDER_CORE = [*sorted((PACKAGE / "provider").glob("*.py")), *sorted((PACKAGE / "provider" / "analyze").glob("*.py")),
                 *sorted((PACKAGE / "guard").glob("*.py")), *sorted((PACKAGE / "drift").glob("*.py")),
                 PACKAGE / "report" / "explain_recording.py", PACKAGE / "report" / "explain.py"]
SHIPPED_PROVIDERS = ("anthropic", "openai")


def _named_in_code(path: Path, names: tuple[str, ...]) -> list[str]:
    """Returns the identifiers, imports and string constants of ``path`` (docstrings left out) that
    contain one of ``names``, case-insensitively."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            words = [getattr(node, "module", None) or "", *(a.name for a in node.names)]
        found += [f"{path.name}:{getattr(node, 'lineno', 0)}: {w!r}" for w in words
                  if any(n in w.lower() for n in names)]
    return found


def test_the_provider_core_names_no_provider() -> None:
    assert len(PROVIDER_CORE) > 10
    assert [hit for path in PROVIDER_CORE for hit in _named_in_code(path, SHIPPED_PROVIDERS)] == []


def test_the_name_finder_finds_a_name_in_code_not_in_a_docstring(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Speaks of Anthropic."""\nfrom .openai import replay\nX = "anthropic-beta"\n', encoding="utf-8")
    assert _named_in_code(sample, SHIPPED_PROVIDERS) == ["sample.py:2: 'openai'", "sample.py:3: 'anthropic-beta'"]


@pytest.mark.slow
def test_the_provider_and_drift_packages_never_climb_to_the_report_or_the_runner() -> None:
    graph = _imports()
    assert "conformance.report" in graph["conformance.report.cli"] | graph["conformance.cli"]  # the reader sees them
    climbing = {(name, target) for name, targets in graph.items()
                if name.startswith(("conformance.provider", "conformance.drift"))
                for target in targets if target.startswith(("conformance.report", "conformance.engine.runner"))}
    assert climbing == set()


def _runtime_imports(path: Path) -> set[str]:
    """Returns the modules ``path`` imports outside ``if TYPE_CHECKING:`` blocks (relative ones as
    written, dots and all)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                   for stmt in block.body for n in ast.walk(stmt)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


@pytest.mark.slow
def test_the_report_model_sits_below_every_command_and_writer() -> None:
    graph = _imports()
    assert _runtime_imports(PACKAGE / "engine" / "command_report.py") == {
        "__future__", "collections.abc", "dataclasses", "pathlib", "typing", "..errors", ".results"}
    users = {name for name, targets in graph.items() if "conformance.engine.command_report" in targets}
    assert {"conformance.engine.runner", "conformance.egress.run", "conformance.provider.cli",
            "conformance.provider.analyze.cli", "conformance.drift.command", "conformance.report.folder"} <= users
