"""index.html in headless Chromium: it renders offline, and the verdict, counts and failures show."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conformance.engine.runner import RunReport

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,900"]

if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI is set but chromium is not installed: install Debian's chromium package")
    pytest.skip("chromium is not installed", allow_module_level=True)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "profile"
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=120, check=True)


def test_the_page_renders_with_verdict_counts_and_failures(mixed_dir: Path, mixed_report: RunReport,
                                                           tmp_path: Path) -> None:
    url = (mixed_dir / "index.html").resolve().as_uri()
    shot = tmp_path / "page.png"
    dom = _chromium(tmp_path, "--dump-dom", f"--screenshot={shot}", url).stdout  # one browser start for both
    text = re.sub(r"<[^>]+>", " ", dom)
    assert "DOES NOT CONFORM" in text
    checks = re.search(r'<span id="checks">(\d+)</span>', dom)
    assert checks and int(checks.group(1)) == len(mixed_report.results)
    gating = re.search(r'<span id="gating">(\d+)</span>', dom)
    assert gating and int(gating.group(1)) == len(mixed_report.failures())
    assert "Failing scenarios" in text
    for target in ("targets:whitelist", "targets:leak_thinking", "targets:raises"):
        assert f'id="f-{target.replace(":", "-").replace("_", "-")}-mini-inflight-two-steps"' in dom
    assert "task in flight starts here" in text

    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 900)
    assert len(data) > 20_000  # a blank page compresses to a few kilobytes
