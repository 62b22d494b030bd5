"""``conformance analyze`` on real recordings other projects made against the real APIs.

The expected verdicts are the table in ``tests/provider/real/README.md``, read here; the audit
runs over the same files, and finds a key, an organization id or reasoning text planted in a copy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from conformance.provider.analyze import analyze_file, judges
from conformance.provider.audit import audit
from conformance.provider.cassettes import scrub_json
from conformance.provider.recordings import read_recording
from .._yaml import load_yaml

REAL = Path(__file__).resolve().parent / "real"
COLUMNS = ["file", "index", "provider", "live", "verdict", "why"]


def readme_rows() -> list[dict[str, str]]:
    """Returns the rows of the README's verdict table (the one whose header starts ``| file | index``)."""
    lines = (REAL / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| file | index |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append(dict(zip(COLUMNS, cells)))
    return rows


ROWS = readme_rows()


def test_the_table_covers_every_interaction_of_every_file() -> None:
    files = sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*") if p.is_file() and p.name != "README.md")
    assert sorted({r["file"] for r in ROWS}) == files
    for name in files:
        count = len(read_recording(REAL / name))
        assert sorted(int(r["index"]) for r in ROWS if r["file"] == name) == list(range(count)), name


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['file'].split('/')[-1]}#{r['index']}" for r in ROWS])
def test_verdict_is_the_readme_verdict(row: dict[str, str]) -> None:
    # the judges are the project's own code: one missing is a failure, never a skip
    assert row["provider"] in {j.provider for j in judges()}, f"no judge for {row['provider']} is registered"
    result = analyze_file(REAL / row["file"])
    assert result.error is None
    found = result.judgements[int(row["index"])]
    assert found.provider == row["provider"] and found.error is None
    assert found.verdict == row["verdict"], found.evidence
    assert found.live_start == (None if row["live"] == "-" else int(row["live"]))


@pytest.mark.slow
def test_the_real_recordings_are_clean() -> None:
    findings, files = audit([REAL])
    assert files == len({r["file"] for r in ROWS}) and findings == []


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / Path(name).name
    shutil.copy(REAL / name, target)
    return target


PLANTS = {
    "key header": ("anthropic/test_anthropic_compaction_round_trip.yaml", "      host:\n",
                   "      x-api-key:\n      - sk-ant-api03-PLANTEDplantedPLANTED\n      host:\n"),
    "openai key": ("openai/test_openai_responses_compact_messages.yaml", "      host:\n",
                   "      authorization:\n      - Bearer sk-proj-PLANTEDplantedPLANTED0123\n      host:\n"),
    "organization header": ("openai/test_openai_responses_compact_stateful_mode.yaml", "      content-type:\n      - application/json\n    parsed_body:\n      background",
                            "      openai-organization:\n      - pydantic-28gund\n      content-type:\n      - application/json\n    parsed_body:\n      background"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_audit_finds_a_credential_planted_in_a_real_recording(tmp_path: Path, plant: str) -> None:
    name, old, new = PLANTS[plant]
    path = _copy(tmp_path, name)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    findings, _ = audit([path])
    assert findings and all(f.path == path for f in findings)


def _with_thinking(path: Path, text: str) -> None:
    data = load_yaml(path.read_text())
    reply = data["interactions"][1]["request"]["parsed_body"]["messages"][1]
    reply["content"].insert(0, {"type": "thinking", "thinking": text, "signature": "sig"})
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_audit_finds_thinking_text_in_a_parsed_body_and_the_scrubber_removes_it(tmp_path: Path) -> None:
    path = _copy(tmp_path, "anthropic/test_anthropic_compaction_end_to_end.yaml")
    _with_thinking(path, "The user wants a greeting; I should say hello.")
    findings, _ = audit([path])
    assert any("reasoning" in f.message for f in findings)
    data = load_yaml(path.read_text())
    scrub_json(data)  # what record applies to every body before it is written
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert audit([path])[0] == []
    result = analyze_file(path)
    assert [j.verdict for j in result.judgements] == ["reached-live-task", "settled-only"]


def test_audit_finds_a_reasoning_summary_in_an_openai_output(tmp_path: Path) -> None:
    path = _copy(tmp_path, "openai/test_openai_responses_compact_stateful_mode.yaml")
    data = load_yaml(path.read_text())
    data["interactions"][0]["response"]["parsed_body"]["output"].insert(
        0, {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I will tell a fox story."}]})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    findings, _ = audit([path])
    assert [f.message for f in findings] == ["unscrubbed reasoning text at interactions[0].response.parsed_body.output[0]"]


def test_audit_on_ruby_vcr_cassettes_finds_a_workspace_id_and_no_placeholder(tmp_path: Path) -> None:
    folder = tmp_path / "ruby"
    shutil.copytree(REAL / "ruby_llm", folder)
    assert audit([folder]) == ([], 3)  # placeholders (<...>), rate-limit and Cf-Ray headers are not findings
    path = folder / "anthropic_compacts_a_long_conversation.yml"
    text = path.read_text()
    assert "<ANTHROPIC_ORGANIZATION_ID>" in text and "Anthropic-Ratelimit-Input-Tokens-Limit" in text
    path.write_text(text.replace("<ANTHROPIC_WORKSPACE_ID>", "wrkspc_01PLANTEDplantedPLANT"))
    findings, _ = audit([folder])
    assert findings and all(f.path == path for f in findings)
    assert {"workspace id" in f.message for f in findings} == {True}, [str(f) for f in findings]
    assert any("'Anthropic-Workspace-Id' (workspace id)" in f.message for f in findings)


def test_audit_fix_writes_a_scrubbed_copy_that_still_judges_the_same(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    path = _copy(tmp_path, "ruby_llm/anthropic_compacts_a_long_conversation.yml")
    path.write_text(path.read_text().replace("<ANTHROPIC_WORKSPACE_ID>", "wrkspc_01PLANTEDplantedPLANT")
                    .replace("<ANTHROPIC_API_KEY>", "sk-ant-api03-PLANTEDplantedPLANTED"))
    assert main(["audit", "--fix", str(path)]) == 1
    fixed = tmp_path / "anthropic_compacts_a_long_conversation.scrubbed.yml"
    assert fixed.is_file() and "wrote a scrubbed copy" in capsys.readouterr().out
    assert audit([fixed]) == ([], 1) and "PLANTED" not in fixed.read_text()
    assert [j.verdict for j in analyze_file(fixed).judgements] == ["reached-live-task"]


def test_a_folder_with_a_reached_recording_and_an_unreadable_file_exits_1_and_lists_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    _copy(tmp_path, "ruby_llm/anthropic_compacts_a_long_conversation.yml")
    (tmp_path / "broken.json").write_text('{"http_interactions": 3}')
    assert main(["analyze", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "REACHED-LIVE-TASK" in out and f"{tmp_path / 'broken.json'}: 'http_interactions' is not a list" in out
    assert "1 judged (1 reached-live-task)" in out and "1 unreadable" in out


def test_the_evidence_names_the_trigger_and_what_applied_edits_said() -> None:
    (found,) = analyze_file(REAL / "ruby_llm" / "anthropic_compacts_a_long_conversation.yml").judgements
    assert "the compaction pass cost 99195 input tokens (the summarising call's own usage, not the size of the " \
           "context it folded away), then the answer was computed from 162; trigger 50000 input tokens; " \
           "applied_edits: []" in found.evidence[0]
    assert found.evidence[1] == "folded into the summary: the request (message 0)"


def test_analyze_json_takes_a_file_or_dash_for_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    path = REAL / "ruby_llm" / "anthropic_compacts_a_long_conversation.yml"
    out = tmp_path / "verdicts.json"
    assert main(["analyze", str(path), "--json", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "REACHED-LIVE-TASK" in printed and json.loads(out.read_text())[0]["verdict"] == "reached-live-task"
    assert main(["analyze", str(path), "--json", "-"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["verdict"] == "reached-live-task"
    assert main(["analyze", str(path), "--json"]) == 2  # a bare --json would take the next path as its file
