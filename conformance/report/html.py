"""index.html: one self-contained page (inline CSS, no network) that shows the verdict at a glance.

Verdict and counts first, then targets side by side, the scenario and probe matrices, pass counts
per family and invariant, and a timeline for each failing scenario. Every data string is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape as e
from typing import Any

from ..engine.results import SHOWN
from . import html_timeline
from .html_style import CSS

_SYMBOL = {"pass": "✓", "fail": "✗", "error": "!", "skip": "–", "xfail": "x", "xpass": "X"}


def anchor(target: str, scenario: str) -> str:
    """Returns the element id of a failure section (only letters, digits, dashes)."""
    raw = f"f-{target}-{scenario}"
    return "".join(ch if ch.isalnum() else "-" for ch in raw)


def _fraction(pair: Sequence[int] | None) -> str:
    if not pair or not pair[1]:
        return '<td class="na">–</td>'
    ratio = pair[0] / pair[1]
    tone = "good" if ratio == 1 else ("mid" if ratio >= 0.5 else "bad")
    return f'<td class="frac {tone}">{pair[0]}/{pair[1]}</td>'


def _why(view: Mapping[str, Any]) -> str:
    """Returns the banner's line saying what decided the verdict ("" when there is nothing to add)."""
    failing = [t for t in view["targets"] if t["gating"]]
    probes = sum(1 for row in view["probes"]["rows"] for c in row["cells"].values()
                 if c["outcome"] in ("fail", "error"))
    parts = [f'<code>{e(t["name"])}</code>: {t["gating"]} gating failures' for t in failing]
    if view["probes"].get("cut") and view["probes"]["failing"]:  # the rows shown are not all of them
        parts.append(f'{view["probes"]["failing"]} provider records contradict their prediction '
                     f'({probes} in the rows shown; results.jsonl holds every one)')
    elif probes:
        parts.append(f"{probes} provider recordings contradict their prediction")
    if view["spec_errors"]:
        parts.append(f'{len(view["spec_errors"])} spec errors')
    if not parts and view["targets"]:
        parts.append(f'every MUST holds on {len(view["targets"])} of {len(view["targets"])} targets')
    return f'<p class="why">{" · ".join(parts)}</p>' if parts else ""


def _gating_note(view: Mapping[str, Any]) -> str:
    """Returns the line saying why the gating count differs from the fail and error counts beside it
    (as the terminal's total line counts them), or "" when they agree."""
    totals = view["totals"]
    shown = totals.get("fail", 0) + totals.get("error", 0) + totals.get("xpass", 0)
    if shown == view["gating"]:
        return ""
    return (f'<p class="why" id="gating-note">{view["gating"]} of the {shown} fail, error and xpass results below '
            f'fail the run: those of MUST checks and recorded provider contradictions; a SHOULD failure does not '
            f'(the terminal counts every fail)</p>')


def _banner(view: Mapping[str, Any], header: Mapping[str, Any]) -> str:
    ok = view["ok"]
    chips = "".join(f'<span class="chip o-{o}"><b>{view["totals"][o]}</b> {o}</span>'
                    for o in SHOWN if view["totals"].get(o))
    info = header.get("run_info", {})
    sdk = info.get("sdk", {})
    meta = (f'context-conformance {e(str(header.get("suite_version")))} · command {e(str(header.get("command")))}'
            f' · Python {e(str(info.get("python")))} · anthropic {e(str(sdk.get("anthropic")))}'
            f' · {e(str(header.get("started")))}')
    drift = view.get("drift")
    if drift and not view["checks"]:  # a drift page: its counts are the whole story
        c = drift["counts"]
        big = (f'<p class="big">drift: <b>{c["breaking"]}</b> breaking · {c["additive"]} additive · '
               f'{c["noise"]} noise · {len(drift["probes"])} recordings · exit code {view["exit_code"]}</p>')
    else:
        scope = "".join(f" · {n} {what}" for n, what in ((len(view["targets"]), "targets"),
                                                           (len(view["scenarios"]), "scenarios")) if n)
        big = (f'<p class="big"><span id="checks">{view["checks"]}</span> checks · <span id="gating">'
               f'{view["gating"]}</span> gating failures{scope} · exit code {view["exit_code"]}</p>'
               f'{_gating_note(view)}')
    return (f'<header class="banner {"ok" if ok else "bad"}" id="verdict">'
            f'<h1>{e(view["verdict"])}</h1>{_why(view)}{big}'
            f'{f"<p class=chips>{chips}</p>" if chips else ""}<p class="meta">{meta}</p></header>')


def _targets(view: Mapping[str, Any]) -> str:
    if not view["targets"]:
        return ""
    cards = []
    for t in view["targets"]:
        o = t["summary"]["outcomes"]
        ok = t["gating"] == 0
        counts = " ".join(f'<span class="chip o-{k}">{o[k]} {k}</span>' for k in SHOWN if o.get(k))
        cards.append(f'<div class="card {"ok" if ok else "bad"}"><h3><code>{e(t["name"])}</code></h3>'
                     f'<p class="cv">{e(t["verdict"])}</p><p>{counts}</p>'
                     f'<p>{t["gating"]} gating failures{" · reference" if t["reference"] else ""}</p></div>')
    return f'<section><h2>Targets side by side</h2><div class="cards">{"".join(cards)}</div></section>'


def _scenario_row(s: Mapping[str, Any], targets: Sequence[str]) -> str:
    cells = []
    for t in targets:
        c = s["cells"][t]
        title = ", ".join(c["failing"]) or c["outcome"]
        mark = _SYMBOL[c["outcome"]]
        if c["failing"]:
            mark = f'<a href="#{anchor(t, s["id"])}">{mark} {len(c["failing"])}</a>'
        cells.append(f'<td class="cell o-{c["outcome"]}" title="{e(title)}">{mark}</td>')
    return (f'<tr><th class="rowh" title="{e(s["description"])}"><code>{e(s["id"])}</code>'
            f'<small>{e(s["family"])}</small></th>{"".join(cells)}</tr>')


def _matrix(view: Mapping[str, Any]) -> str:
    """Returns the scenarios × targets table: rows with a problem first, the rows that pass on
    every target folded below them."""
    targets = [t["name"] for t in view["targets"]]
    if not view["scenarios"] or not targets:
        return ""
    head = f'<thead><tr><th>scenario</th>{"".join(f"<th><code>{e(t)}</code></th>" for t in targets)}</tr></thead>'
    bad = [_scenario_row(s, targets) for s in view["scenarios"] if not s["all_pass"]]
    good = [_scenario_row(s, targets) for s in view["scenarios"] if s["all_pass"]]
    table = f'<table class="matrix">{head}<tbody>{"".join(bad)}</tbody></table>' if bad else ""
    folded = (f'<details><summary>{len(good)} scenarios pass on every target</summary><table class="matrix">'
              f'{head}<tbody>{"".join(good)}</tbody></table></details>') if good else ""
    title = f"Scenarios × targets <small>{len(bad)} with a failure</small>" if bad else "Scenarios × targets"
    return f'<section><h2>{title}</h2>{table}{folded}</section>'


def _probes(view: Mapping[str, Any]) -> str:
    probes = view["probes"]
    if not probes["rows"]:
        return ""
    head = "".join(f"<th><code>{e(s)}</code></th>" for s in probes["strategies"])
    rows = []
    for row in probes["rows"]:
        cells = []
        for s in probes["strategies"]:
            c = row["cells"].get(s)
            if c is None:
                cells.append('<td class="na">–</td>')
                continue
            label = (c["verdict"] or c["outcome"]) + (" · emulator" if c.get("emulator") else "")
            if c.get("reached_live") and c["outcome"] == "pass":  # as predicted, and still live work lost
                cells.append(f'<td class="cell o-xfail" title="finding: clears work of the task in flight">'
                             f'⚠ finding: {e(label)}</td>')
                continue
            cells.append(f'<td class="cell o-{c["outcome"]}" title="{e(c["message"] or c["outcome"])}">'
                         f'{_SYMBOL[c["outcome"]]} {e(label)}</td>')
        rows.append(f'<tr><th class="rowh"><code>{e(row["probe"])}</code><small>{e(row["family"])}</small></th>'
                    f'{"".join(cells)}</tr>')
    more = (f'<p class="desc">the first {len(rows)} probes are shown; results.jsonl holds every one</p>'
            if probes.get("cut") else "")
    return (f'<section><h2>Strategies × probes</h2><table class="matrix"><thead><tr><th>probe</th>{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table>{more}</section>')


def _counts(view: Mapping[str, Any]) -> str:
    targets = [t["name"] for t in view["targets"]]
    if not targets:
        return ""
    head = "".join(f"<th><code>{e(t)}</code></th>" for t in targets)
    fam = "".join(f'<tr><th class="rowh">{e(name)}</th>{"".join(_fraction(cells.get(t)) for t in targets)}</tr>'
                  for name, cells in sorted(view["families"].items()))
    inv = "".join(f'<tr><th class="rowh" title="{e(i["statement"])}"><code>{e(i["id"])}</code>'
                  f'<small>{e(i["level"])}</small></th>{"".join(_fraction(i["cells"].get(t)) for t in targets)}</tr>'
                  for i in view["invariants"])
    return (f'<section class="two"><div><h2>Families <small>passing / checked</small></h2><table class="counts">'
            f'<thead><tr><th>family</th>{head}</tr></thead><tbody>{fam}</tbody></table></div>'
            f'<div><h2>Invariants <small>passing / checked</small></h2><table class="counts"><thead><tr>'
            f'<th>invariant</th>{head}</tr></thead><tbody>{inv}</tbody></table></div></section>')


def _failure(f: Mapping[str, Any]) -> str:
    checks = []
    for r in f["results"]:
        diff = r.get("details", {}).get("diff") or []
        pre = f'<pre>{e(chr(10).join(map(str, diff)))}</pre>' if diff else ""
        checks.append(f'<li><span class="lvl">{e(r["level"])}</span> <code>{e(r["invariant"])}</code> '
                      f'<span class="chip o-{e(r["outcome"])}">{e(r["outcome"])}</span> {e(r["message"])}{pre}</li>')
    tally = f.get("tally") or {}
    summary = " · ".join(f"{n} {k}" for k, n in tally.items())
    error = f'<p class="err">the call failed: {e(f["error"])}</p>' if f.get("error") else ""
    if f["timeline"]:
        timeline = html_timeline.render(f["timeline"], f.get("live_start"), f.get("unanswered", ()))
    else:
        timeline = '<p class="desc">timeline not drawn: only the first failing scenarios get one</p>'

    return (f'<article class="failure" id="{anchor(f["target"], f["scenario"])}">'
            f'<h3><code>{e(f["scenario"])}</code> on <code>{e(f["target"])}</code></h3>'
            f'<p class="desc">{e(f["description"])}</p><ul class="checks">{"".join(checks)}</ul>{error}'
            f'<details open><summary>transcript: input against output ({e(summary)})</summary>{timeline}'
            f'</details></article>')


def _failures(view: Mapping[str, Any]) -> str:
    if not view["failures"]:
        return ""
    legend = ('<p class="legend">spans: <span class="msg sp-settled">settled</span> <span class="msg sp-live">'
              'task in flight</span> · edits: <span class="blk s-removed">removed</span> <span class="blk s-changed">'
              'changed</span> <span class="blk s-cleared">cleared</span> <span class="blk s-added">added</span>'
              ' · <span class="msg sp-live m-changed">a red row</span> is an edit inside the task in flight;'
              ' edits to settled history are grey · reasoning blocks show a hash and length, never their text</p>')
    return (f'<section><h2>Failing scenarios ({len(view["failures"])})</h2>{legend}'
            f'{"".join(_failure(f) for f in view["failures"])}</section>')


def _spec_errors(view: Mapping[str, Any]) -> str:
    if not view["spec_errors"]:
        return ""
    items = "".join(f"<li>{e(x)}</li>" for x in view["spec_errors"])
    return f'<section><h2>Spec errors</h2><ul class="err">{items}</ul></section>'


def render(view: Mapping[str, Any], header: Mapping[str, Any]) -> str:
    """Returns index.html for a report view and the results.jsonl header record."""
    from ..drift.render import html_section
    body = "".join([_banner(view, header), _spec_errors(view), _targets(view), _matrix(view), _probes(view),
                    html_section(view["drift"]) if view.get("drift") else "", _counts(view), _failures(view)])
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{e(view["verdict"])} · context-conformance</title><style>{CSS}</style></head>'
            f'<body><main>{body}</main></body></html>\n')
