"""The pytest plugin, driven through pytester: items named by scenario id, failures rendered."""

from __future__ import annotations

import sys

import pytest

from ._specs import GOOD

pytest_plugins = ["pytester"]


@pytest.fixture
def spec_dir(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # only this plugin: the others cost seconds a run
    monkeypatch.setenv("PYTEST_PLUGINS", "conformance.plugin")
    folder = pytester.mkdir("specs")
    (folder / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    (pytester.path / "zoo_targets.py").write_text(
        "def strip(history):\n"
        "    return [{**m, 'content': [b for b in m['content'] if b['type'] != 'thinking']}\n"
        "            if isinstance(m['content'], list) else m for m in history]\n"
        "def noop(history):\n"
        "    return list(history)\n", encoding="utf-8")
    pytester.syspathinsert()
    return str(folder)


@pytest.mark.slow
def test_items_are_named_by_scenario_id_and_pass(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*tiny.yaml::tiny.inflight PASSED*", "*tiny.yaml::tiny.settled PASSED*"])


def test_failure_shows_scenario_invariant_and_diff(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*[[]MUST[]] tiny.inflight :: live.untouched-suffix*",
                                 "*content[[]0[]] (thinking) is missing*"])


def test_several_targets_give_one_item_each(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-target",
                                "zoo_targets:noop", "--conformance-specs", spec_dir, "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*tiny.inflight[[]zoo_targets:noop[]] PASSED*"])


@pytest.mark.slow
def test_known_gap_is_xfail_and_strict(pytester: pytest.Pytester, spec_dir: str) -> None:
    gaps = pytester.path / "gaps.yaml"
    gaps.write_text("format_version: 1\ngaps:\n  - scenario: tiny.inflight\n    reason: strips all reasoning\n",
                    encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                "--conformance-expectations", str(gaps), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, xfailed=1)
    result = pytester.runpytest("--conformance-target", "zoo_targets:noop", "--conformance-specs", spec_dir,
                                "--conformance-expectations", str(gaps), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*expectations.gap-still-open*"])


def test_malformed_spec_is_a_failing_item_and_the_rest_run(pytester: pytest.Pytester, spec_dir: str) -> None:
    bad = GOOD.replace("tiny.", "bad.").replace("    family: tiny\n    params", "    family: tiny\n    colour: x\n    params")
    (pytester.path / "specs" / "bad.yaml").write_text(bad, encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*spec error: *bad.yaml:6: scenarios[[]0[]].colour: unknown key*"])


def test_without_a_target_the_plugin_collects_nothing(pytester: pytest.Pytester, spec_dir: str) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_unimportable_target_is_a_usage_error(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "nowhere:compact", "--conformance-specs", spec_dir)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot import 'nowhere'*"])


def test_a_duplicate_id_across_files_is_a_failing_item(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "specs" / "again.yaml").write_text(GOOD.replace("tiny.settled", "tiny.other"), encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*duplicate id 'tiny.inflight'*"])


def test_a_spec_that_does_not_load_fails_even_under_m_conformance(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "specs" / "broken.yaml").write_text("format_version: 1\nscenarios: [\n  - id: x\n",
                                                          encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-m", "conformance", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["collected 3 items", "*spec error: *broken.yaml:3: invalid YAML*"])


def test_a_spec_error_is_never_deselected_by_k(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "specs" / "broken.yaml").write_text("format_version: 1\nscenarios: [\n", encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-k", "settled", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    result.stdout.fnmatch_lines(["collected 3 items / 1 deselected / 2 selected"])


@pytest.mark.slow
def test_collected_count_is_the_count_that_runs(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-target",
                                "zoo_targets:noop", "--conformance-specs", spec_dir, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["collected 4 items"])
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "--conformance-fuzz", "5", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["collected 3 items"])  # the fuzz item too


def test_a_gaps_file_for_another_target_is_a_usage_error(pytester: pytest.Pytester, spec_dir: str) -> None:
    gaps = pytester.path / "gaps.yaml"
    gaps.write_text("format_version: 1\ntarget: mypkg.memory:compact\ngaps:\n  - scenario: tiny.inflight\n"
                    "    reason: strips all reasoning\n", encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                "--conformance-expectations", str(gaps), "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*gaps.yaml:2: target: 'mypkg.memory:compact' is not a target of this run*"])


def test_an_empty_spec_folder_is_a_usage_error(pytester: pytest.Pytester, spec_dir: str) -> None:
    empty = pytester.mkdir("nothing")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", str(empty))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no scenario found in *nothing*"])


def test_a_raising_target_shows_its_own_traceback(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "crashing.py").write_text("def compact(history):\n    return helper(history)\n"
                                               "def helper(history):\n    raise KeyError('role')\n",
                                               encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "crashing:compact", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*tiny.inflight :: call.completes (error)*", "*crashing.py*line 4, in helper*"])
    assert "conformance/engine/target.py" not in result.stdout.str()
    assert "output.well-formed" not in result.stdout.str()  # not run: never a failure of its own


def test_a_scenario_with_every_check_skipped_is_skipped_not_passed(pytester: pytest.Pytester, spec_dir: str) -> None:
    from conformance import CATALOG

    from ._specs import GOOD as good
    skips = "".join(f"        {inv.id}: not today\n" for inv in CATALOG if inv.level != "REFERENCE")
    (pytester.path / "specs" / "tiny.yaml").write_text(
        good.split("  - id: tiny.settled")[0].replace("    expect:\n", "    expect:\n      skip:\n" + skips, 1),
        encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "zoo_targets:noop", "--conformance-specs", spec_dir,
                                "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    # at the scenario's own file and line (the id is on line 3), not at a line of the plugin
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] specs/tiny.yaml:3: nothing checked: not today*"])


def test_the_plugin_is_registered_when_the_package_is_installed() -> None:
    from importlib.metadata import entry_points
    assert "conformance.plugin" in {ep.value for ep in entry_points(group="pytest11")}


@pytest.mark.slow
def test_the_plugin_runs_under_xdist(pytester: pytest.Pytester, spec_dir: str) -> None:
    pytest.importorskip("xdist")
    result = pytester.runpytest_subprocess("--conformance-target", "zoo_targets:strip", "--conformance-specs",
                                           spec_dir, "-p", "xdist.plugin", "-n", "2",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*[[]MUST[]] tiny.inflight :: live.untouched-suffix*"])


def _failed_ids(result: pytest.RunResult) -> list[str]:
    return [line.split()[1] for line in result.stdout.lines if line.startswith("FAILED ")]


@pytest.mark.slow
def test_a_printed_node_id_pastes_back_and_runs_that_scenario_alone(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "specs" / "again.yaml").write_text(
        GOOD.replace("tiny.inflight", "again.inflight").replace("tiny.settled", "again.settled"), encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=2, failed=2)
    printed = _failed_ids(result)
    assert "specs/tiny.yaml::tiny.inflight" in printed
    again = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                               "-p", "no:cacheprovider", "-rf", "specs/tiny.yaml::tiny.inflight")
    again.assert_outcomes(failed=1)
    assert _failed_ids(again) == ["specs/tiny.yaml::tiny.inflight"]
    whole_file = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                    "-p", "no:cacheprovider", "specs/again.yaml")
    whole_file.assert_outcomes(passed=1, failed=1)


@pytest.mark.slow
def test_a_node_id_with_a_target_suffix_pastes_back(pytester: pytest.Pytester, spec_dir: str) -> None:
    args = ["--conformance-target", "zoo_targets:strip", "--conformance-target", "zoo_targets:noop",
            "--conformance-specs", spec_dir, "-p", "no:cacheprovider", "-rf"]
    printed = _failed_ids(pytester.runpytest(*args))
    assert printed == ["specs/tiny.yaml::tiny.inflight[zoo_targets:strip]"]
    again = pytester.runpytest(*args, printed[0])
    again.assert_outcomes(failed=1)
    both = pytester.runpytest(*args, "specs/tiny.yaml::tiny.inflight")
    both.assert_outcomes(passed=1, failed=1)


def test_a_node_id_after_conformance_specs_stays_a_node_id(pytester: pytest.Pytester, spec_dir: str) -> None:
    (pytester.path / "specs" / "again.yaml").write_text(
        GOOD.replace("tiny.inflight", "again.inflight").replace("tiny.settled", "again.settled"), encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "-p", "no:cacheprovider", "-rf",
                                "--conformance-specs", spec_dir, "specs/tiny.yaml::tiny.inflight")
    result.assert_outcomes(failed=1)
    assert _failed_ids(result) == ["specs/tiny.yaml::tiny.inflight"]
    several = pytester.runpytest("--conformance-target", "zoo_targets:strip", "-p", "no:cacheprovider",
                                 "--conformance-specs", f"{spec_dir}/tiny.yaml", "--conformance-specs",
                                 f"{spec_dir}/again.yaml")
    several.assert_outcomes(passed=2, failed=2)


def test_last_failed_reruns_only_the_failed_scenario(pytester: pytest.Pytester, spec_dir: str) -> None:
    args = ["--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir, "-rf"]
    pytester.runpytest(*args).assert_outcomes(passed=1, failed=1)
    rerun = pytester.runpytest(*args, "--lf")
    rerun.assert_outcomes(failed=1)
    assert _failed_ids(rerun) == ["specs/tiny.yaml::tiny.inflight"]


@pytest.mark.slow
def test_specs_outside_the_rootdir_print_a_node_id_that_pastes_back(
        pytester: pytest.Pytester, spec_dir: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # like the shipped specs inside site-packages
    (elsewhere / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    args = ["--conformance-target", "zoo_targets:strip", "--conformance-specs", str(elsewhere),
            "-p", "no:cacheprovider", "-rf"]
    printed = _failed_ids(pytester.runpytest(*args))
    assert len(printed) == 1 and not printed[0].startswith("::"), printed
    assert printed[0].endswith("tiny.yaml::tiny.inflight")
    again = pytester.runpytest(*args, printed[0])
    again.assert_outcomes(failed=1)
    rerun = pytester.runpytest(*args[:-3], "-rf")
    rerun.assert_outcomes(passed=1, failed=1)
    assert pytester.runpytest(*args[:-3], "-rf", "--lf").parseoutcomes().get("failed") == 1


_WITHOUT_XDIST = ("import sys; sys.modules['xdist'] = None; import pytest; "  # as after a plain `pip install .`
                  "raise SystemExit(pytest.main(sys.argv[1:]))")


@pytest.mark.slow
def test_after_a_plain_install_the_route_runs_in_the_checkout_and_a_node_id_pastes_back(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checkout's own pytest configuration, without pytest-xdist: run from the checkout, a
    failing node id of specs under its ``.venv`` pastes back, from there and from outside."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    checkout = pytester.mkdir("checkout")
    (checkout / "pyproject.toml").write_text((root / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    (checkout / "tests").mkdir()
    (checkout / "tests" / "__init__.py").write_text("", encoding="utf-8")
    for name in ("conftest.py", "_order.py"):  # the conftest and the module it imports
        (checkout / "tests" / name).write_text((root / "tests" / name).read_text(encoding="utf-8"), encoding="utf-8")
    (checkout / "my_compactor.py").write_text("def compact(history):\n    return history[-2:]\n", encoding="utf-8")
    installed = checkout / ".venv" / "site-packages" / "specs"  # like the copy `pip install .` makes
    installed.mkdir(parents=True)
    (installed / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")  # what the checkout's configuration says, alone
    monkeypatch.delenv("PYTEST_PLUGINS")
    monkeypatch.chdir(checkout)
    args = ["--conformance-target", "my_compactor:compact", "--conformance-specs", str(installed),
            "-p", "no:cacheprovider", "-rf"]
    first = pytester.run(sys.executable, "-c", _WITHOUT_XDIST, *args, "-m", "conformance")
    first.assert_outcomes(failed=1, passed=1)
    printed = _failed_ids(first)
    assert printed == [".venv/site-packages/specs/tiny.yaml::tiny.inflight"], first.stdout.str()
    pytester.run(sys.executable, "-c", _WITHOUT_XDIST, *args, printed[0]).assert_outcomes(failed=1)
    outside = pytester.mkdir("elsewhere")
    monkeypatch.chdir(outside)
    (outside / "my_compactor.py").write_text((checkout / "my_compactor.py").read_text(encoding="utf-8"),
                                             encoding="utf-8")
    again = pytester.run(sys.executable, "-c", _WITHOUT_XDIST, *args, str(checkout / printed[0]))
    again.assert_outcomes(failed=1)


@pytest.mark.slow
def test_a_project_with_testpaths_runs_the_conformance_items_alone(pytester: pytest.Pytester, spec_dir: str) -> None:
    # a project's own tests (its testpaths, or the current folder) are not run beside the scenarios
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    (pytester.mkdir("tests") / "test_own.py").write_text("def test_own():\n    assert False\n", encoding="utf-8")
    (pytester.path / "test_top.py").write_text("def test_top():\n    assert False\n", encoding="utf-8")
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    (pytester.path / "tox.ini").unlink()
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    # tests named on the command line still run
    result = pytester.runpytest("--conformance-target", "conformance_reference:compact", "--conformance-specs", spec_dir,
                                "tests/test_own.py", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)


def test_a_printed_node_id_runs_again_without_the_specs_option(pytester: pytest.Pytester, spec_dir: str) -> None:
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", "--conformance-specs", spec_dir,
                                "-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=1, failed=1)
    failed = [line.split()[1] for line in result.outlines if line.startswith("FAILED ")]
    assert failed == ["specs/tiny.yaml::tiny.inflight"]
    result = pytester.runpytest("--conformance-target", "zoo_targets:strip", failed[0], "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
