"""What a row of the peer matrix says in words: its verdict, and the command that shows a failing cell
(read by the Markdown and the HTML pages alike)."""

from __future__ import annotations

from typing import Any


def explain_command(row: dict[str, Any], scenario: str) -> str:
    """Returns the ``conformance explain`` command that shows a failing cell."""
    fmt = "" if row["format"] == "anthropic" else f" --format {row['format']}"
    return f"conformance explain {scenario} --target {row['callable']}{fmt}"


def verdict(row: dict[str, Any]) -> str:
    """Returns a row's verdict in words."""
    if not row["installed"]:
        return "not installed"
    if not row["expressible"]:
        return "no scenario expressible in its format"
    if not row["failures"]:
        return "passes every MUST" + ("" if row["changed"] else " (it changed no history)")
    return f"fails in {row['failing_scenarios']} of {row['expressible']} scenarios"
