"""The files a well-kept Python project carries agree with its pyproject: the license, the typing
marker of each package, the workflow that runs the CI, and extras that list no package twice."""

from __future__ import annotations

import re
import tomllib


from .conftest import ROOT
from ._yaml import load_yaml

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    return re.split(r"[<>=!\[;\s]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_license_file_is_the_license_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_both_packages_are_marked_typed() -> None:
    assert (ROOT / "conformance" / "py.typed").is_file() and (ROOT / "reference" / "py.typed").is_file()


def test_the_ci_workflow_runs_the_ci_script_on_every_push_and_pull_request() -> None:
    workflow = load_yaml((ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True
    assert {"push", "pull_request"} <= set(triggers)
    steps = [s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"]]
    assert any(".ci/run" in step for step in steps)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\nruff check .\n" in ci and "\nmypy\n" in ci


def test_no_package_is_listed_twice() -> None:
    core = [_name(r) for r in PYPROJECT["project"]["dependencies"]]
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {"peers", "egress", "dev"} <= set(extras)
    listed = core + [_name(r) for group in extras.values() for r in group if not r.startswith("context-conformance")]
    assert len(listed) == len(set(listed)), sorted(n for n in listed if listed.count(n) > 1)
    assert "context-conformance[egress,dev,dask]" in extras["peers"]  # .[peers] installs what the tests need
    assert "pytest-xdist" in [_name(r) for r in extras["dev"]]
