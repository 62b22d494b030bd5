"""The peer matrix record: every peer over the shipped scenarios, one row per library, version and
setting, rendered as docs/matrix.json, docs/matrix.md, docs/matrix.html and the README's matrix block
(``command`` decides where, if anywhere, they are written).

The JSON is the record; the Markdown, the HTML page and the README block are rendered from it, so a
result is never typed by hand.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._markdown import replace_block
from .. import published
from . import not_measured
from .rows import explain_command, verdict
from .suite import Suite
from ..engine.transcript import same_json
from ..peers import Peer
from ..engine.runner import RunOptions, run
from ..engine.spec import Scenario
from ..engine.loop import prompt_cache
from ..engine.worker import preloading

OPTIONS = RunOptions(reference_targets=frozenset(), idempotence=False)
FAILING = ("fail", "error")


def peer_row(peer: Peer, scenarios: Sequence[Scenario], options: RunOptions = OPTIONS) -> dict[str, Any]:
    """Returns one matrix row: the peer's MUST failures by invariant, the F-ids it reproduces and the
    smallest scenario of each failing cell (or ``installed: false``)."""
    row: dict[str, Any] = {"peer": peer.name, "library": peer.library, "component": peer.component,
                           "setting": peer.setting, "format": peer.format, "callable": peer.callable,
                           "version": peer.version, "installed": peer.installed}
    if not peer.installed:
        return row
    from ..formats import get
    from ..formats.wrap import mark

    marked = mark(scenarios, get(peer.format))
    report = run([peer.target()], marked, options=options)
    by_id = {s.id: s for s in marked}
    failing: dict[str, set[str]] = {}
    for r in report.results:
        if r.level == "MUST" and r.outcome in FAILING:
            failing.setdefault(r.invariant, set()).add(r.scenario)
    skipped = {r.scenario for r in report.results if r.outcome == "skip" and "not expressible" in r.message}
    changed = sum(1 for (_, sid), obs in report.observations.items()
                  if sid not in skipped and obs.returned and not same_json(obs.output, by_id[sid].history))
    scenarios_failing = set().union(*failing.values()) if failing else set()
    row.update(
        scenarios=len(marked), expressible=len(marked) - len(skipped), changed=changed,
        failing_scenarios=len(scenarios_failing),
        failures={inv: len(ids) for inv, ids in sorted(failing.items(), key=lambda kv: (-len(kv[1]), kv[0]))},
        smallest={inv: min(ids, key=lambda i: (len(by_id[i].history), i)) for inv, ids in sorted(failing.items())},
        reproduces=sorted({str((by_id[i].source or {}).get("ref")) for i in scenarios_failing
                           if str((by_id[i].source or {}).get("ref", "")).startswith("F")}),
        prompt_cache={mode: {"reused": round(use.share, 3), "written_per_call": use.written // max(use.calls, 1)}
                      for mode, use in prompt_cache(report.observations).get(report.targets[0], {}).items()})
    return row


def build(peers: Sequence[Peer], scenarios: Sequence[Scenario], today: str | None = None) -> dict[str, Any]:
    """Returns the matrix record: the date checked, the scenario count and one row per peer."""
    rows = []
    with preloading([m for p in peers if p.installed for m in (p.module, p.callable.split(":")[0])]):
        for peer in peers:  # (each row's fresh workers start with the libraries imported)
            print(f"matrix: {peer.name} ...", file=sys.stderr, flush=True)
            rows.append(peer_row(peer, scenarios))
    return {"checked": today or dt.date.today().isoformat(), "scenarios": len(scenarios), "rows": rows}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _cache_cell(cache: dict[str, Any]) -> str:
    """Returns the share of each request that is a prefix of the previous one, per loop mode."""
    return " / ".join(f"{cache[mode]['reused']:.0%}" for mode in ("stateless", "stateful") if mode in cache) or "—"


def summary_table(matrix: dict[str, Any]) -> list[str]:
    """Returns the Markdown summary table: one row per peer."""
    lines = ["| library | version | component | setting | verdict | MUST failures by invariant | reproduces "
             "| prompt cache reused (stateless / stateful) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in matrix["rows"]:
        failures = ", ".join(f"`{inv}` {n}" for inv, n in row.get("failures", {}).items()) or "none"
        if not row["installed"]:
            failures = "—"
        lines.append(f"| {row['library']} | {row['version'] or '—'} | `{row['component']}` | {_cell(row['setting'])} "
                     f"| {verdict(row)} | {failures} | {', '.join(row.get('reproduces', [])) or '—'} "
                     f"| {_cache_cell(row.get('prompt_cache') or {})} |")
    return lines


def markdown(matrix: dict[str, Any]) -> str:
    """Returns docs/matrix.md."""
    lines = ["# Peer matrix", "",
             "<!-- generated by `conformance matrix`; do not edit by hand -->", "",
             f"Checked on {matrix['checked']} against the {matrix['scenarios']} shipped scenarios. Each row is a "
             "real library's own compactor with the settings shown, called through the message format it speaks "
             "(`conformance/peers/`). A scenario the format cannot express is skipped and counted; *changed* counts "
             "the scenarios whose history the peer changed at all.", "",
             *summary_table(matrix), "", *not_measured.section(), "", "## Per peer", ""]
    for row in matrix["rows"]:
        lines.append(f"### `{row['peer']}`")
        lines.append("")
        if not row["installed"]:
            lines += [f"{row['library']} is not installed (`pip install -e \".[peers]\"`).", ""]
            continue
        lines.append(f"{row['library']} {row['version']}, `{row['component']}` with {row['setting']}; format "
                     f"`{row['format']}`; {row['expressible']} of {row['scenarios']} scenarios expressible, "
                     f"{row['changed']} changed: **{verdict(row)}**.")
        lines.append("")
        if row["failures"]:
            lines += ["| invariant | scenarios | smallest scenario | see it |", "| --- | ---: | --- | --- |"]
            for inv, n in row["failures"].items():
                smallest = row["smallest"][inv]
                lines.append(f"| `{inv}` | {n} | `{smallest}` | `{explain_command(row, smallest)}` |")
            lines.append("")
    return "\n".join(lines)


START, END = "<!-- matrix:start -->", "<!-- matrix:end -->"


def readme_block(matrix: dict[str, Any]) -> str:
    """Returns the README's generated block, markers included."""
    return "\n".join([START, f"Checked on {matrix['checked']} by `conformance matrix` "
                      "(details and the smallest failing scenario of each cell: [`docs/matrix.md`](docs/matrix.md)):",
                      "", *summary_table(matrix), END])


def update_readme(path: Path, matrix: dict[str, Any]) -> bool:
    """Replaces the README's block between the markers; returns False when it has not one pair of them."""
    text = replace_block(path.read_text(encoding="utf-8"), START, END, readme_block(matrix))
    if text is None:
        return False
    path.write_text(text, encoding="utf-8")
    return True


RECORD = published.Record(command="matrix", key="peer", count="scenarios", noun="peer")
changed_cells, check_against = RECORD.changed_cells, RECORD.check_against  # this record's comparison


def _pages(out: Path, matrix: dict[str, Any], scenarios: Sequence[Any]) -> None:
    """Writes matrix.html (its F-id legend read from ``scenarios``)."""
    from .html import page

    (out / "matrix.html").write_text(page(matrix, scenarios), encoding="utf-8")


def _load(paths: Sequence[str | Path]) -> Any:
    from ..engine.spec import load

    return load(paths)


def _shipped_specs() -> Path:
    from .._paths import shipped

    return shipped("specs")


def _select(names: Sequence[str]) -> list[Peer]:
    from ..peers import select

    return select(names)


SUITE = Suite(name="peers", stem="matrix", key="peer", noun="peer",
              install='pip install -e ".[peers]" in a checkout, or pip install "context-conformance[peers]"',
              select=_select, specs=_shipped_specs, load=_load, cases=lambda loaded: loaded.scenarios,
              build=build, summary_table=summary_table, markdown=markdown, check_against=check_against,
              pages=_pages, page_names=("matrix.html",), update_readme=update_readme)


def rows_counter(matrix: dict[str, Any]) -> Counter[str]:
    """Returns how many rows each library has (for checks of the matrix's breadth)."""
    return Counter(row["library"] for row in matrix["rows"])
