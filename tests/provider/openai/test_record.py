"""`record` drives the openai SDK (no retries) through vcrpy into cassettes/<server>/, scrubbing
OpenAI's account headers, reasoning text and ciphertext; `record --dry-run` prices OpenAI probes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conformance.cli import main
from conformance.provider.audit import audit, audit_file
from conformance.provider.openai.emulator import Emulator
from conformance.provider.openai.probes import OpenAIProbe

from .conftest import SHIPPED, record_into
from ..._yaml import load_yaml
from ..conftest import differing


def test_record_uses_the_openai_key_and_base_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    with Emulator(0) as emulator:
        monkeypatch.setenv("OPENAI_BASE_URL", emulator.url)
        code = main(["record", "--out", str(tmp_path), "--probe", "openai-threshold.settled"])
    assert code == 0
    cassette = tmp_path / "emulator-openai" / "openai-threshold.settled.yaml"
    data = load_yaml(cassette.read_text())
    assert data["metadata"]["probe"] == "openai-threshold.settled" and data["metadata"]["sdk"].startswith("openai ")
    assert "sk-test" not in cassette.read_text()


def test_record_without_any_key_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["record", "--provider", "openai", "--base-url", "http://127.0.0.1:9"]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


@pytest.mark.slow
def test_only_the_providers_with_a_key_are_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    with Emulator(0) as emulator:
        assert main(["record", "--base-url", emulator.url, "--out", str(tmp_path)]) == 0
    names = {p.stem for p in tmp_path.rglob("*.yaml")}
    assert names and all(n.startswith("openai-") for n in names)
    assert "FAILED" not in capsys.readouterr().out


def test_account_headers_reasoning_and_ciphertext_never_land(tmp_path: Path,
                                                             openai_probes: dict[str, OpenAIProbe]) -> None:
    chosen = [openai_probes[i] for i in ("openai-threshold.reasoning", "openai-compact.reasoning-settled",
                                         "openai-threshold.settled-stream")]
    outcomes = record_into(tmp_path, chosen)
    assert all(o.ok for o in outcomes), [o.note for o in outcomes]
    for outcome in outcomes:
        assert outcome.path is not None
        text = outcome.path.read_text()
        for leak in ("openai-organization", "openai-project", "org-emulator", "proj_emulator", "x-request-id",
                     "set-cookie", "emu-reasoning-", "gAAAAA"):
            assert leak not in text, (outcome.probe, leak)
        assert "[scrubbed:" in text
    assert audit([tmp_path])[0] == []


def test_audit_finds_unscrubbed_openai_reasoning_and_headers(tmp_path: Path) -> None:
    source = (SHIPPED / "openai-compact.reasoning-settled.yaml").read_text()
    data = load_yaml(source)
    body = data["interactions"][0]["response"]["body"]["string"]
    leaked = body.replace('"summary":[]', '"summary":[{"type":"summary_text","text":"I think the log is"}]', 1)
    data["interactions"][0]["response"]["body"]["string"] = leaked
    data["interactions"][0]["response"]["headers"]["openai-project"] = ["proj_abcdefghijklmnop"]
    data["interactions"][1]["request"]["body"] = data["interactions"][1]["request"]["body"].replace(
        '"encrypted_content":"[scrubbed:', '"encrypted_content":"raw-ciphertext[', 1)
    path = tmp_path / "leaky.yaml"
    path.write_text(yaml.safe_dump(data))
    found = "\n".join(str(f) for f in audit_file(path))
    assert "unscrubbed reasoning text" in found
    assert "openai-project" in found and "project id" in found
    assert "unscrubbed reasoning encrypted_content" in found
    assert main(["audit", str(path)]) == 1


def test_dry_run_prices_openai_probes_from_the_dated_table(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["record", "--dry-run", "--provider", "openai"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("openai-truncation.live-span") and "gpt-4o-mini" in line for line in out)
    assert out[-2].startswith("record --dry-run (OpenAI): 18 probe(s)") and "$" in out[-2]
    assert "at the list prices of 2026-03-21" in out[-1] and "openai.com" in out[-1]
    assert max(len(line) for line in out) <= 100


def test_a_server_that_stays_unavailable_stops_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       openai_probes: dict[str, OpenAIProbe]) -> None:
    from conformance.provider.openai import emulator as emulator_module
    from conformance.provider.openai.record import record

    def overloaded(*args: object) -> dict:
        raise emulator_module.ApiError(503, "The server is overloaded.", kind="server_error")

    monkeypatch.setattr(emulator_module, "create", overloaded)
    probes = [openai_probes["openai-threshold.settled"], openai_probes["openai-threshold.below"]]
    with Emulator(0) as emulator:
        outcomes = record(probes, "dummy", emulator.url, tmp_path, sleep=lambda seconds: None)
    assert len(outcomes) == 1 and outcomes[0].unavailable and "503" in outcomes[0].note
    assert not list(tmp_path.rglob("*.yaml"))


def test_the_client_never_retries() -> None:
    from conformance.provider.openai.run import make_client

    with make_client("dummy", "http://127.0.0.1:9/v1") as client:
        assert client.max_retries == 0


@pytest.mark.slow  # records the 18 OpenAI probes against a fresh emulator
def test_regenerate_reproduces_the_committed_openai_cassettes(tmp_path: Path) -> None:
    from conformance.provider.openai.regenerate import main as regenerate

    assert regenerate(["--out", str(tmp_path), "--quiet"]) == 0
    fresh = {p.relative_to(tmp_path / "emulator-openai"): p.read_bytes() for p in tmp_path.rglob("*.yaml")}
    committed = {p.relative_to(SHIPPED): p.read_bytes() for p in SHIPPED.rglob("*.yaml")}
    assert sorted(fresh) == sorted(committed)
    assert differing(fresh, committed) == []


def test_the_cost_in_the_docs_is_what_dry_run_prints(openai_probes: dict[str, OpenAIProbe]) -> None:
    from conformance.provider.openai.cost import estimate, summary

    printed = "\n".join(summary([estimate(p) for p in openai_probes.values()]))
    docs = (Path(__file__).resolve().parents[3] / "docs" / "provider-openai.md").read_text(encoding="utf-8")
    assert printed in docs
