"""The pages' templates (``conformance._html``): every value escaped as ``html.escape`` does, markup
the code built written as it is, a compact template written as one line."""

from __future__ import annotations

from conformance._html import Markup, render


def _section(verdict: object) -> str:
    return render("conformance.drift", "section.html.j2", compact=True, verdict=verdict,
                  counts={"breaking": 1, "additive": 0, "noise": 0}, probes=1,
                  changes=[({"category": "breaking", "probe": "p<1>", "path": "a.b", "rule": "r & 'q'"}, '"x"', None)])


def test_every_value_is_escaped_and_markup_is_not() -> None:
    page = _section("<b>BREAKING</b>")
    assert "<b>BREAKING</b>" not in page and "&lt;b&gt;BREAKING&lt;/b&gt;" in page
    assert "p&lt;1&gt;" in page and "r &amp; &#x27;q&#x27;" in page and "&quot;x&quot;" in page
    assert "<code>None</code>" in page  # (as an f-string writes it)
    assert "Drift: <b>BREAKING</b> <small>" in _section(Markup("<b>BREAKING</b>"))


def test_a_compact_template_is_one_line_with_its_spaces() -> None:
    page = _section("breaking")
    assert "\n" not in page and "  " not in page
    assert page.startswith('<section id="drift"><h2>Drift: breaking <small>1 breaking · 0 additive · 0 noise · 1 probes')
    assert "<td>r &amp; &#x27;q&#x27;</td>" in page
