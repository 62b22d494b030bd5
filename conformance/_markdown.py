"""Markdown text shared by every report writer (the run summary and the drift report)."""

from __future__ import annotations

import html
from typing import Any


def cell(value: Any) -> str:
    """Returns ``value`` as safe text for one Markdown table cell (HTML-escaped, no pipes or newlines)."""
    text = html.escape(str(value), quote=False)
    return text.replace("|", "\\|").replace("\r", " ").replace("\n", " ").replace("`", "'")
