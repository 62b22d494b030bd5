"""A provider, a message format, a recording dialect and an egress surface that this project does
not ship, installed as a package of their own (``tests/plugins/thirdparty``: a distribution with entry
points, put on the path), are found through the registry and run end to end by ``verify``,
``analyze``, ``lint-config``, ``record --dry-run``, ``explain``, ``audit``, ``run --format`` and ``egress
--surface``, with no edit to the suite. The commands run in processes of their own (one with the
package on the path, one without), never in the test process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import ROOT, SPECS

# one worker runs the module, so that each of its two processes of commands runs once
pytestmark = pytest.mark.xdist_group("third-party")

PLUGIN = ROOT / "tests" / "plugins" / "thirdparty"
DATA = PLUGIN / "data"
TOY_LOG = DATA / "recordings" / "toy.exchanges.json"  # in the third-party package's own dialect
EGRESS = ("egress", "--surface", "toy-dashboard", "--in-process", "--no-progress")
RUN = ("run", "--no-provider", "--no-progress", "-j", "1", "--format", "toy-chat", "--specs", str(SPECS / "edges.yaml"))

# Runs each command line given (a JSON list) through the command's ``main`` in this one process,
# and prints one JSON line per command: its exit code and what it wrote to stdout and stderr.
# ``scrub`` is no command: it prints what the cassettes module makes of a body with reasoning text.
_COMMANDS = """\
import contextlib, io, json, sys
from conformance.cli import main

def scrub():
    from conformance.provider.cassettes import scrub_body, request_headers_kept
    body = scrub_body(json.dumps({'kept_from': 1, 'musing': 'private reasoning'}).encode())
    print(json.loads(body)['musing'][:10], 'toyllm-version' in request_headers_kept())
    return 0

for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = scrub() if argv == ["scrub"] else main(argv)
    print(json.dumps({"code": code, "out": out.getvalue(), "err": err.getvalue()}), flush=True)
"""


@dataclass(frozen=True)
class Done:
    """What one command did: its exit code and its output."""

    returncode: int
    stdout: str
    stderr: str


def _conformance(*commands: tuple[str, ...], installed: bool = True) -> list[Done]:
    """Returns what each command did, run one after the other in one process of their own with the
    third-party distribution on the path (or without it): the package never reaches the test process."""
    path = [str(ROOT), str(PLUGIN)] if installed else [str(ROOT)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    done = subprocess.run([sys.executable, "-c", _COMMANDS, json.dumps([list(c) for c in commands])], env=env,
                          text=True, capture_output=True, timeout=300, check=False, cwd=ROOT)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == len(commands), done.stdout[-2000:] + done.stderr[-2000:]
    return [Done(line["code"], line["out"], line["err"]) for line in lines]


@pytest.fixture(scope="module")
def leaked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a folder with a copy of a recording whose reasoning text is back in the clear."""
    folder = tmp_path_factory.mktemp("leaked")
    text = (DATA / "cassettes" / "toyserver" / "toy.keeps-live.yaml").read_text(encoding="utf-8")
    (folder / "leaked.yaml").write_text(text.replace("[scrubbed:0123456789ab]", "private reasoning"),
                                        encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def installed(leaked: Path) -> dict[str, Done]:
    """Returns what each command of the module did with the third-party distribution installed, by name
    (one process for them all: each command is a fresh start of the same code)."""
    commands = {
        "verify": ("verify", str(DATA / "cassettes"), "--specs", str(DATA / "specs")),
        "analyze": ("analyze", "--json", "-", str(DATA / "cassettes")),
        "analyze-dialect": ("analyze", "--json", "-", str(TOY_LOG)),
        "lint-reaches": ("lint-config", str(DATA / "trim.json"), "--task-size", "3"),
        "lint-keeps": ("lint-config", str(DATA / "trim.json"), "--task-size", "1"),
        "dry-run": ("record", "--dry-run", "--provider", "toyllm", "--specs", str(DATA / "specs")),
        "explain": ("explain", "toy.trims-live", "--specs", str(DATA / "specs")),
        "scrub": ("scrub",),
        "audit-leaked": ("audit", str(leaked)),
        "audit": ("audit", str(DATA / "cassettes")),
        "run-keep": (*RUN, "--target", "thirdparty_conformance.targets:keep"),
        "egress-clean": (*EGRESS, "--target", "thirdparty_conformance.targets:dashboard_answer"),
        "egress-leak": (*EGRESS, "--target", "thirdparty_conformance.targets:dashboard_dump"),
        "run-drop": (*RUN, "--target", "thirdparty_conformance.targets:drop_first"),
    }
    return dict(zip(commands, _conformance(*commands.values()), strict=True))


@pytest.fixture(scope="module")
def not_installed() -> dict[str, Done]:
    """Returns what the module's commands did without the third-party distribution, by name."""
    commands = {
        "verify": ("verify", str(DATA / "cassettes"), "--specs", str(DATA / "specs")),
        "run": RUN,  # the default target, in a format no one registered
        "analyze-dialect": ("analyze", str(TOY_LOG)),  # a dialect no one registered
        "egress": (*EGRESS, "--target", "thirdparty_conformance.targets:dashboard_answer"),  # a surface likewise
    }
    return dict(zip(commands, _conformance(*commands.values(), installed=False), strict=True))


@pytest.mark.slow
def test_verify_replays_and_judges_a_third_party_providers_cassettes(installed: dict[str, Done]) -> None:
    done = installed["verify"]
    assert done.returncode == 1, done.stdout + done.stderr  # one recording contradicts its prediction
    out = done.stdout
    assert "toy.keeps-live    settled-only       settled-only       yes    toyserver" in out
    assert "FAIL toyserver/toy.contradicted [trim keep_last 3; live from message 2]: verdict 'reached-live-task', " \
           "predicted 'settled-only'" in out
    assert "toyllm    toyserver  toyllm.trim  YES" in out
    assert "verify: 1 fail, 2 findings, 2 pass" in out


@pytest.mark.slow
def test_without_the_package_its_probe_file_names_an_unknown_provider(not_installed: dict[str, Done]) -> None:
    done = not_installed["verify"]
    assert done.returncode == 2
    assert "toy.yaml" in done.stdout and "provider" in done.stdout and "'toyllm'" in done.stdout


@pytest.mark.slow
def test_analyze_asks_the_third_party_judge(installed: dict[str, Done]) -> None:
    done = installed["analyze"]
    assert done.returncode == 1, done.stderr  # a trim reached into the task in flight
    verdicts = {Path(r["file"]).stem: (r["provider"], r["verdict"]) for r in json.loads(done.stdout)}
    assert verdicts == {"toy.keeps-live": ("toyllm", "settled-only"), "toy.trims-live": ("toyllm", "reached-live-task"),
                        "toy.contradicted": ("toyllm", "reached-live-task")}


@pytest.mark.slow
def test_analyze_reads_a_third_party_dialect_and_without_the_package_names_the_known_ones(
        installed: dict[str, Done], not_installed: dict[str, Done]) -> None:
    done = installed["analyze-dialect"]
    assert done.returncode == 1, done.stderr  # the first trim reached into the task in flight
    records = json.loads(done.stdout)
    assert [(r["index"], r["provider"], r["verdict"]) for r in records] == [
        (0, "toyllm", "reached-live-task"), (1, "toyllm", "settled-only")]
    without = not_installed["analyze-dialect"]
    assert without.returncode == 2
    assert "not a recording in any known dialect (ruby-vcr," in without.stdout and "toylog" not in without.stdout


@pytest.mark.slow
def test_lint_config_and_dry_run_go_to_the_provider_that_claims_them(installed: dict[str, Done]) -> None:
    reaches, keeps = installed["lint-reaches"], installed["lint-keeps"]
    assert (reaches.returncode, keeps.returncode) == (1, 0), reaches.stderr + keeps.stderr
    assert "toyllm trim keep_last 2: reaches into a task in flight" in reaches.stdout
    dry = installed["dry-run"]
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines() == [f"{p}: 1 request, $0.00" for p in
                                       ("toy.keeps-live", "toy.trims-live", "toy.contradicted")]


@pytest.mark.slow
def test_explain_shows_a_third_party_probe_as_its_provider_lays_it_out(installed: dict[str, Done]) -> None:
    done = installed["explain"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  family toyllm.trim · trim keep_last 1" in done.stdout
    assert "    2 live user" in done.stdout and "  verdict: reached-live-task" in done.stdout
    assert "recorded: no recording of this probe" in done.stdout  # its cassettes are not the shipped ones


@pytest.mark.slow
def test_cassettes_scrub_and_audit_the_third_party_providers_reasoning(installed: dict[str, Done]) -> None:
    done = installed["scrub"]
    assert done.stdout.split() == ["[scrubbed:", "True"], done.stderr
    audit = installed["audit-leaked"]
    assert audit.returncode == 1 and "unscrubbed reasoning text at" in audit.stdout, audit.stdout + audit.stderr
    assert installed["audit"].returncode == 0


@pytest.mark.slow
def test_run_speaks_a_third_party_format(installed: dict[str, Done], not_installed: dict[str, Done]) -> None:
    keeps = installed["run-keep"]
    assert keeps.returncode == 0, keeps.stdout + keeps.stderr
    assert "thirdparty_conformance.targets:keep@toy-chat: CONFORMS" in keeps.stdout
    assert "skipped: toy-chat messages carry text only" in keeps.stdout
    drops = installed["run-drop"]
    assert drops.returncode == 1 and "drop_first@toy-chat: DOES NOT CONFORM" in drops.stdout, drops.stdout
    unknown = not_installed["run"]
    assert unknown.returncode == 2 and "unknown format 'toy-chat'" in unknown.stderr, unknown.stderr


@pytest.mark.slow
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


@pytest.mark.slow
def test_egress_checks_a_third_party_surface_and_without_the_package_names_the_known_ones(
        installed: dict[str, Done], not_installed: dict[str, Done]) -> None:
    clean, leak = installed["egress-clean"], installed["egress-leak"]
    assert clean.returncode == 0, clean.stdout + clean.stderr  # the answer alone reaches the dashboard
    assert leak.returncode == 1, leak.stdout + leak.stderr  # the reasoning reached a forbidden surface
    assert "toy-dashboard" in leak.stdout and "no-reasoning-text" in leak.stdout
    without = not_installed["egress"]
    assert without.returncode == 2
    assert "unknown surface 'toy-dashboard'; known: provider-request" in without.stderr
