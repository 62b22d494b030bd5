"""The shipped OpenAI probes load and match their shipped emulator cassettes; cassettes recorded from
each faulty emulator mode are red in verify and breaking in drift (held out: recorded in the test,
never committed); the verify table shows both providers side by side."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.provider.openai.emulator import FAULTS
from conformance.provider.openai.probes import OpenAIProbe
from conformance.provider.probes import load_probes
from conformance.provider.verify import VERDICT, verify

from .conftest import CASSETTES, SHIPPED, SPECS

pytestmark = pytest.mark.xdist_group("openai-faults")  # one worker records each faulty server once

# The probes each fault must turn red, by the judge's finding (none may stay green).
RED = {
    "compacts-open-call": {"openai-threshold.open-call": "reached-live-task"},
    "drops-kept-reasoning": {"openai-compact.reasoning-settled": "inconsistent"},
    "truncates-live-task": {"openai-truncation.settled-prefix": "reached-live-task"},
    "usage-contradicts": {"openai-threshold.settled": "inconsistent", "openai-truncation.live-span": "inconsistent",
                          "openai-truncation.settled-prefix": "inconsistent"},
}


def test_the_probes_cover_every_mechanism_position_and_verdict(openai_probes: dict[str, OpenAIProbe]) -> None:
    assert {p.mechanism for p in openai_probes.values()} == {"threshold", "compact", "trigger", "truncation"}
    assert {p.predict["verdict"] for p in openai_probes.values()} == {"settled-only", "reached-live-task",
                                                                      "no-edit", "rejected"}
    assert {p.chain for p in openai_probes.values() if p.before} == {"carry", "previous_response_id"}
    assert any(p.stream for p in openai_probes.values())
    assert any("reasoning.encrypted_content" in (p.call.request.get("include") or []) for p in openai_probes.values())


def test_every_openai_probe_has_a_shipped_cassette_that_matches(openai_probes: dict[str, OpenAIProbe]) -> None:
    assert {p.stem for p in SHIPPED.glob("*.yaml")} == set(openai_probes)
    results = verify([SHIPPED], openai_probes)  # type: ignore[arg-type]  # dict is invariant; verify only reads the probes
    assert len(results) == len(openai_probes)
    assert all(r.outcome == "pass" and r.invariant == VERDICT for r in results), [r.message for r in results
                                                                                  if r.outcome != "pass"]
    assert all(r.details["provider"] == "openai" and r.target == "emulator-openai" for r in results)


def test_fault_table_covers_every_fault() -> None:
    assert set(RED) == set(FAULTS)


@pytest.mark.slow
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_faulty_server_is_red_in_verify_and_breaking_in_drift(fault: str, faulty_recordings: Callable[[str], Path],
                                                               openai_probes: dict[str, OpenAIProbe],
                                                               tmp_path: Path) -> None:
    folder = faulty_recordings(fault)
    results = {r.scenario: r for r in verify([folder], openai_probes)}  # type: ignore[arg-type]  # dict is invariant; verify only reads the probes
    for probe_id, verdict in RED[fault].items():
        assert results[probe_id].outcome == "fail", (probe_id, results[probe_id].message)
        assert results[probe_id].details["verdict"] == verdict
    assert main(["verify", str(folder)]) == 1
    report = tmp_path / "drift.json"
    code = main(["drift", "--baseline", str(SHIPPED), "--current", str(folder), "--json", str(report)])
    assert code == 1
    breaking = {c["probe"] for c in json.loads(report.read_text())["changes"] if c["category"] == "breaking"}
    assert set(RED[fault]) <= breaking


@pytest.mark.slow
def test_the_same_recordings_show_no_drift(faulty_recordings: Callable[[str], Path]) -> None:
    assert main(["drift", "--baseline", str(SHIPPED), "--current", str(faulty_recordings(""))]) == 0


@pytest.mark.slow
def test_verify_shows_both_providers_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(CASSETTES), "--specs", str(SPECS)]) == 0
    out = capsys.readouterr().out
    strategies = out[out.index("Strategies"):out.index("Findings")]
    rows = [line for line in strategies.splitlines() if line.startswith(("anthropic ", "openai "))]
    assert {line.split()[0] for line in rows} == {"anthropic", "openai"}
    assert any(line.startswith("openai") and "openai.compact" in line and "YES from 1 step/" in line for line in rows)
    assert any(line.startswith("openai") and "openai.threshold" in line and " no" in line for line in rows)
    assert max(len(line) for line in out.splitlines()) <= 100


def test_a_wrong_declaration_is_a_located_spec_error(tmp_path: Path) -> None:
    text = (SPECS / "openai-compact.yaml").read_text(encoding="utf-8")
    wrong = text.replace("    live: {from_item: 2}\n    predict: {verdict: reached-live-task}",
                         "    live: {from_item: 0}\n    predict: {verdict: reached-live-task}", 1)
    assert wrong != text
    (tmp_path / "openai-compact.yaml").write_text(wrong, encoding="utf-8")
    probes, errors = load_probes([tmp_path])
    assert len(errors) == 1 and "openai-compact.window-mid-task" not in probes
    assert "live.from_item" in str(errors[0]) and "starts at item 2" in str(errors[0])
    predicted = text.replace("predict: {verdict: settled-only}", "predict: {verdict: reached-live-task}", 1)
    (tmp_path / "openai-compact.yaml").write_text(predicted, encoding="utf-8")
    _, errors = load_probes([tmp_path])
    assert len(errors) == 1 and "the documented rules give 'settled-only'" in str(errors[0])


def test_an_unknown_provider_is_refused_by_the_schema(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("format_version: 1\nprovider: gemini\nprobes: [{id: x}]\n", encoding="utf-8")
    _, errors = load_probes([tmp_path])
    assert errors and "provider" in str(errors[0])


def test_a_cassette_for_another_request_is_bad_input(tmp_path: Path, openai_probes: dict[str, OpenAIProbe]) -> None:
    source = SHIPPED / "openai-compact.settled.yaml"
    target = tmp_path / "emulator-openai" / "openai-compact.settled.yaml"
    target.parent.mkdir()
    target.write_text(source.read_text().replace("logs/payments-1000.log.", "logs/payments-1100.log."), encoding="utf-8")
    [result] = verify([target], openai_probes)  # type: ignore[arg-type]  # dict is invariant; verify only reads the probes
    assert result.outcome == "error" and "does not match its probe" in result.message
    assert main(["verify", str(target)]) == 2
