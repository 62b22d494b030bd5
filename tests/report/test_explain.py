"""``conformance explain``: messages with the boundary, truth, expectations, and a target's effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

from .conftest import FIXTURES, SECRETS

SPEC = str(FIXTURES / "mini.yaml")


def _explain(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["explain", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_scenario_shows_boundary_truth_and_expectations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _explain(capsys, "mini.inflight-two-steps", "--specs", SPEC)
    assert code == 0
    lines = out.splitlines()
    boundary = next(i for i, line in enumerate(lines) if "task in flight starts here: live_start = 2" in line)
    assert lines[boundary - 1].lstrip().startswith("[1] assistant")
    assert lines[boundary + 1].lstrip().startswith("[2] user")
    assert "unanswered tool uses: none" in out and "finds 2 (agrees)" in out
    assert "expectations:" in out and "refusal allowed: no" in out
    assert "target " not in out


def test_settled_scenario_says_nothing_is_in_flight(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _explain(capsys, "mini.settled-only", "--specs", SPEC)
    assert "no task in flight: the history ends settled (live_start = 4)" in out


def test_target_shows_what_it_did(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _explain(capsys, "mini.inflight-two-steps", "--specs", SPEC,
                            "--target", "tests.report.targets:whitelist")
    assert code == 1  # a MUST fails, as run exits for it
    assert "target tests.report.targets:whitelist:" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("[    3→3]"))
    assert "CHANGED" in row and "(removed)" in row and "thinking #" in row
    assert any(line.strip().startswith("FAIL  MUST      live.untouched-suffix") for line in out.splitlines())


def test_explain_exits_as_run_does_for_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    for target, code in (("tests.report.targets:whitelist", 1), ("reference", 0)):
        explained, _, _ = _explain(capsys, "mini.inflight-two-steps", "--specs", SPEC, "--target", target)
        ran = main(["run", "--no-provider", "--no-progress", "--specs", SPEC, "-k", "mini.inflight-two-steps",
                    "--target", target])
        capsys.readouterr()
        assert explained == ran == code, target


def test_target_that_raises(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _explain(capsys, "mini.settled-only", "--specs", SPEC, "--target", "tests.report.targets:raises")
    assert "raised RuntimeError: compaction failed" in out
    assert "ERROR MUST      call.completes" in out
    assert "skip  MUST      output.well-formed: not run: no output (RuntimeError)" in out
    assert "tests/report/targets.py" in out and "conformance/engine/target.py" not in out  # the target's frames


def test_no_reasoning_text_even_when_the_target_rewrites_it(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _explain(capsys, "mini.inflight-two-steps", "--specs", SPEC,
                         "--target", "tests.report.targets:leak_thinking")
    assert "FAIL  MUST      reasoning.kept-intact" in out
    assert not [s for s in SECRETS if s in out]
    assert "(edited)" not in out


@pytest.mark.parametrize("target", ["thinking_to_text", "raises_quoting_reasoning"])
def test_no_reasoning_text_when_the_target_quotes_it(capsys: pytest.CaptureFixture[str], target: str) -> None:
    _, out, _ = _explain(capsys, "mini.inflight-two-steps", "--specs", SPEC,
                         "--target", f"tests.report.targets:{target}")
    assert "[redacted thinking #" in out
    assert not [s for s in SECRETS if s[:12] in out]


def test_unknown_id_exits_2_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _explain(capsys, "mini.inflight-two-stpes", "--specs", SPEC)
    assert code == 2 and "did you mean: mini.inflight-two-steps" in err


def test_probe_shows_live_span_and_prediction(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    specs = Path(__file__).resolve().parents[2] / "specs" / "provider"
    assert any(specs.glob("*.yaml")), "the checkout ships probe specs"  # the project's own: never a skip
    from conformance.provider.probes import load_probes
    probes, _ = load_probes([specs])
    probe = next(iter(probes.values()))
    code, out, _ = _explain(capsys, probe.id, "--specs", str(specs))
    assert code == 0
    assert f"probe {probe.id}" in out
    assert f"task in flight starts here: live_start = {probe.live.from_message}" in out or "no task in flight" in out
    assert f"verdict: \"{probe.predict['verdict']}\"" in out


def test_explain_maps_the_dropped_one_of_two_identical_messages(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import Scenario, from_callable
    from conformance.report.explain import explain_scenario
    from conformance.engine.spec import Truth

    ok = {"role": "user", "content": "ok"}
    scenario = Scenario(id="shrunk.ok-ok", description="shrunk", family="generated", history=[ok, ok],
                        truth=Truth(1))
    out = explain_scenario(scenario, from_callable(lambda history: history[1:], "drop_first"))
    rows = {line.split("]")[0].strip(" ["): line for line in out.splitlines() if "→" in line and line.strip().startswith("[")}
    assert "REMOVED" in rows["0→-"] and "kept" in rows["1→0"], out


def test_a_prefix_that_names_one_scenario_is_taken(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _explain(capsys, "mini.settled", "--specs", SPEC)
    assert code == 0 and out.startswith("scenario mini.settled-only ")


def test_a_prefix_of_several_ids_lists_those_it_starts(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _explain(capsys, "mini.", "--specs", SPEC)
    assert code == 2
    assert "ids start with it: mini." in err and "did you mean" not in err
    assert "mini.inflight-two-steps" in err and "mini.settled-only" in err


def test_a_removed_message_does_not_say_removed_again_for_each_block(capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import Scenario, from_callable
    from conformance.report.explain import explain_scenario
    from conformance.engine.spec import Truth

    thinking = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"},
                                                 {"type": "text", "text": "done"}]}
    scenario = Scenario(id="drop.first", description="d", family="generated",
                        history=[{"role": "user", "content": "go"}, thinking, {"role": "user", "content": "next"}],
                        truth=Truth(2))
    out = explain_scenario(scenario, from_callable(lambda history: history[2:], "drop_two"))
    removed = [line for line in out.splitlines() if "REMOVED" in line]
    assert removed and not any("(removed)" in line for line in removed), out
