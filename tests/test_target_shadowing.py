"""A user's file named like one of this project's modules never replaces it; a user's own target
in the current folder still resolves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

GARBAGE = 'def compact(history, **kwargs):\n    return [{"role": "user", "content": "garbage"}]\n'
SPEC = ROOT / "specs" / "real-failures.yaml"


def _conformance(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs the command as its console script does: the current folder is not on the path at start."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from conformance.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-P", "-c", code, *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=120, check=False)


@pytest.fixture
def shadowed(tmp_path: Path) -> Path:
    for name in ("reference.py", "conformance_reference.py"):
        (tmp_path / name).write_text(GARBAGE, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_files_named_like_the_reference_do_not_replace_it(shadowed: Path) -> None:
    done = _conformance(shadowed, "run", "--no-provider", "--no-progress", "-j", "1", "--specs", str(SPEC))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conformance_reference:compact: CONFORMS" in done.stdout


@pytest.mark.slow
def test_a_users_own_target_in_the_current_folder_still_resolves(shadowed: Path) -> None:
    (shadowed / "mytarget.py").write_text(
        "from conformance_reference import compact as _real\n\n"
        "def compact(history, **kwargs):\n    return _real(history, **kwargs)\n\n" + GARBAGE.replace("compact", "garbage"),
        encoding="utf-8")
    done = _conformance(shadowed, "run", "--no-progress", "-j", "1", "--specs", str(SPEC), "--target", "mytarget:compact")
    assert done.returncode == 0, done.stdout + done.stderr  # its own import of the reference is the real one
    assert "mytarget:compact: CONFORMS" in done.stdout
    done = _conformance(shadowed, "run", "--no-progress", "-j", "1", "--specs", str(SPEC), "--target", "mytarget:garbage")
    assert done.returncode == 1 and "mytarget:garbage: DOES NOT CONFORM" in done.stdout


def test_resolve_imports_the_projects_modules_from_where_they_are_installed(
        shadowed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.engine.target import resolve

    monkeypatch.chdir(shadowed)
    monkeypatch.delitem(sys.modules, "conformance_reference", raising=False)
    monkeypatch.setattr(sys, "path", ["", *sys.path])  # as under `python -c`: the current folder first
    target = resolve("conformance_reference:compact")
    assert Path(sys.modules["conformance_reference"].__file__ or "").resolve().parent != shadowed.resolve()
    history = [{"role": "user", "content": "hi"}]
    assert target.func(history) != [{"role": "user", "content": "garbage"}]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["reference", "reference:compact"])
def test_target_reference_is_the_shipped_reference_whatever_is_on_the_path(shadowed: Path, target: str) -> None:
    done = _conformance(shadowed, "run", "--no-provider", "--no-progress", "-j", "1", "--specs", str(SPEC),
                        "--target", target)
    assert done.returncode == 0, done.stdout + done.stderr  # the garbage reference.py beside it would fail
    assert "reference:compact: CONFORMS" in done.stdout
    done = _conformance(shadowed, "run", "--no-provider", "--no-progress", "-j", "1", "--specs", str(SPEC),
                        "--target", "reference:garbage")
    assert done.returncode == 2 and "has no attribute 'garbage'" in done.stderr, done.stderr


@pytest.mark.slow
def test_workers_import_the_project_from_where_it_is_installed_not_from_the_current_folder(tmp_path: Path) -> None:
    # run from a folder holding a `conformance/` package (as a checkout with a plain install does):
    # the fork server and its workers import the installed one; the target still imports from the folder
    fake = tmp_path / "conformance"
    fake.mkdir()
    (fake / "__init__.py").write_text("SHADOW = True\n", encoding="utf-8")
    (tmp_path / "mytarget.py").write_text(
        "import sys\n\ndef compact(history, **kwargs):\n"
        "    if getattr(sys.modules['conformance'], 'SHADOW', False):\n"
        "        raise RuntimeError('the worker imported the current folder')\n"
        "    return list(history)\n", encoding="utf-8")
    launcher = tmp_path / "bin" / "conformance"  # as the installed console script starts: no -P flag
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom conformance.cli import main\nif __name__ == '__main__':\n    sys.exit(main())\n",
                        encoding="utf-8")
    spec = ROOT / "specs" / "edges.yaml"
    done = subprocess.run([sys.executable, str(launcher), "run", "--no-provider", "--no-progress", "-j", "2",
                           "--specs", str(spec), "--target", "mytarget:compact"], cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True, capture_output=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "mytarget:compact: CONFORMS" in done.stdout
