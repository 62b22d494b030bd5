"""The inline stylesheet of index.html (no fonts, images or anything fetched)."""

CSS = """
:root{--ok:#1a7f37;--bad:#cf222e;--mid:#9a6700;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328}
main{max-width:1200px;margin:0 auto;padding:16px 20px 60px}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
h2 small{font-weight:normal;color:var(--muted);font-size:13px}
.banner{border-radius:10px;padding:18px 22px;color:#fff}.banner.ok{background:var(--ok)}.banner.bad{background:var(--bad)}
.banner h1{margin:0;font-size:34px;letter-spacing:.5px}.banner .big{font-size:18px;margin:6px 0}
.banner .meta{opacity:.85;font-size:12px;margin:4px 0 0}.banner .chip{background:rgba(255,255,255,.92)}
.banner .why{font-size:16px;margin:6px 0 2px;font-weight:600}
.banner .why code{font-size:15px;background:rgba(255,255,255,.18);padding:0 4px;border-radius:4px}
details>summary{margin:6px 0}
.chip{display:inline-block;border-radius:12px;padding:1px 9px;margin:2px 4px 2px 0;font-size:12.5px;background:var(--bg);color:#1f2328}
.o-pass{color:var(--ok)}.o-fail,.o-error,.o-xpass{color:var(--bad)}.o-xfail{color:var(--mid)}.o-skip{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid var(--line);border-top:5px solid;border-radius:8px;padding:10px 14px;min-width:230px}
.card.ok{border-top-color:var(--ok)}.card.bad{border-top-color:var(--bad)}.card h3{margin:0;font-size:14px}.card p{margin:4px 0}
.card .cv{font-weight:600}.card.ok .cv{color:var(--ok)}.card.bad .cv{color:var(--bad)}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid var(--line);padding:3px 8px;text-align:center}
thead th{background:var(--bg)}th.rowh{text-align:left;font-weight:normal;white-space:nowrap}th.rowh small{color:var(--muted);margin-left:6px}
td.cell.o-pass{background:#dafbe1}td.cell.o-fail,td.cell.o-error,td.cell.o-xpass{background:#ffebe9;font-weight:600}
td.cell.o-xfail{background:#fff8c5}td.cell.o-skip,td.na{color:var(--muted)}td.cell a{color:inherit}
td.frac.good{color:var(--ok)}td.frac.mid{color:var(--mid);background:#fff8c5}td.frac.bad{color:var(--bad);background:#ffebe9}
.two{display:flex;gap:28px;flex-wrap:wrap}
.failure{border:1px solid var(--line);border-left:5px solid var(--bad);border-radius:6px;padding:8px 14px;margin:14px 0}
.failure h3{margin:2px 0;font-size:15px}.desc{color:var(--muted);margin:2px 0 6px}
.checks{margin:4px 0 8px;padding-left:18px}.checks pre{background:var(--bg);padding:6px;margin:4px 0;overflow:auto;font-size:12px}
.lvl{font-size:11px;font-weight:700;color:var(--muted)}.err{color:var(--bad)}
summary{cursor:pointer;color:var(--muted)}
.tl{list-style:none;padding:0;margin:6px 0}.tl li{margin:0}
.msg{display:flex;gap:8px;align-items:baseline;padding:3px 6px;border-left:4px solid transparent}
.sp-settled{background:#f6f8fa;border-left-color:#afb8c1}.sp-live{background:#ddf4ff;border-left-color:#0969da}
.sp-output{background:#dafbe1;border-left-color:var(--ok)}
.boundary{color:#0969da;font-weight:600;padding:4px 6px;border-top:2px dashed #0969da;margin-top:2px}
.where{font:11px ui-monospace,monospace;color:var(--muted);min-width:110px}
.role{font-weight:600;min-width:70px}.ms{font-size:11px;min-width:60px;color:var(--muted)}
.m-removed .ms,.m-changed .ms,.m-added .ms{font-weight:700}
.sp-live.m-removed,.sp-live.m-changed{background:#ffebe9;border-left-color:var(--bad)}.sp-live.m-removed .ms,.sp-live.m-changed .ms{color:var(--bad)}
.sp-settled .blk.s-removed,.sp-settled .blk.s-changed,.sp-settled .blk.s-cleared{background:#fff;border-color:#afb8c1;color:var(--muted)}
.sp-settled .blk .bs{color:var(--muted)}.note{font-size:12px;color:var(--bad);font-style:italic;margin-left:4px}
.sp-settled .note{color:var(--muted)}
.blocks{display:flex;flex-wrap:wrap;gap:4px}
.blk{display:inline-block;border:1px solid var(--line);border-radius:4px;padding:0 6px;font-size:12px;background:#fff}
.blk b{font-weight:600}.bs{margin-left:6px;font-size:10.5px;font-weight:700;text-transform:uppercase}
.t-thinking,.t-redacted_thinking,.t-redacted-thinking{border-color:#8250df}.t-tool_use,.t-tool-use{border-color:#bf8700}
.t-tool_result,.t-tool-result{border-color:#1a7f37}
.s-removed{background:#ffebe9;border-color:var(--bad);text-decoration:line-through;text-decoration-color:var(--bad)}
.s-removed .bs{text-decoration:none;color:var(--bad)}
.s-changed{background:#fff8c5;border-color:#bf8700}.s-changed .bs{color:var(--mid)}
.s-cleared{background:#fff8c5;border-style:dashed;border-color:#bf8700}.s-cleared .bs{color:var(--mid)}
.s-added{background:#dafbe1;border-color:var(--ok)}.s-added .bs{color:var(--ok)}
.legend{font-size:12.5px;color:var(--muted)}.legend .msg{display:inline;padding:1px 6px}
.drift td{text-align:left}.cat-breaking{color:var(--bad);font-weight:700}.cat-additive{color:#0969da}.cat-noise{color:var(--muted)}
"""
