"""The quick start's failure output in README.md: what ``conformance run`` prints for the README's
minimal target on one shipped scenario, run as the README says (in a folder holding the target
file and a copy of ``specs/``).

    python tools/readme_quickstart.py                               # print the block
    python tools/generated_docs.py --write readme-quickstart         # put it into README.md, between its markers
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from conformance._markdown import replace_block

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START, END = "<!-- quickstart:start -->", "<!-- quickstart:end -->"
TARGET_FILE = "my_compactor.py"
COMMAND = ["conformance", "run", "--target", "my_compactor:compact", "--specs", "specs", "-k", "real-failures.f01"]


def target_code(readme: str) -> str:
    """Returns the minimal target of the README's quick start (its first ``python`` block)."""
    section = readme.split("## Quick start", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def run_output(readme: str, root: Path = ROOT) -> tuple[int, str]:
    """Returns the exit code of ``COMMAND`` (run on a copy of ``root``'s specs) and what it prints
    from its failures on."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / TARGET_FILE).write_text(target_code(readme), encoding="utf-8")
        shutil.copytree(root / "specs", work / "specs")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        done = subprocess.run([sys.executable, "-m", "conformance", *COMMAND[1:]], cwd=work,
                              env=env, capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    start = next((k for k, line in enumerate(lines) if line.startswith("failures of")), 0)
    return done.returncode, "\n".join(lines[start:]).strip("\n") + "\n"


def block(output: str) -> str:
    """Returns the README block, markers included."""
    return f"{START}\n```\n{output}```\n{END}"


def readme_with_block(root: Path = ROOT) -> str:
    """Returns ``root``'s README.md with its quick-start block as the command prints it today;
    raises ``ValueError`` when the command does not fail as the README says (exit 1) or the README
    has not one pair of markers."""
    readme = (root / "README.md").read_text(encoding="utf-8")
    code, output = run_output(readme, root)
    if code != 1:
        raise ValueError(f"expected exit 1 (a MUST failed), got {code}")
    text = replace_block(readme, START, END, block(output))
    if text is None:
        raise ValueError(f"README.md has no single {START} ... {END} block")
    return text


def main() -> int:
    """Prints the block; returns 0, or 1 when the command does not fail as the README says."""
    readme = README.read_text(encoding="utf-8")
    code, output = run_output(readme)
    if code != 1:
        print(f"expected exit 1 (a MUST failed), got {code}", file=sys.stderr)
        return 1
    print(block(output))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
