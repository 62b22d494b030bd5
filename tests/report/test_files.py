"""results.jsonl, summary.md and index.html: schema, counts, side by side, escaping, no reasoning text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from conformance import __version__
from conformance.report import jsonl, write_all
from conformance.report.runinfo import library_version
from conformance.engine.results import CheckResult, summarize_shown
from conformance.engine.runner import RunReport

from . import targets
from .conftest import SECRETS, run_fixtures


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_write_all_creates_the_folder_and_three_files(mixed_dir: Path) -> None:
    assert sorted(p.name for p in mixed_dir.iterdir()) == ["index.html", "results.jsonl", "summary.md"]


@pytest.mark.slow
def test_every_line_matches_the_published_schema(mixed_dir: Path) -> None:
    validator = jsonschema.Draft202012Validator(jsonl.schema())
    lines = _lines(mixed_dir)
    for line in lines:
        validator.validate(line)
    assert [line["record"] for line in (lines[0], lines[-1])] == ["header", "footer"]


def test_the_schema_rejects_an_unknown_outcome_and_a_missing_field() -> None:
    validator = jsonschema.Draft202012Validator(jsonl.schema())
    good = {"record": "result", "seq": 1, **CheckResult("t", "s", "f", "i", "MUST", "pass").to_dict()}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "outcome": "passed"})
    assert not validator.is_valid({k: v for k, v in good.items() if k != "level"})
    assert jsonl.validate([{**good, "outcome": "passed"}])


def test_header_names_suite_targets_python_and_sdk(mixed_dir: Path, mixed_report: RunReport) -> None:
    header = _lines(mixed_dir)[0]
    assert header["suite_version"] == __version__
    assert header["targets"] == mixed_report.targets
    assert re.fullmatch(r"3\.\d+\.\d+\S*", header["run_info"]["python"])
    assert header["run_info"]["sdk"]["anthropic"] == library_version("anthropic") is not None


def test_one_record_per_check_and_footer_counts(mixed_dir: Path, mixed_report: RunReport) -> None:
    lines = _lines(mixed_dir)
    results = [line for line in lines if line["record"] == "result"]
    assert len(results) == len(mixed_report.results)
    assert [r["seq"] for r in results] == list(range(1, len(results) + 1))
    assert {(r["target"], r["scenario"], r["invariant"], r["outcome"]) for r in results} == {
        (r.target, r.scenario, r.invariant, r.outcome) for r in mixed_report.results}
    assert lines[-1]["counts"] == summarize_shown(mixed_report.results)["outcomes"]
    assert lines[-1]["exit_code"] == 1


def _footer_counts_in_every_file(folder: Path) -> tuple[dict, str, str]:
    footer = _lines(folder)[-1]
    return footer, (folder / "summary.md").read_text(), (folder / "index.html").read_text()


def test_the_three_files_agree_on_the_counts(mixed_dir: Path) -> None:
    footer, summary, page = _footer_counts_in_every_file(mixed_dir)
    checks = sum(footer["counts"].values())
    assert f'<span id="checks">{checks}</span>' in page and f'<span id="gating">{footer["gating_failures"]}</span>' in page
    assert summary.splitlines()[2].startswith(f"{checks} checks (")
    for outcome, n in footer["counts"].items():
        if n:
            assert f"{n} {outcome}" in summary.splitlines()[2] and f"<b>{n}</b> {outcome}" in page


def test_summary_shows_targets_side_by_side(mixed_dir: Path) -> None:
    text = (mixed_dir / "summary.md").read_text()
    assert text.startswith("# context-conformance: DOES NOT CONFORM")
    header_row = next(line for line in text.splitlines() if line.startswith("| invariant |"))
    assert [n for n in ("keep_all", "whitelist", "leak_thinking", "raises") if n in header_row] == [
        "keep_all", "whitelist", "leak_thinking", "raises"]
    row = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `targets:")}
    assert "CONFORMS" in row["`targets:keep_all`"] and "DOES NOT" not in row["`targets:keep_all`"]
    assert "DOES NOT CONFORM" in row["`targets:whitelist`"]
    live = next(line for line in text.splitlines() if line.startswith("| `live.untouched-suffix`"))
    assert [c.strip() for c in live.split("|")[3:7]] == ["2/2", "1/2", "1/2", "0/2"]


def test_a_conforming_run_says_so(tmp_path: Path) -> None:
    report = run_fixtures(targets.keep_all)
    write_all(tmp_path, report)
    assert (tmp_path / "summary.md").read_text().startswith("# context-conformance: CONFORMS")
    assert "<h1>CONFORMS</h1>" in (tmp_path / "index.html").read_text()


def test_no_reasoning_text_in_any_report(mixed_dir: Path, mixed_report: RunReport) -> None:
    raw = json.dumps([r.to_dict() for r in mixed_report.results])
    assert "thinking" in raw  # failures about reasoning blocks are reported...
    assert not [s for s in SECRETS if s in raw]  # ...but the runner keeps their text out of every record
    for name in ("results.jsonl", "summary.md", "index.html"):
        text = (mixed_dir / name).read_text()
        assert not [s for s in SECRETS if s in text], name


def test_the_writer_redacts_reasoning_text_that_reaches_it(mixed_report: RunReport, tmp_path: Path) -> None:
    from conformance.engine.redaction import secrets_in
    texts = [t for s in mixed_report.scenarios for t in secrets_in(s.history) if SECRETS[0] in t]
    first = mixed_report.results[0]
    leaky = CheckResult(first.target, first.scenario, first.family, first.invariant, "MUST", "fail",
                        f"a target quoted {texts[0]!r} in its error", {"diff": [f"'thinking': '{SECRETS[1]}'"]})
    report = RunReport(results=[leaky], targets=mixed_report.targets, scenarios=mixed_report.scenarios, code=1)
    write_all(tmp_path, report)
    for name in ("results.jsonl", "summary.md", "index.html"):
        text = (tmp_path / name).read_text()
        assert not [s for s in SECRETS if s in text], name
    assert "[redacted" in (tmp_path / "results.jsonl").read_text()


@pytest.mark.slow
def test_no_reasoning_text_when_a_target_quotes_it_in_text_or_an_error(tmp_path: Path) -> None:
    report = run_fixtures(targets.thinking_to_text, targets.raises_quoting_reasoning)
    write_all(tmp_path, report)
    page = (tmp_path / "index.html").read_text()
    assert 'id="f-targets-thinking-to-text-mini-inflight-two-steps"' in page
    assert "the call failed: ValueError: cannot keep [redacted thinking #" in page
    assert "text [redacted thinking #" in page  # the quoting text block is named, not shown
    for name in ("results.jsonl", "summary.md", "index.html"):
        text = (tmp_path / name).read_text()
        assert not [s for s in SECRETS if s[:12] in text], name


def test_untrusted_strings_are_escaped(mixed_dir: Path) -> None:
    page = (mixed_dir / "index.html").read_text()
    summary = (mixed_dir / "summary.md").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>not bold</b>" not in page and "&lt;b&gt;not bold&lt;/b&gt;" in page
    assert "<script>" not in summary


def test_index_html_is_self_contained(mixed_dir: Path) -> None:
    page = (mixed_dir / "index.html").read_text()
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(?:link|script|img|iframe|object|embed)\b", page, re.IGNORECASE)
    assert not re.search(r"@import|url\(", page, re.IGNORECASE)
    assert not re.search(r"\ssrc\s*=", page, re.IGNORECASE)


def test_index_html_draws_the_failing_transcript(mixed_dir: Path) -> None:
    page = (mixed_dir / "index.html").read_text()
    failure = page[page.index('id="f-targets-whitelist-mini-inflight-two-steps"'):]
    failure = failure[: failure.index("</article>")]
    assert "task in flight starts here: input[2]" in failure
    assert 's-removed" title="thinking #' in failure  # the live reasoning the whitelist dropped
    assert "live.untouched-suffix" in failure
    assert 'id="f-targets-keep-all' not in page and 'id="f-targets-raises-mini' in page


def test_the_banner_names_what_failed_and_passing_rows_are_folded(mixed_dir: Path, mixed_report: RunReport,
                                                                  tmp_path: Path) -> None:
    page = (mixed_dir / "index.html").read_text()
    why = page[page.index('<p class="why">'):]
    why = why[: why.index("</p>")]
    for target in ("targets:whitelist", "targets:leak_thinking", "targets:raises"):
        gating = sum(1 for r in mixed_report.failures() if r.target == target)
        assert f"<code>{target}</code>: {gating} gating failures" in why
    assert "targets:keep_all" not in why
    assert "pass on every target" not in page  # raises fails both scenarios: nothing to fold

    report = run_fixtures(targets.keep_all, targets.whitelist)
    write_all(tmp_path, report)
    page = (tmp_path / "index.html").read_text()
    assert page.index("mini.inflight-two-steps") < page.index("1 scenarios pass on every target</summary>")
    assert page.index("1 scenarios pass on every target</summary>") < page.index("<code>mini.settled-only</code>")
    report = run_fixtures(targets.keep_all)
    write_all(tmp_path, report)
    page = (tmp_path / "index.html").read_text()
    assert page.index("2 scenarios pass on every target</summary>") < page.index("mini.inflight-two-steps")
    assert "every MUST holds on 1 of 1 targets" in page


def test_the_reports_show_provider_probes(tmp_path: Path) -> None:
    probes = [CheckResult("emulator", "clear-tool-uses.keep-3", "clear-tool-uses", "probe.verdict", "MUST", "pass",
                          "", {"verdict": "settled-only"}, "probe"),
              CheckResult("emulator:clears-live", "clear-tool-uses.keep-3", "clear-tool-uses", "probe.verdict",
                          "MUST", "fail", "reached the task in flight", {"verdict": "reached-live-task"}, "probe")]
    write_all(tmp_path, RunReport(probes=probes, code=1))
    page = (tmp_path / "index.html").read_text()
    assert "Strategies × probes" in page and "reached-live-task" in page
    summary = (tmp_path / "summary.md").read_text()
    assert "| `clear-tool-uses.keep-3` | ✅ settled-only (emulator) | ❌ reached-live-task (emulator) |" in summary
    assert summary.startswith("# context-conformance: DOES NOT CONFORM")
    assert [line["kind"] for line in _lines(tmp_path) if line["record"] == "result"] == ["probe", "probe"]


def test_a_predicted_reach_into_live_work_is_a_finding_not_a_green_check(tmp_path: Path) -> None:
    probes = [CheckResult("api.anthropic.com", "clear-tool-uses.keep-2", "clear-tool-uses", "probe.verdict", "MUST",
                          "pass", "", {"verdict": "reached-live-task", "reached_live": True}, "probe"),
              CheckResult("api.anthropic.com", "clear-tool-uses.keep-3", "clear-tool-uses", "probe.verdict", "MUST",
                          "pass", "", {"verdict": "settled-only", "reached_live": False}, "probe")]
    write_all(tmp_path, RunReport(probes=probes, code=0))
    summary = (tmp_path / "summary.md").read_text()
    assert "| `clear-tool-uses.keep-2` | ⚠️ finding: reached-live-task |" in summary
    assert "| `clear-tool-uses.keep-3` | ✅ settled-only |" in summary  # not from the emulator: no label
    page = (tmp_path / "index.html").read_text()
    assert "⚠ finding: reached-live-task" in page and "✓ reached-live-task" not in page


def test_validate_agrees_with_the_whole_schema_on_every_kind_of_line(mixed_dir: Path) -> None:
    validator = jsonschema.Draft202012Validator(jsonl.schema())
    lines = _lines(mixed_dir)
    footer = lines[-1]
    bad = [{"record": "nope"}, "not an object", {**footer, "counts": {**footer["counts"], "pass": "x"}},
           {**lines[0], "command": "other"}, {**lines[1], "extra": 1}]
    for line in [*lines[:3], footer, *bad]:
        assert (not jsonl.validate([line])) == validator.is_valid(line), line


def test_write_refuses_records_that_break_the_schema(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="schema"):
        jsonl.write(tmp_path / "x.jsonl", [{"record": "result", "seq": 0}])


def test_a_target_that_always_raises_passes_nothing_in_the_reports(tmp_path: Path) -> None:
    report = run_fixtures(targets.raises)
    write_all(tmp_path, report)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    row = next(line for line in summary.splitlines() if line.startswith("| `targets:raises`"))
    header = next(line for line in summary.splitlines() if line.startswith("| target | verdict"))
    cells = dict(zip([c.strip() for c in header.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert cells["pass"] == "0" and int(cells["no-output"]) > 0 and int(cells["error"]) > 0, cells
    assert " pass" not in summary.splitlines()[2].split("(")[1].split(")")[0]  # the head line counts no pass
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "no-output</span>" in page and not re.search(r"<b>\d+</b> pass</span>", page)


def test_the_page_says_why_its_gating_count_differs_from_the_fail_count(mixed_dir: Path) -> None:
    footer, _, page = _footer_counts_in_every_file(mixed_dir)
    counts = footer["counts"]
    shown = counts.get("fail", 0) + counts.get("error", 0) + counts.get("xpass", 0)
    note = re.search(r'<p class="why" id="gating-note">([^<]*)</p>', page)
    if shown == footer["gating_failures"]:
        assert note is None
    else:
        assert note and note.group(1).startswith(f'{footer["gating_failures"]} of the {shown} ')
        assert "SHOULD" in note.group(1)
