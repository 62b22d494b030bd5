"""docs/matrix.html fits a 1400 px window (no column off-screen, each verdict on one line) and says
what each F-id is, from the ``source`` of the scenario that cites it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance import Scenario
from conformance.matrix.html import page, sources
from conformance.engine.spec import Truth

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = json.loads((ROOT / "docs" / "matrix.json").read_text(encoding="utf-8"))
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

MEASURE = """<script>
addEventListener("load", () => {
  const cells = [...document.querySelectorAll("table.matrix th, table.matrix td")];
  const lines = [...document.querySelectorAll("table.matrix td.verdict")].map(td => {
    const range = document.createRange(); range.selectNodeContents(td);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  });
  const out = document.createElement("pre"); out.id = "metrics";
  out.textContent = JSON.stringify({inner: innerWidth, scroll: document.documentElement.scrollWidth,
    right: Math.max(...cells.map(c => c.getBoundingClientRect().right)), lines});
  document.body.appendChild(out);
});
</script>"""


def test_every_reproduced_f_id_has_a_legend_row_with_its_report_and_scenario() -> None:
    html = page(PUBLISHED)
    reproduced = sorted({f for row in PUBLISHED["rows"] for f in row.get("reproduces", [])})
    assert reproduced, "the published matrix reproduces no F-id: nothing to explain"
    from conformance import load

    cited = sources(load([ROOT / "specs"]).scenarios)
    for fid in reproduced:
        row = re.search(rf'<tr id="fid-{fid}">(.*?)</tr>', html, re.S)
        assert row, f"no legend row for {fid}"
        for scenario in cited[fid]:
            assert scenario.id in row.group(1) and str(scenario.source["url"]) in row.group(1)
        assert f'href="#fid-{fid}"' in html  # the matrix cell links to it


def test_an_f_id_no_scenario_cites_says_so() -> None:
    matrix = {"checked": "2026-01-01", "scenarios": 1, "rows": [{
        "peer": "lib.x", "library": "lib", "component": "X", "setting": "s", "format": "anthropic",
        "callable": "m:f", "version": "1", "installed": True, "scenarios": 1, "expressible": 1, "changed": 1,
        "failing_scenarios": 1, "failures": {"live.untouched-suffix": 1},
        "smallest": {"live.untouched-suffix": "a.b"}, "reproduces": ["F99"]}]}
    cites = Scenario(id="a.b", description="d", family="a", history=[], truth=Truth(0),
                     source={"ref": "F98", "url": "https://example.invalid/x", "note": "n"})
    html = page(matrix, [cites])
    assert "not cited by any scenario of these specs" in html and "F98" not in html


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_published_matrix_fits_1400_px_with_each_verdict_on_one_line(tmp_path: Path) -> None:
    shown = tmp_path / "matrix.html"
    shown.write_text(page(PUBLISHED).replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           "--window-size=1400,900", f"--user-data-dir={tmp_path / 'profile'}",
                           "--dump-dom", shown.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120, check=True)
    found = re.search(r'<pre id="metrics">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stdout[-2000:]
    metrics = json.loads(found.group(1).replace("&quot;", '"'))
    assert metrics["scroll"] <= metrics["inner"], metrics  # no horizontal scrolling
    assert metrics["right"] <= metrics["inner"], metrics  # no column off-screen
    assert metrics["lines"] and max(metrics["lines"]) == 1, metrics
