"""``conformance analyze`` on real recordings other projects made against the real APIs.

The expected verdicts are the table in ``tests/provider/real/README.md``, read here; the audit
runs over the same files, and finds a key, an organization id or reasoning text planted in a copy.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from conformance.provider.analyze import analyze_file, judges
from conformance.provider.audit import audit
from conformance.provider.cassettes import scrub_json

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
    files = sorted(str(p.relative_to(REAL)) for p in REAL.rglob("*.yaml"))
    assert sorted({r["file"] for r in ROWS}) == files
    for name in files:
        count = len(yaml.safe_load((REAL / name).read_text())["interactions"])
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
    data = yaml.safe_load(path.read_text())
    reply = data["interactions"][1]["request"]["parsed_body"]["messages"][1]
    reply["content"].insert(0, {"type": "thinking", "thinking": text, "signature": "sig"})
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_audit_finds_thinking_text_in_a_parsed_body_and_the_scrubber_removes_it(tmp_path: Path) -> None:
    path = _copy(tmp_path, "anthropic/test_anthropic_compaction_end_to_end.yaml")
    _with_thinking(path, "The user wants a greeting; I should say hello.")
    findings, _ = audit([path])
    assert any("reasoning" in f.message for f in findings)
    data = yaml.safe_load(path.read_text())
    scrub_json(data)  # what record applies to every body before it is written
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert audit([path])[0] == []
    result = analyze_file(path)
    assert [j.verdict for j in result.judgements] == ["reached-live-task", "settled-only"]


def test_audit_finds_a_reasoning_summary_in_an_openai_output(tmp_path: Path) -> None:
    path = _copy(tmp_path, "openai/test_openai_responses_compact_stateful_mode.yaml")
    data = yaml.safe_load(path.read_text())
    data["interactions"][0]["response"]["parsed_body"]["output"].insert(
        0, {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I will tell a fox story."}]})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    findings, _ = audit([path])
    assert [f.message for f in findings] == ["unscrubbed reasoning text at interactions[0].response.parsed_body.output[0]"]
