"""The quick start's failure output in README.md: what ``conformance run`` prints for the README's
minimal target on one shipped scenario, run as the README says (in a folder holding the target
file and a copy of ``specs/``).

    python tools/readme_quickstart.py           # print the block
    python tools/readme_quickstart.py --write   # put it into README.md, between its markers
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START, END = "<!-- quickstart:start -->", "<!-- quickstart:end -->"
TARGET_FILE = "my_compactor.py"
COMMAND = ["conformance", "run", "--target", "my_compactor:compact", "--specs", "specs", "-k", "real-failures.f01"]


def target_code(readme: str) -> str:
    """Returns the minimal target of the README's quick start (its first ``python`` block)."""
    section = readme.split("## Quick start", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def run_output(readme: str) -> tuple[int, str]:
    """Returns the exit code of ``COMMAND`` and what it prints from its failures on."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / TARGET_FILE).write_text(target_code(readme), encoding="utf-8")
        shutil.copytree(ROOT / "specs", work / "specs")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        done = subprocess.run([sys.executable, "-m", "conformance", *COMMAND[1:]], cwd=work,
                              env=env, capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("failures of")), 0)
    return done.returncode, "\n".join(lines[start:]).strip("\n") + "\n"


def block(output: str) -> str:
    """Returns the README block, markers included."""
    return f"{START}\n```\n{output}```\n{END}"


def main() -> int:
    readme = README.read_text(encoding="utf-8")
    code, output = run_output(readme)
    if code != 1:
        print(f"expected exit 1 (a MUST failed), got {code}", file=sys.stderr)
        return 1
    text = block(output)
    if "--write" not in sys.argv[1:]:
        print(text)
        return 0
    if readme.count(START) != 1 or readme.count(END) != 1:
        print(f"README.md has no single {START} ... {END} block", file=sys.stderr)
        return 1
    head, rest = readme.split(START, 1)
    README.write_text(head + text + rest.split(END, 1)[1], encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
