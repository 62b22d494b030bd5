"""A provider, a message format and a recording dialect that this project does not ship, installed as a package of
their own (``tests/plugins/thirdparty``: a distribution with entry points, put on the path), are
found through the registry and run end to end by ``verify``, ``analyze``, ``lint-config``,
``record --dry-run``, ``audit`` and ``run --format``, with no edit to the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, SPECS

PLUGIN = ROOT / "tests" / "plugins" / "thirdparty"
DATA = PLUGIN / "data"


def _conformance(*args: str, installed: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the command with the third-party distribution on the path (or without it)."""
    path = [str(ROOT), str(PLUGIN)] if installed else [str(ROOT)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run([sys.executable, "-m", "conformance", *args], env=env, text=True, capture_output=True,
                          timeout=300, check=False, cwd=cwd or ROOT)


def test_verify_replays_and_judges_a_third_party_providers_cassettes() -> None:
    done = _conformance("verify", str(DATA / "cassettes"), "--specs", str(DATA / "specs"))
    assert done.returncode == 1, done.stdout + done.stderr  # one recording contradicts its prediction
    out = done.stdout
    assert "toy.keeps-live    settled-only       settled-only       yes    toyserver" in out
    assert "FAIL toyserver/toy.contradicted [trim keep_last 3; live from message 2]: verdict 'reached-live-task', " \
           "predicted 'settled-only'" in out
    assert "toyllm    toyserver  toyllm.trim  YES" in out
    assert "verify: 1 fail, 2 findings, 2 pass" in out


def test_without_the_package_its_probe_file_names_an_unknown_provider() -> None:
    done = _conformance("verify", str(DATA / "cassettes"), "--specs", str(DATA / "specs"), installed=False)
    assert done.returncode == 2
    assert "toy.yaml" in done.stdout and "provider" in done.stdout and "'toyllm'" in done.stdout


def test_analyze_asks_the_third_party_judge() -> None:
    done = _conformance("analyze", "--json", "-", str(DATA / "cassettes"))
    assert done.returncode == 1, done.stderr  # a trim reached into the task in flight
    verdicts = {Path(r["file"]).stem: (r["provider"], r["verdict"]) for r in json.loads(done.stdout)}
    assert verdicts == {"toy.keeps-live": ("toyllm", "settled-only"), "toy.trims-live": ("toyllm", "reached-live-task"),
                        "toy.contradicted": ("toyllm", "reached-live-task")}


def test_analyze_reads_a_third_party_dialect_and_without_the_package_names_the_known_ones() -> None:
    log = DATA / "recordings" / "toy.exchanges.json"
    done = _conformance("analyze", "--json", "-", str(log))
    assert done.returncode == 1, done.stderr  # the first trim reached into the task in flight
    records = json.loads(done.stdout)
    assert [(r["index"], r["provider"], r["verdict"]) for r in records] == [
        (0, "toyllm", "reached-live-task"), (1, "toyllm", "settled-only")]
    without = _conformance("analyze", str(log), installed=False)
    assert without.returncode == 2
    assert "not a recording in any known dialect (ruby-vcr," in without.stdout and "toylog" not in without.stdout


def test_lint_config_and_dry_run_go_to_the_provider_that_claims_them() -> None:
    reaches = _conformance("lint-config", str(DATA / "trim.json"), "--task-size", "3")
    keeps = _conformance("lint-config", str(DATA / "trim.json"), "--task-size", "1")
    assert (reaches.returncode, keeps.returncode) == (1, 0), reaches.stderr + keeps.stderr
    assert "toyllm trim keep_last 2: reaches into a task in flight" in reaches.stdout
    dry = _conformance("record", "--dry-run", "--provider", "toyllm", "--specs", str(DATA / "specs"))
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [f"{p}: 1 request, $0.00" for p in
                                       ("toy.keeps-live", "toy.trims-live", "toy.contradicted")]


def test_cassettes_scrub_and_audit_the_third_party_providers_reasoning(tmp_path: Path) -> None:
    code = ("import json, sys\n"
            "from conformance.provider.cassettes import scrub_body, request_headers_kept\n"
            "body = scrub_body(json.dumps({'kept_from': 1, 'musing': 'private reasoning'}).encode())\n"
            "print(json.loads(body)['musing'][:10], 'toyllm-version' in request_headers_kept())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(PLUGIN)])}
    done = subprocess.run([sys.executable, "-c", code], env=env, text=True, capture_output=True, timeout=120,
                          check=False)
    assert done.stdout.split() == ["[scrubbed:", "True"], done.stderr
    leaked = (DATA / "cassettes" / "toyserver" / "toy.keeps-live.yaml").read_text(encoding="utf-8").replace(
        "[scrubbed:0123456789ab]", "private reasoning")
    (tmp_path / "leaked.yaml").write_text(leaked, encoding="utf-8")
    audit = _conformance("audit", str(tmp_path))
    assert audit.returncode == 1 and "unscrubbed reasoning text at" in audit.stdout, audit.stdout + audit.stderr
    assert _conformance("audit", str(DATA / "cassettes")).returncode == 0


def test_run_speaks_a_third_party_format() -> None:
    spec = str(SPECS / "edges.yaml")
    common = ("run", "--no-provider", "--no-progress", "-j", "1", "--format", "toy-chat", "--specs", spec)
    keeps = _conformance(*common, "--target", "thirdparty_conformance.targets:keep")
    assert keeps.returncode == 0, keeps.stdout + keeps.stderr
    assert "thirdparty_conformance.targets:keep@toy-chat: CONFORMS" in keeps.stdout
    assert "skipped: toy-chat messages carry text only" in keeps.stdout
    drops = _conformance(*common, "--target", "thirdparty_conformance.targets:drop_first")
    assert drops.returncode == 1 and "drop_first@toy-chat: DOES NOT CONFORM" in drops.stdout, drops.stdout
    unknown = _conformance(*common, installed=False)  # the default target, in a format no one registered
    assert unknown.returncode == 2 and "unknown format 'toy-chat'" in unknown.stderr, unknown.stderr


def test_a_broken_installed_entry_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    info = tmp_path / "broken_conformance-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-conformance\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[context_conformance.providers]\nbroken = no_such_module_here:PROVIDER\n",
                                           encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(tmp_path)])}
    done = subprocess.run([sys.executable, "-m", "conformance", "verify"], env=env, text=True, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip() == ("conformance: error: the providers entry 'broken' (no_such_module_here:PROVIDER) "
                                   "cannot be loaded: ModuleNotFoundError: No module named 'no_such_module_here'")
