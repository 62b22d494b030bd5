"""The ids of the invariant catalog, as plain data: the names a spec may use in ``expect``.

The spec loader checks ids against this list without importing the catalog (which imports the
spec layer); a test keeps it equal to the catalog's ids.
"""

from __future__ import annotations

INVARIANT_IDS: frozenset[str] = frozenset({
    "call.completes",
    "input.unmutated",
    "output.well-formed",
    "live.untouched-suffix",
    "tools.results-answer-previous",
    "tools.uses-answered-next",
    "tools.unanswered-kept",
    "tools.results-first",
    "reasoning.kept-intact",
    "tools.server-results-kept",
    "opaque.kept-intact",
    "reasoning.live-preserved",
    "assistant.no-trailing-reasoning",
    "assistant.reasoning-leads",
    "reasoning.latest-turn-intact",
    "blocks.no-silent-drop",
    "blocks.fields-preserved",
    "output.idempotent",
    "reference.exact-output",
})
