"""The HTML drawing of one transcript timeline: settled and live spans, blocks by type, edits marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape as e
from typing import Any


def _where(row: Mapping[str, Any]) -> str:
    left = f"in[{row['index']}]" if row["index"] is not None else "—"
    right = f"out[{row['out_index']}]" if row["out_index"] is not None else "—"
    return f"{left} → {right}"


def _block(block: Mapping[str, Any]) -> str:
    kind = "".join(ch if ch.isalnum() else "-" for ch in str(block["type"]))[:40]
    status = block["status"]
    note = "" if status == "kept" else f'<span class="bs">{e(status)}</span>'
    return (f'<span class="blk t-{e(kind)} s-{e(status)}" title="{e(block["label"])}">'
            f'<b>{e(str(block["type"]))}</b> {e(block["label"].partition(" ")[2])}{note}</span>')


def render(rows: Sequence[Mapping[str, Any]], live_start: int | None, unanswered: Sequence[str] = ()) -> str:
    """Returns the timeline as an HTML fragment (every string escaped)."""
    parts = ['<ol class="tl">']
    marked = False
    for row in rows:
        index = row["index"]
        if not marked and live_start is not None and index is not None and index >= live_start:
            parts.append(f'<li class="boundary">▼ task in flight starts here: input[{live_start}] '
                         f'(truth.live_start){_unanswered(unanswered)}</li>')
            marked = True
        blocks = "".join(_block(b) for b in row["blocks"]) or '<span class="blk s-kept">(no content)</span>'
        if row.get("note"):
            blocks += f'<span class="note">{e(row["note"])}</span>'
        parts.append(f'<li class="msg sp-{e(row["span"])} m-{e(row["status"])}">'
                     f'<span class="where">{e(_where(row))}</span>'
                     f'<span class="role r-{e(row["role"])}">{e(row["role"])}</span>'
                     f'<span class="ms">{e(row["status"])}</span>'
                     f'<span class="blocks">{blocks}</span></li>')
    if not marked and live_start is not None:
        parts.append(f'<li class="boundary">▼ no task in flight: the history ends settled '
                     f'(truth.live_start = {live_start})</li>')
    parts.append("</ol>")
    return "".join(parts)


def _unanswered(ids: Sequence[str]) -> str:
    return f"; unanswered: {e(', '.join(ids))}" if ids else ""
