"""The scheduled drift workflow: triggers, secret, steps, and command lines the CLI accepts."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import build_parser
from .._yaml import load_yaml

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "drift.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return load_yaml(WORKFLOW.read_text(encoding="utf-8"))


def _steps(workflow: dict[str, Any], job: str = "drift") -> list[dict[str, Any]]:
    return workflow["jobs"][job]["steps"]


def _commands(workflow: dict[str, Any]) -> list[str]:
    env = {k: str(v) for k, v in workflow["jobs"]["drift"]["env"].items()}
    lines = []
    for step in _steps(workflow):
        text = step.get("run", "").replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip()
            for name, value in env.items():
                line = line.replace(f'"${name}"', value).replace(f"${name}", value)
            if line.startswith("conformance "):
                lines.append(line)
    return lines


def test_runs_on_a_schedule_and_by_hand(workflow: dict[str, Any]) -> None:
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert re.fullmatch(r"[\d*/,-]+( [\d*/,-]+){4}", triggers["schedule"][0]["cron"])
    assert "workflow_dispatch" in triggers


def test_the_key_comes_from_a_secret_on_the_record_step_only(workflow: dict[str, Any]) -> None:
    with_key = [s for s in _steps(workflow) if "ANTHROPIC_API_KEY" in str(s)]
    assert len(with_key) == 1 and "conformance record" in with_key[0]["run"]
    assert with_key[0]["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"


def test_installs_the_suite_and_publishes_a_summary() -> None:
    text = WORKFLOW.read_text()
    assert "GITHUB_STEP_SUMMARY" in text and "actions/upload-artifact" in text
    assert "pip install ." in text


def test_every_command_line_parses(workflow: dict[str, Any]) -> None:
    parser = build_parser()
    for line in _commands(workflow):
        words = shlex.split(line)[1:]
        cut = next((i for i, w in enumerate(words) if re.match(r"\d?>", w)), len(words))  # shell redirections
        args = parser.parse_args(words[:cut])
        assert callable(args.func), line


def test_verifies_audits_then_drifts_the_fresh_recordings(workflow: dict[str, Any]) -> None:
    commands = [c.split()[1] for c in _commands(workflow)]
    assert commands == ["record", "verify", "audit", "drift"]
    [verify_step] = [s for s in _steps(workflow) if "conformance verify" in s.get("run", "")]
    assert "$FRESH/$server" in verify_step["run"]
    assert workflow["jobs"]["drift"]["env"]["SERVERS"].split() == ["api.anthropic.com", "api.openai.com"]


def test_both_keys_reach_the_record_step_and_either_alone_records(workflow: dict[str, Any]) -> None:
    [record] = [s for s in _steps(workflow) if "conformance record" in s.get("run", "")]
    assert record["env"]["OPENAI_API_KEY"] == "${{ secrets.OPENAI_API_KEY }}"
    assert record["env"]["ANTHROPIC_API_KEY"] == "${{ secrets.ANTHROPIC_API_KEY }}"


def test_recordings_that_fail_the_audit_are_never_uploaded(workflow: dict[str, Any]) -> None:
    [upload] = [s for s in _steps(workflow) if "upload-artifact" in s.get("uses", "")]
    assert upload["if"] == "steps.audit.outputs.code == '0'"
    assert "fresh-cassettes/" in upload["with"]["path"]


# --- the workflow's shell run offline, with a stand-in `conformance` whose exit codes each case picks ---

FAKE = """#!/usr/bin/env bash
name="FAKE_$(echo "$1" | tr a-z A-Z)"
code="${!name:-0}"
case "$1" in
  record) mkdir -p fresh-cassettes/api.anthropic.com && echo "interactions: []" > fresh-cassettes/api.anthropic.com/p.yaml
          [ "$code" = 1 ] && echo "FAILED some.probe: answered 400" ;;
  audit) [ "$code" = 0 ] || echo "fresh-cassettes/api.anthropic.com/p.yaml:3: API key: sk-ant-api03-NOTREALBUTLEAKY..."
         echo "audit: 1 cassette(s), $code finding(s)" ;;
  drift) while [ $# -gt 0 ]; do [ "$1" = --markdown ] && { mkdir -p "$(dirname "$2")"; echo "# Drift: fake" > "$2"; }; shift; done ;;
esac
exit "$code"
"""


# The stand-in `python` of the newest-SDKs job: tools/sdk_surface.py and pytest, with the exit codes a case picks.
FAKE_PYTHON = """#!/usr/bin/env bash
case "$*" in
  *tools/sdk_surface.py*) code="${FAKE_SURFACE:-0}"
      echo "SDK surface: listed on anthropic 9.0.0, openai 9.0.0; compared with tools/sdk-surface.txt (3 facts)"
      [ "$code" = 1 ] && echo "  gone: anthropic.types.beta:BetaMessage field context_management"
      echo "  new:  anthropic.types.beta:BetaMessage field something_new"
      exit "$code" ;;
  *pytest*) [ "${FAKE_TESTS:-0}" = 0 ] && echo "3 passed" || echo "1 failed, 2 passed"; exit "${FAKE_TESTS:-0}" ;;
esac
exit 0
"""


def _condition(expression: str, outputs: dict[str, dict[str, str]]) -> bool:
    """Returns the value of a step's ``if:`` in the small grammar the workflow uses."""
    text = re.sub(r"steps\.(\w+)\.outputs\.(\w+)", lambda m: repr(outputs.get(m[1], {}).get(m[2], "")), expression)
    text = text.replace("always()", "True").replace("||", " or ").replace("&&", " and ")
    assert re.fullmatch(r"[\w'\s=!]*", text), text
    return bool(eval(text, {"__builtins__": {}}, {}))  # noqa: S307 - our own workflow's conditions


def _simulate(workflow: dict[str, Any], tmp: Path, codes: dict[str, int], baseline: bool = True,
              job: str = "drift") -> dict[str, Any]:
    """Runs the steps of one of the workflow's jobs in ``tmp``; returns {exit, summary, log, uploaded, ran}."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for name, text in (("conformance", FAKE), ("python", FAKE_PYTHON)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    if baseline:
        (tmp / "cassettes" / "api.anthropic.com").mkdir(parents=True)
    summary, runner_temp = tmp / "summary.md", tmp / "runner-temp"
    runner_temp.mkdir()
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary),
           "RUNNER_TEMP": str(runner_temp), **{k: str(v) for k, v in workflow["jobs"][job]["env"].items()},
           **{f"FAKE_{name.upper()}": str(code) for name, code in codes.items()}}
    outputs: dict[str, dict[str, str]] = {}
    found: dict[str, Any] = {"exit": 0, "log": "", "uploaded": False, "ran": []}
    for step in _steps(workflow, job):
        if "if" in step and not _condition(step["if"], outputs):
            continue
        if "upload-artifact" in step.get("uses", ""):
            found["uploaded"] = True
        if "run" not in step or "pip install" in step["run"]:
            continue
        step_env = {k: re.sub(r"\$\{\{\s*steps\.(\w+)\.outputs\.(\w+)\s*\}\}",
                              lambda m: outputs.get(m[1], {}).get(m[2], ""), str(v))
                    for k, v in (step.get("env") or {}).items()}
        step_env = {k: ("not-a-real-key" if "secrets." in v else v) for k, v in step_env.items()}
        output_file = tmp / f"output-{len(found['ran'])}"
        output_file.touch()
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp, capture_output=True, text=True, timeout=60,
                              env={**env, **step_env, "GITHUB_OUTPUT": str(output_file)})
        found["ran"].append(step.get("id", step.get("name")))
        found["log"] += done.stdout + done.stderr
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        if done.returncode:
            found["exit"] = done.returncode
            break
    found["summary"] = summary.read_text() if summary.exists() else ""
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("codes", "baseline", "expected"), [
    ({}, True, {"exit": 0, "uploaded": True, "says": ["every recording matches", "no breaking change"]}),
    ({}, False, {"exit": 0, "uploaded": True, "says": ["no baseline at cassettes/api.anthropic.com"]}),
    ({"record": 3}, True, {"exit": 3, "uploaded": False, "says": ["provider unavailable"], "skips": ["verify", "audit", "drift"]}),
    ({"record": 2}, True, {"exit": 1, "uploaded": False, "says": ["usage error"], "skips": ["verify", "audit", "drift"]}),
    ({"record": 1}, True, {"exit": 1, "uploaded": True, "says": ["failed** for some probes", "some.probe"]}),
    ({"verify": 1}, True, {"exit": 1, "uploaded": True, "says": ["contradiction", "no breaking change"]}),
    ({"verify": 2}, True, {"exit": 1, "uploaded": True, "says": ["spec or usage error"]}),
    ({"audit": 1}, True, {"exit": 1, "uploaded": False, "says": ["audit: **failed**", "p.yaml:3: API key"], "skips": ["drift"]}),
    ({"drift": 1}, True, {"exit": 1, "uploaded": True, "says": ["breaking drift", "# Drift: fake"]}),
    ({"drift": 2}, True, {"exit": 1, "uploaded": True, "says": ["could not compare"]}),
])
def test_the_job_says_what_failed_and_publishes_only_what_passed_the_audit(
        workflow: dict[str, Any], tmp_path: Path, codes: dict[str, int], baseline: bool, expected: dict[str, Any]) -> None:
    found = _simulate(workflow, tmp_path, codes, baseline)
    assert found["exit"] == expected["exit"], found["log"]
    assert found["uploaded"] == expected["uploaded"]
    for text in expected["says"]:
        assert text in found["summary"], (text, found["summary"])
    for step in expected.get("skips", []):
        assert step not in found["ran"]
    assert "NOTREALBUTLEAKY" not in found["summary"] + found["log"]  # audit's matched text is withheld


def test_an_openai_key_alone_records_verifies_and_drifts_openai(workflow: dict[str, Any], tmp_path: Path) -> None:
    globals()["FAKE"], saved = FAKE.replace("api.anthropic.com", "api.openai.com"), FAKE
    try:
        (tmp_path / "cassettes" / "api.openai.com").mkdir(parents=True)
        found = _simulate(workflow, tmp_path, {"drift": 1}, baseline=False)
    finally:
        globals()["FAKE"] = saved
    assert found["exit"] == 1 and "drift (api.openai.com): **breaking drift**" in found["summary"]
    assert "# Drift: fake" in found["summary"] and found["uploaded"]


@pytest.mark.parametrize(("codes", "expected"), [
    ({}, {"exit": 0, "says": ["nothing the suite relies on changed", "new:  anthropic.types.beta:BetaMessage field "
                                                                       "something_new", "SDKs: passed"]}),
    ({"surface": 1}, {"exit": 1, "says": ["SDK surface: **changed**", "gone: anthropic.types.beta:BetaMessage field "
                                                                      "context_management", "SDKs: passed"]}),
    ({"surface": 2}, {"exit": 1, "says": ["SDK surface: **not compared** (exit code 2)"]}),
    ({"tests": 1}, {"exit": 1, "says": ["nothing the suite relies on changed", "SDKs: **failed** (exit code 1"]}),
])
def test_the_newest_sdks_job_reports_a_change_of_surface_and_the_sdk_tests(
        workflow: dict[str, Any], tmp_path: Path, codes: dict[str, int], expected: dict[str, Any]) -> None:
    found = _simulate(workflow, tmp_path, codes, job="newest-sdks")
    assert found["exit"] == expected["exit"], found["log"]
    for text in expected["says"]:
        assert text in found["summary"], (text, found["summary"])
    assert found["uploaded"] and {"surface", "tests"} <= set(found["ran"])


def test_the_newest_sdks_job_installs_the_suite_then_upgrades_both_sdks(workflow: dict[str, Any]) -> None:
    [install] = [s["run"] for s in _steps(workflow, "newest-sdks") if "pip install" in s.get("run", "")]
    lines = [line.strip() for line in install.splitlines()]
    suite = next(i for i, line in enumerate(lines) if line.startswith("python -m pip install") and '"." ' not in line
                 and "-U" not in line)
    newest = next(i for i, line in enumerate(lines) if "-U anthropic openai" in line)
    assert suite < newest
    [check] = [s["run"] for s in _steps(workflow, "newest-sdks") if "tools/sdk_surface.py" in s.get("run", "")]
    assert "tools/sdk_surface.py --check" in check
