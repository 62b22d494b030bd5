"""The egress suite of ``conformance matrix`` (``egress-matrix``): real libraries' serializers and
stores over the egress conversations, one row per component and setting, written as
docs/egress-matrix.json and .md.

The JSON is the record and the Markdown is rendered from it. ``--check`` writes nothing and exits 1
when a row differs from the published JSON (dates aside), 2 when a library is not installed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from .. import published
from ..engine.results import CheckResult
from . import servers
from .adapters import Component, select
from .conversations import Conversation, load, shipped_folder
from ..matrix.suite import Suite
from .run import run, unjudged
from .store import run as run_store
from .surfaces import ENCRYPTED, surface
from ..engine.worker import preloading

_KIND = re.compile(r"^(\S+) canary ")
FAILING = ("fail", "error")
TIME_LIMIT = 30.0  # a library's first import in a fresh worker can take seconds


def leaked_kinds(results: Sequence[CheckResult]) -> list[str]:
    """Returns the canary kinds the failing records found, sorted."""
    kinds = set()
    for r in results:
        if r.outcome in FAILING:
            for line in [r.message, *r.details.get("diff", [])]:
                match = _KIND.match(str(line))
                if match:
                    kinds.add(match.group(1))
    return sorted(kinds)


def verdict(row: dict[str, Any]) -> str:
    """Returns the one-phrase verdict of a row."""
    if not row["installed"]:
        return "not installed"
    failures = row.get("failures", {})
    blind = row.get("unjudged", 0)
    if not failures and not _blind(row):
        return ("no leak, answer kept" if row["surface"] != "task-record" else "conforms") + (
            f" (nothing written for {blind} of {row['conversations']} conversations: cannot tell there)" if blind else "")
    words = ["cannot tell: nothing written for any conversation"] if _blind(row) else []
    if "egress.call-completes" in failures or "store.call-completes" in failures:
        words.append("fails to run")
    kinds = set(row.get("leaked", []))
    if kinds & {"reasoning-text", "reasoning-summary"}:
        words.append("leaks reasoning text")
    if kinds & {"signature", "redacted-data", "encrypted-content", "thought-signature"}:
        words.append("leaks ciphertext")
    if "store.encrypted-at-rest" in failures:
        words.append("readable at rest")
    if "store.forgets-finished-task" in failures:
        words.append("keeps the task after its end")
    if "egress.answer-kept" in failures:
        words.append("loses the answer")
    if "egress.reasoning-byte-identical" in failures or "store.reasoning-back-byte-identical" in failures:
        words.append("changes reasoning")
    return ", ".join(words) or "fails"


def component_row(component: Component, conversations: Sequence[Conversation]) -> dict[str, Any]:
    """Returns one matrix row: failing checks with counts and the smallest conversation of each,
    the canary kinds that leaked, and the setting that stops it (or ``installed: false``)."""
    row: dict[str, Any] = {"component": component.name, "library": component.library,
                           "callable": component.component, "setting": component.setting,
                           "surface": component.surface, "format": component.format,
                           "version": component.version, "installed": component.installed, "stops": component.stops}
    if not component.installed:
        return row
    mine = [c for c in conversations if c.format == component.format]
    chosen = surface(component.surface)
    if chosen.reasoning == ENCRYPTED:
        report = run_store(component.callable, mine, time_limit=TIME_LIMIT)
    else:
        report = run([component.callable], mine, chosen, time_limit=TIME_LIMIT, jobs=1)
    by_id = {c.id: c for c in mine}
    failing: dict[str, set[str]] = {}
    for r in report.results:
        if r.level == "MUST" and r.outcome in FAILING:
            failing.setdefault(r.invariant, set()).add(r.scenario)
    row.update(
        conversations=len(mine),
        failures={cid: len(ids) for cid, ids in sorted(failing.items())},
        smallest={cid: min(ids, key=lambda i: (len(by_id[i].messages), i)) for cid, ids in sorted(failing.items())},
        leaked=leaked_kinds(report.results))
    blind = unjudged(report.results)
    if blind:  # (a row that wrote something for every conversation keeps the published keys)
        row["unjudged"] = len(blind)
    return row


@contextlib.contextmanager
def servers_for(components: Sequence[Component]) -> Iterator[None]:
    """Runs the servers the installed components' stores need (PostgreSQL, Redis on 127.0.0.1)
    for the block, started here unless the environment names running ones; raises
    ``servers.ServerUnavailable`` when one cannot start."""
    needed = sorted({kind for c in components if c.installed for kind in c.needs})
    with contextlib.ExitStack() as stack:
        if needed and threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            # a terminated run still stops its servers (the blocks below unwind on SystemExit)
            previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
            stack.callback(signal.signal, signal.SIGTERM, previous)
        for kind in needed:
            print(f"egress-matrix: starting {kind} on 127.0.0.1 ...", file=sys.stderr, flush=True)
            stack.enter_context(servers.running(kind))
        yield


def build(components: Sequence[Component], conversations: Sequence[Conversation],
          today: str | None = None) -> dict[str, Any]:
    """Returns the matrix record: the date checked, the conversation count, one row per component
    (the servers the stores need run meanwhile; raises ``servers.ServerUnavailable``)."""
    rows = []
    modules = [m for c in components if c.installed for m in (c.module, c.callable.split(":")[0])]
    with servers_for(components), preloading(modules):  # (each row's fresh workers start with them imported)
        for component in components:
            print(f"egress-matrix: {component.name} ...", file=sys.stderr, flush=True)
            rows.append(component_row(component, conversations))
    return {"checked": today or dt.date.today().isoformat(), "conversations": len(conversations), "rows": rows}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _blind(row: dict[str, Any]) -> bool:
    """Returns whether a row's component wrote nothing for any of its conversations (nothing judged)."""
    return bool(row.get("conversations")) and row.get("unjudged", 0) >= row["conversations"]


def smallest_fix(row: dict[str, Any], rows: Sequence[dict[str, Any]]) -> str:
    """Returns the smallest fix a team can apply today for a row: nothing when it conforms; else
    the setting of a row of the same library, surface and format that conforms (run, not typed);
    else the library's own setting that stops it, or what the adapter says there is none."""
    if not row.get("installed"):
        return "—"
    if _blind(row):
        return "none known: nothing was written to judge"
    if not row.get("failures"):
        return "none needed"
    for other in sorted(rows, key=lambda r: r.get("callable") != row.get("callable")):  # the same callable first
        if (other is not row and other.get("installed") and not other.get("failures") and not _blind(other)
                and other.get("conversations")
                and (other["library"], other["surface"], other["format"]) == (row["library"], row["surface"], row["format"])):
            how = other["setting"] if other["callable"] == row["callable"] else \
                f"`{other['callable']}` ({other['setting']})"
            return f"{how} (row `{other['component']}` conforms)"
    return row.get("stops") or "none in the library"


def summary_table(matrix: dict[str, Any], rows: Sequence[dict[str, Any]] | None = None) -> list[str]:
    """Returns the Markdown summary table: one row per component (of ``rows``, all by default)."""
    lines = ["| library | version | component | setting | surface | verdict | leaked | smallest fix today |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in matrix["rows"] if rows is None else rows:
        leaked = ", ".join(row.get("leaked", [])) or "nothing"
        lines.append(f"| {row['library']} | {row['version'] or '—'} | `{row['callable']}` | {_cell(row['setting'])} "
                     f"| {row['surface']} | {verdict(row)} | {leaked} | {_cell(smallest_fix(row, matrix['rows']))} |")
    return lines


QUESTION = "Does a path exist from here to a person, another system, or a store that outlives the task?"
ANSWERS = {"forbidden": "Yes", "encrypted": "Only while the task runs", "byte-identical": "No", "allowed": "No"}
RULES = {"forbidden": "no reasoning text and no reasoning ciphertext may reach it, however encoded",
         "encrypted": "reasoning may be there only encrypted at rest, readable back by another worker while the "
                      "task runs, gone when it ends, and never in the warehouse copy",
         "byte-identical": "reasoning must reach it exactly as the provider returned it",
         "allowed": "reasoning may be held"}


NOT_MEASURED = (
    ("langgraph-checkpoint-redis", "task-record",
     "needs the RediSearch and RedisJSON modules of Redis Stack, which Debian's redis-server lacks"),
    ("weave", "trace", "needs a W&B trace server: it does not run offline"),
    ("opentelemetry-instrumentation-openai-v2", "trace",
     "2.4b0 needs a newer opentelemetry-util-genai than the pinned 1.3b0, and 2.3b0 instruments Chat "
     "Completions only, not the Responses API the OpenAI conversations use"),
)


def surface_sections(matrix: dict[str, Any]) -> list[str]:
    """Returns one section per surface of the table that has rows: the seed's question answered
    from the table of surfaces, what follows for reasoning, and the rows judged for it."""
    from .surfaces import table

    lines: list[str] = []
    for name, chosen in table().items():
        rows = [row for row in matrix["rows"] if row["surface"] == name]
        if not rows:
            continue
        lines += [f"## `{name}`", "", f"*{QUESTION}* **{ANSWERS[chosen.reasoning]}**: {chosen.reader} "
                  f"({chosen.why}). So {RULES[chosen.reasoning]}.", "", *summary_table(matrix, rows), ""]
    return lines


def markdown(matrix: dict[str, Any]) -> str:
    """Returns docs/egress-matrix.md: the rows grouped by surface, then each component's failures."""
    lines = ["# Egress matrix", "", "<!-- generated by `conformance egress-matrix`; do not edit by hand -->", "",
             f"Checked on {matrix['checked']} against the {matrix['conversations']} shipped egress conversations "
             "(`specs/egress/`). Each row is a real library's own serializer, stream, tracer or store, driven offline "
             "with the settings shown (`conformance/egress/adapters/`): models and SDKs through mock transports or "
             "the library's own test model, browser streams served on 127.0.0.1 and read as a browser reads them, "
             "tracers through their real exporters into in-memory or local sinks (a conversation whose reply was "
             "streamed is asked for with `stream=True` and read to its end, as a streaming agent does), task "
             "records on PostgreSQL and "
             "Redis servers started on 127.0.0.1. Each row is judged for the surface its output goes to "
             "(`specs/egress/surfaces.yaml`). *Leaked* lists the canary kinds found; no canary's text is ever "
             "shown. *Smallest fix today* is a setting of a row of the same library that conforms here when there "
             "is one, else the library's own setting, else what a team must do itself.", "",
             *surface_sections(matrix), "## Not measured", "",
             "| library | surface | why |", "| --- | --- | --- |",
             *[f"| {lib} | {where} | {why} |" for lib, where, why in NOT_MEASURED], "", "## Per component", ""]
    for row in matrix["rows"]:
        lines += [f"### `{row['component']}`", ""]
        if not row["installed"]:
            lines += [f"{row['library']} is not installed (`pip install -e \".[peers]\"`).", ""]
            continue
        lines += [f"{row['library']} {row['version']}, `{row['callable']}` with {row['setting']}; surface "
                  f"`{row['surface']}`, format `{row['format']}`, {row['conversations']} conversations: "
                  f"**{verdict(row)}**.", ""]
        if row["failures"]:
            lines += ["| check | conversations | smallest conversation | see it |", "| --- | ---: | --- | --- |"]
            for cid, n in row["failures"].items():
                small = row["smallest"][cid]
                command = (f"conformance egress --target {_module_attr(row)} --surface {row['surface']} "
                           f"--format {row['format']} -k {small}")
                lines.append(f"| `{cid}` | {n} | `{small}` | `{command}` |")
            lines.append("")
            lines += [f"Smallest fix today: {smallest_fix(row, matrix['rows'])}.", ""]
    return "\n".join(lines)


def _module_attr(row: dict[str, Any]) -> str:
    from .adapters import components

    return next((c.callable for c in components() if c.name == row["component"]), "?")


RECORD = published.Record(command="egress-matrix", key="component", count="conversations", noun="component")
changed_cells, check_against = RECORD.changed_cells, RECORD.check_against  # this record's comparison


def _select(names: Sequence[str]) -> list[Component]:
    return select(list(names))


SUITE = Suite(name="egress", stem="egress-matrix", key="component", noun="component",
              install='pip install "context-conformance[peers]"', select=_select, specs=shipped_folder,
              load=load, cases=lambda loaded: loaded.conversations, build=build, summary_table=summary_table,
              markdown=markdown, check_against=check_against, unavailable=(servers.ServerUnavailable,))
