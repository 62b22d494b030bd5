"""index.html: one self-contained page (inline CSS, no network) that shows the verdict at a glance.

Verdict and counts first, then targets side by side, the scenario and probe matrices, pass counts
per family and invariant, and a timeline for each failing scenario. Rendered by Jinja2 from
``templates/index.html.j2`` (the page's markup; this module gives it the view's values), every
value escaped (``conformance._html``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._html import Markup, render as rendered
from ..engine.results import SHOWN
from .html_style import CSS

_SYMBOL = {"pass": "✓", "fail": "✗", "error": "!", "skip": "–", "xfail": "x", "xpass": "X"}


def anchor(target: str, scenario: str) -> str:
    """Returns the element id of a failure section (only letters, digits, dashes)."""
    raw = f"f-{target}-{scenario}"
    return "".join(ch if ch.isalnum() else "-" for ch in raw)


def _css_name(kind: Any) -> str:
    """Returns a block type as a class name: letters and digits, the rest dashes, at most 40 characters."""
    return "".join(ch if ch.isalnum() else "-" for ch in str(kind))[:40]


def _why(view: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    """Returns what decided the verdict, for the banner: ``(kind, value, value)`` per part."""
    probes = sum(1 for row in view["probes"]["rows"] for c in row["cells"].values()
                 if c["outcome"] in ("fail", "error"))
    parts: list[tuple[str, Any, Any]] = [("target", t["name"], t["gating"]) for t in view["targets"] if t["gating"]]
    if view["probes"].get("cut") and view["probes"]["failing"]:  # the rows shown are not all of them
        parts.append(("cut", view["probes"]["failing"], probes))
    elif probes:
        parts.append(("probes", probes, None))
    if view["spec_errors"]:
        parts.append(("spec", len(view["spec_errors"]), None))
    if not parts and view["targets"]:
        parts.append(("every", len(view["targets"]), None))
    return parts


def render(view: Mapping[str, Any], header: Mapping[str, Any]) -> str:
    """Returns index.html for a report view and the results.jsonl header record."""
    from ..drift.render import html_section

    totals = view["totals"]
    return str(rendered("conformance.report", "index.html.j2", compact=True, view=view, header=header,
                        run_info=header.get("run_info", {}), css=Markup(CSS), why=_why(view),
                        chips=[o for o in SHOWN if totals.get(o)], shown=SHOWN, symbol=_SYMBOL,
                        shown_failures=totals.get("fail", 0) + totals.get("error", 0) + totals.get("xpass", 0),
                        families=sorted(view["families"].items()), anchor=anchor, css_name=_css_name,
                        drift=html_section(view["drift"]) if view.get("drift") else Markup(""))) + "\n"
