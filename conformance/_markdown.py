"""Markdown text shared by every report writer (the run summary and the drift report)."""

from __future__ import annotations

import html
from typing import Any


def cell(value: Any) -> str:
    """Returns ``value`` as safe text for one Markdown table cell (HTML-escaped, no pipes or newlines)."""
    text = html.escape(str(value), quote=False)
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ").replace("`", "'")


def replace_block(text: str, start: str, end: str, block: str) -> str | None:
    """Returns ``text`` with the one block from marker ``start`` to marker ``end`` (both included)
    replaced by ``block``; None when the text has not exactly one of each marker."""
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        return None
    head, rest = text.split(start, 1)
    return head + block + rest.split(end, 1)[1]
