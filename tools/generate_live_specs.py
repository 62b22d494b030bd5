#!/usr/bin/env python3
"""Writes the scenarios that put real content inside the task in flight: ``specs/live-content.yaml``,
``specs/live-media.yaml`` and ``specs/live-turns.yaml``.

Each scenario is settled tasks followed by one task in flight, so the boundary is known by
construction. Tool results of 2-40 KB, results whose content is a list, error results, images and
documents in the request that opened the task, ``cache_control`` and citations, unknown fields and
block types, thinking text with odd whitespace and non-ASCII, paused turns and identical consecutive
messages all sit inside the task in flight, under a window small enough to cut settled history.
The reference output is the documented rule applied to that structure (see ``live_builders.build``);
nothing here imports the harness or the reference.

Deterministic: ``python tools/generate_live_specs.py`` (optionally the output folder) rewrites the
three files byte for byte.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate_specs import (assistant, estimate_tokens, json_flow, mcptoolu, opaque, redacted, render, srvtoolu,  # noqa: E402 - after the sys.path line above
                            text, thinking, tool_result, tool_use, toolu, user)
from live_builders import (CITED, EPHEMERAL, EPHEMERAL_1H, KB, THINK_WS, THINK_WS_2, build,  # noqa: E402 - after the sys.path line above
                           history_of_settled, image, image_url, pdf, pdf_url, plain_document, qa,
                           search_result, short_settled, step, tool_task, with_unknown_fields)
from realistic_content import (csv_text, json_text, log_text, pytest_text, source_text,  # noqa: E402 - after the sys.path line above
                               traceback_text)

Scenario = dict[str, Any]

# --- live-content: tool results, cache_control, citations, unknown fields ----------------------------


def live_content() -> list[Scenario]:
    fam = "live-content"
    out: list[Scenario] = []

    sid = "live-content.large-log-and-source-results-window-4"
    live = [user("The nightly ETL failed at 02:14 — find out why and propose a ﬁx…")]
    live += step(sid, 0, "read_file", {"path": "logs/etl-2026-11-29.log"}, log_text(sid, 18 * KB), think=THINK_WS)
    live += step(sid, 1, "read_file", {"path": "src/etl/loader.py"}, source_text(sid, 26 * KB), think=THINK_WS_2,
                 lead=[text("The loader died on batch 381; reading the loader next.")])
    live += step(sid, 2, "grep", {"pattern": "SerializationFailure", "path": "logs/"}, log_text(sid + "g", 3 * KB))
    out.append(build(sid, "18 KB log, 26 KB source file and 3 KB grep output in a 3-step task in flight, window 4",
                     fam, ["tool-use", "thinking", "large-result"], history_of_settled(sid), live, 4))

    sid = "live-content.40kb-test-run-result-window-2"
    live = [user("Run the full test suite and tell me what broke.")]
    live += step(sid, 0, "run_command", {"command": "pytest -vv"}, pytest_text(sid, 39 * KB), think="Run everything.",
                 result_extra={"cache_control": EPHEMERAL})
    live += step(sid, 1, "http_get", {"url": "https://ci.internal/api/jobs?state=failed"}, json_text(sid, 9 * KB))
    out.append(build(sid, "a 39 KB pytest run (with cache_control) and a 9 KB JSON page in flight, window 2", fam,
                     ["tool-use", "thinking", "large-result", "cache-control"], short_settled(sid), live, 2))

    sid = "live-content.large-result-awaiting-next-call-window-6"
    live = [user("Reconcile the overdue invoices against the payments export.")]
    live += step(sid, 0, "read_file", {"path": "exports/invoices.csv"}, csv_text(sid, 12 * KB),
                 think="Load invoices first.", result_extra={"cache_control": EPHEMERAL_1H})
    call = toolu(f"{sid}:1")
    live.append(assistant([thinking("Now the payments side.", f"{sid}:think1"),
                           text("Invoices loaded (12 KB); fetching the payments export."),
                           tool_use(call, "read_file", {"path": "exports/payments.csv"})]))
    out.append(build(sid, "a 12 KB CSV result in flight, then a call awaiting its result, window 6", fam,
                     ["tool-use", "thinking", "large-result", "cache-control"], history_of_settled(sid), live, 6,
                     unanswered=(call,)))

    sid = "live-content.result-lists-of-text-window-4"
    live = [user("Collect the three service configs and check the pool sizes agree.")]
    live += step(sid, 0, "mcp_fs_read", {"path": "deploy/loader.toml"}, [text(source_text(sid + "a", 2 * KB))],
                 think="One file first.")
    live += step(sid, 1, "mcp_fs_read_many", {"paths": ["deploy/api.toml", "deploy/worker.toml", "deploy/cron.toml"]},
                 [text("# deploy/api.toml\n" + source_text(sid + "b", 3 * KB)),
                  text("# deploy/worker.toml\n" + source_text(sid + "c", 3 * KB)),
                  text("# deploy/cron.toml\npool_size = 4\nretries = 5\n")])
    live += step(sid, 2, "render_graph", {"metric": "pool_in_use", "since": "2h"},
                 [text("pool_in_use, last 2 h (PNG attached)"), image(sid + ":graph")])
    out.append(build(sid, "results whose content is a list: one text, three texts, text and image, window 4", fam,
                     ["tool-use", "thinking", "result-list", "image", "large-result"], history_of_settled(sid),
                     live, 4))

    sid = "live-content.result-list-screenshots-window-2"
    live = [user("Log in to the staging admin and check the billing page renders.")]
    live += step(sid, 0, "browser_navigate", {"url": "https://staging.internal/admin/login"},
                 [text("Navigated. Screenshot 1280x800:"), image(sid + ":login", cache_control=EPHEMERAL)],
                 think="Open the login page.")
    live += step(sid, 1, "browser_fill", {"selector": "#user", "value": "qa-bot"}, [text("filled #user")])
    live += step(sid, 2, "browser_navigate", {"url": "https://staging.internal/admin/billing"},
                 [text("Navigated."), text("Console: 2 warnings (deprecated API)"), image(sid + ":billing"),
                  text("DOM snapshot:\n" + json_text(sid, 4 * KB))])
    out.append(build(sid, "browser results of text and screenshots (one with cache_control) in flight, window 2", fam,
                     ["tool-use", "thinking", "result-list", "image", "cache-control", "large-result"],
                     short_settled(sid), live, 2))

    sid = "live-content.error-results-then-retry-window-4"
    live = [user("Load batch 381 again now that the pool is bigger.")]
    live += step(sid, 0, "run_job", {"job": "load_batch", "batch": 381}, traceback_text(sid, 3 * KB),
                 think="Retry the batch.", result_extra={"is_error": True})
    live += step(sid, 1, "run_job", {"job": "load_batch", "batch": 381, "pool": 8},
                 [text("RuntimeError: load_batch gave up after 5 attempts (batch=381)"),
                  text(traceback_text(sid + "b", 2 * KB))],
                 think="Same failure with a bigger pool; inspect.", result_extra={"is_error": True,
                                                                                  "cache_control": EPHEMERAL})
    live += step(sid, 2, "run_job", {"job": "load_batch", "batch": 381, "pool": 8, "isolation": "read committed"},
                 "batch 381: 5000 rows written in 4.2 s", result_extra={"is_error": False})
    out.append(build(sid, "two is_error results (string and list content) and an is_error false retry, window 4",
                     fam, ["tool-use", "thinking", "tool-error", "cache-control", "large-result", "result-list"],
                     history_of_settled(sid), live, 4))

    sid = "live-content.parallel-results-one-error-window-2"
    a, b, c = (toolu(f"{sid}:{k}") for k in "abc")
    live = [user("Check disk, memory and the replica lag on db-2."),
            assistant([thinking("Three independent checks; run them together.", f"{sid}:t"),
                       tool_use(a, "ssh", {"host": "db-2", "cmd": "df -h"}),
                       tool_use(b, "ssh", {"host": "db-2", "cmd": "free -m"}),
                       tool_use(c, "pg_query", {"host": "db-2", "sql": "select now() - pg_last_xact_replay_timestamp()"})]),
            user([tool_result(c, "permission denied for function pg_last_xact_replay_timestamp", is_error=True),
                  tool_result(a, log_text(sid, 2 * KB)),
                  tool_result(b, [text("              total   used   free\nMem:  64312  60110   4202")])])]
    out.append(build(sid, "three parallel results in another order, one is_error, one a list, window 2", fam,
                     ["tool-use", "thinking", "parallel", "tool-error", "result-list", "large-result"],
                     short_settled(sid), live, 2))

    sid = "live-content.cache-control-on-every-live-block-window-4"
    live = [user([text("You are on release duty today. Ship 2.4.1 to production.", cache_control=EPHEMERAL_1H),
                  text("Start with the changelog check.")])]
    live += step(sid, 0, "read_file", {"path": "CHANGELOG.md"}, source_text(sid, 5 * KB), think="Changelog first.",
                 use_extra={"cache_control": EPHEMERAL}, result_extra={"cache_control": EPHEMERAL})
    live += step(sid, 1, "run_command", {"command": "make release VERSION=2.4.1"},
                 [text("build ok", cache_control=EPHEMERAL), text(pytest_text(sid, 3 * KB))],
                 lead=[text("Changelog is complete; building.", cache_control=EPHEMERAL)],
                 result_extra={"cache_control": EPHEMERAL_1H})
    out.append(build(sid, "cache_control on the request text, a tool use, text and tool results in flight, window 4",
                     fam, ["tool-use", "thinking", "cache-control", "result-list", "large-result"],
                     history_of_settled(sid), live, 4))

    sid = "live-content.citations-from-documents-and-search-results-window-4"
    policy = ("Retry policy. A batch job retries a failed batch at most 5 times. Back-off starts at 100 ms "
              "and doubles. After the fifth failure the job stops and pages on-call.")
    live = [user([plain_document(policy, title="retry-policy.txt", **CITED),
                  text("Does the ETL loader follow our retry policy? Check the code too.")])]
    live += step(sid, 0, "search_docs", {"query": "loader retry back-off"},
                 [search_result("https://wiki.internal/etl/loader", "Loader internals",
                                ["The loader retries 5 times without back-off.",
                                 "Serialization failures are retried immediately."], **CITED),
                  search_result("https://wiki.internal/etl/runbook", "ETL runbook",
                                ["Page on-call after repeated failures."], **CITED)],
                 think="The policy is in the document; the practice is in the wiki.",
                 lead=[text("The policy caps retries at 5 with doubling back-off.",
                            citations=[{"type": "char_location", "cited_text": "A batch job retries a failed batch "
                                        "at most 5 times.", "document_index": 0, "document_title": "retry-policy.txt",
                                        "start_char_index": 14, "end_char_index": 65}])])
    live += step(sid, 1, "read_file", {"path": "src/etl/loader.py"}, source_text(sid, 4 * KB),
                 lead=[text("The wiki says the loader has no back-off.",
                            citations=[{"type": "search_result_location", "cited_text": "The loader retries 5 times "
                                        "without back-off.", "search_result_index": 0,
                                        "source": "https://wiki.internal/etl/loader", "title": "Loader internals",
                                        "start_block_index": 0, "end_block_index": 0}])])
    out.append(build(sid, "citations on live text, a cited text document and cited search results in flight, "
                     "window 4", fam, ["tool-use", "thinking", "citations", "document", "result-list", "large-result"],
                     history_of_settled(sid), live, 4))

    sid = "live-content.citations-web-search-and-documents-in-results-window-2"
    search = srvtoolu(sid)
    call = toolu(f"{sid}:0")
    live = [user("Is psycopg 3.2 affected by the serialization bug we hit? Check upstream and our notes."),
            assistant([thinking("Search upstream first.", f"{sid}:t0"),
                       {"type": "server_tool_use", "id": search, "name": "web_search",
                        "input": {"query": "psycopg 3.2 SerializationFailure retry bug"}},
                       {"type": "web_search_tool_result", "tool_use_id": search, "content": [
                           {"type": "web_search_result", "url": "https://github.com/psycopg/psycopg/issues/0000",
                            "title": "SerializationFailure not retried in pipeline mode",
                            "encrypted_content": opaque(sid + ":r1", 400), "page_age": "3 weeks ago"}]},
                       text("Upstream reports the failure is not retried in pipeline mode.",
                            citations=[{"type": "web_search_result_location",
                                        "url": "https://github.com/psycopg/psycopg/issues/0000",
                                        "title": "SerializationFailure not retried in pipeline mode",
                                        "encrypted_index": opaque(sid + ":i1", 40),
                                        "cited_text": "SerializationFailure is not retried in pipeline mode"}]),
                       tool_use(call, "notes_fetch", {"id": "etl-incidents"})]),
            user([tool_result(call, [
                {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                                "data": log_text(sid, 3 * KB)},
                 "title": "etl-incidents.md", **CITED},
                text("2 more pages available")], cache_control=EPHEMERAL)])]
    out.append(build(sid, "web search result and cited text, then a tool result holding a cited document, window 2",
                     fam, ["tool-use", "thinking", "citations", "server-tool", "document", "result-list",
                           "cache-control", "large-result"], short_settled(sid), live, 2))

    sid = "live-content.unknown-fields-on-client-blocks-window-4"
    live = [user([text("Rotate the API key of the billing service.", x_client_message_id="msg_7f3a",
                       x_priority=2),
                  image(sid + ":ticket", x_ocr={"lang": "en", "confidence": 0.93})])]
    live += step(sid, 0, "vault_read", {"path": "secret/billing/api"}, "version 41, created 2026-08-02",
                 think="Read the current key version first.",
                 use_extra={"caller": {"type": "direct"}, "x_audit": {"ticket": "SEC-1182"}},
                 result_extra={"x_duration_ms": 112, "x_cache": None})
    use = toolu(f"{sid}:1")
    live += [assistant([dict(thinking("Write a new version.", f"{sid}:think1"), x_budget_used=41),
                        dict(redacted(f"{sid}:r1"), x_origin="safety"),
                        text("Version 41 is current; writing version 42.", x_render="markdown"),
                        tool_use(use, "vault_write", {"path": "secret/billing/api", "rotate": True},
                                 x_dry_run=False)]),
             user([tool_result(use, [text("version 42 written", x_lang="en")], x_retries=0),
                   text("Don't restart the service yet.", x_sent_from="mobile")])]
    out.append(build(sid, "unknown fields on text, image, thinking, redacted_thinking, tool_use and tool_result "
                     "in flight, window 4", fam, ["tool-use", "thinking", "redacted-thinking", "unknown-field",
                                                  "image", "result-list"], history_of_settled(sid), live, 4))

    sid = "live-content.unknown-fields-on-server-and-mcp-blocks-window-2"
    search = srvtoolu(sid)
    mcp = mcptoolu(sid)
    call = toolu(f"{sid}:0")
    live = [user([text("Find the vendor's status page and open a ticket if the incident is still open."),
                  {"type": "document", "source": {"type": "url", "url": "https://vendor.example/sla.pdf"},
                   "title": "SLA", **CITED, "x_pages_hint": 12}]),
            assistant([dict(thinking("Search, then file via the ticketing MCP server.", f"{sid}:t0"), x_effort="low"),
                       {"type": "server_tool_use", "id": search, "name": "web_search",
                        "input": {"query": "vendor.example status incident"}, "caller": {"type": "direct"},
                        "x_region": "eu"},
                       {"type": "web_search_tool_result", "tool_use_id": search, "x_result_count": 1, "content": [
                           {"type": "web_search_result", "url": "https://status.vendor.example/incidents/812",
                            "title": "Degraded API latency", "encrypted_content": opaque(sid + ":r", 300),
                            "page_age": "2 hours ago"}]},
                       {"type": "mcp_tool_use", "id": mcp, "name": "create_ticket", "server_name": "tickets",
                        "input": {"title": "Vendor incident 812", "severity": 3}, "x_trace": "t-991"},
                       {"type": "mcp_tool_result", "tool_use_id": mcp, "is_error": False,
                        "content": [text("ticket OPS-4410 created")], "x_latency_ms": 380},
                       {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w", "x_bytes": 48213},
                       tool_use(call, "notify", {"channel": "#ops", "text": "OPS-4410 filed"})]),
            user([tool_result(call, "posted", x_delivery="ok")])]
    out.append(build(sid, "unknown fields on document, server tool, web search, MCP and container blocks in flight",
                     fam, ["tool-use", "thinking", "server-tool", "unknown-field", "unknown-block", "document",
                           "citations"], short_settled(sid), live, 2))

    sid = "live-content.future-block-types-in-flight-window-4"
    live = [user([text("Walk me through rack C2's airflow."),
                  {"type": "voice_note_20270301", "duration_s": 14.5, "transcript_hint": "the hot aisle one",
                   "audio": opaque(sid + ":v", 200)}])]
    live += step(sid, 0, "sensor_grid", {"rack": "C2"},
                 [text("24 sensors, 2 over 35 C"),
                  {"type": "heatmap_20270101", "grid": [[31.5, 33.0, 35.5], [30.0, 34.0, 36.5]], "unit": "C"},
                  text(csv_text(sid, 2 * KB))],
                 think="Pull the sensor grid.",
                 lead=[{"type": "hologram_20270101", "id": "holo_01Xq3v9QpL2mN8sT4wY6zB2c",
                        "scene": {"frames": 24, "anchor": [0.0, 1.5, -2.0]}, "render_hint": "low-motion"}])
    out.append(build(sid, "unknown block types in the request, the tool turn and a tool result list in flight",
                     fam, ["tool-use", "thinking", "unknown-block", "unknown-field", "result-list"],
                     history_of_settled(sid), live, 4))
    for k, (size, tail) in enumerate(((26, "result"), (12, "list"), (20, "awaiting"))):
        sid = f"live-content.budget-drops-settled-keeps-{size}kb-live-{tail}"
        settled = [tool_task(f"{sid}:b{n}", f"Summarise last night's {unit} log.", "read_file",
                             {"path": f"logs/{unit}.log"}, log_text(f"{sid}:b{n}", 10 * KB),
                             f"The {unit} log is clean apart from {n + 2} retries.")
                   for n, unit in enumerate(("api", "worker", "cron", "billing", "search"))]
        live = [user([pdf(sid, "Incident 812", title="incident-812.pdf", **CITED) if tail == "list" else
                      text("The loader is slow again; find out why."), text("Start with the code.")])]
        unanswered: tuple[str, ...] = ()
        if tail == "list":
            live += step(sid, 0, "profile", {"target": "loader", "seconds": 30},
                         [text(source_text(sid, size * KB)), image(sid + ":flame")], think=THINK_WS)
        else:
            live += step(sid, 0, "read_file", {"path": "src/etl/loader.py"}, source_text(sid, size * KB),
                         think=THINK_WS)
        if tail == "awaiting":
            call = toolu(f"{sid}:await")
            live.append(assistant([thinking("Now the profile.", f"{sid}:t9"),
                                   tool_use(call, "profile", {"target": "loader", "seconds": 30})]))
            unanswered = (call,)
        # the task's first call drops the oldest settled task; the task then outgrows the budget beside the
        # rest, and settled history is never re-trimmed under a task in flight: the reference refuses
        budget = 9 * estimate_tokens([m for task in settled for m in task]) // 10 + 10 * k
        out.append(build(sid, f"a {size} KB task in flight outgrows the budget its first call met by dropping "
                         "settled tasks", fam, ["tool-use", "thinking", "budget", "large-result"]
                         + (["result-list", "image", "document", "citations"] if tail == "list" else []),
                         settled, live, 30, unanswered=unanswered, budget_tokens=budget))

    for variant, keep, marked in (("every-block-kind", 3, False), ("every-block-kind-unknown-fields", 2, True),
                                  ("every-block-kind-unknown-fields-window-5", 5, True),
                                  ("every-block-kind-unknown-fields-window-8", 8, True)):
        sid = f"live-content.{variant}" + ("" if variant.endswith(("5", "8")) else f"-window-{keep}")
        live = every_block_kind(sid)
        settled = history_of_settled(sid) if keep != 2 else short_settled(sid)
        what = "with an unknown field on every block" if marked else "each as the API defines it"
        out.append(build(sid, f"every block kind in one task in flight, {what}, window {keep}", fam,
                         ["tool-use", "thinking", "redacted-thinking", "server-tool", "unknown-block", "image",
                          "document", "citations", "cache-control", "result-list", "tool-error", "large-result"]
                         + (["unknown-field"] if marked else []), settled,
                         with_unknown_fields(live, sid) if marked else live, keep))
    return out


def every_block_kind(sid: str) -> list[dict[str, Any]]:
    """Returns a task in flight that holds every kind of block a request may carry."""
    search, mcp = srvtoolu(sid), mcptoolu(sid)
    fetch, bash = srvtoolu(sid + ":fetch"), srvtoolu(sid + ":bash")
    first, second = toolu(f"{sid}:0"), toolu(f"{sid}:1")
    cite = {"type": "search_result_location", "cited_text": "Churn rose to 3.1 %.", "search_result_index": 0,
            "source": "https://wiki.internal/finance/q4", "title": "Q4 notes", "start_block_index": 0,
            "end_block_index": 0}
    return [
        user([text("Prepare the Q4 board summary from these (≤ 1 page, m² and € as in the draft)…", cache_control=EPHEMERAL), image(sid + ":slide"),
              pdf_url("https://docs.example.com/q4/draft.pdf", title="Q4 draft", **CITED),
              search_result("https://wiki.internal/finance/q4", "Q4 notes", ["Churn rose to 3.1 %."], **CITED),
              {"type": "sticky_note_20270301", "color": "yellow", "text": "board meets Thursday"}]),
        assistant([thinking(THINK_WS, f"{sid}:t0"), redacted(f"{sid}:r0"),
                   text("Churn is up per the notes: 3.1 % (Q3: 2.9 %)…", citations=[cite], cache_control=EPHEMERAL),
                   {"type": "server_tool_use", "id": search, "name": "web_search",
                    "input": {"query": "SaaS churn benchmark 2026"}},
                   {"type": "web_search_tool_result", "tool_use_id": search, "content": [
                       {"type": "web_search_result", "url": "https://benchmarks.example.org/churn-2026",
                        "title": "Churn benchmarks 2026", "encrypted_content": opaque(sid + ":w", 300),
                        "page_age": "1 month ago"}]},
                   {"type": "mcp_tool_use", "id": mcp, "name": "crm_query", "server_name": "crm",
                    "input": {"segment": "enterprise", "quarter": "Q4"}},
                   {"type": "mcp_tool_result", "tool_use_id": mcp, "is_error": False,
                    "content": [text("enterprise churn: 1.2 %")]},
                   {"type": "server_tool_use", "id": fetch, "name": "web_fetch", "caller": {"type": "direct"},
                    "input": {"url": "https://benchmarks.example.org/churn-2026/table.txt"}},
                   {"type": "web_fetch_tool_result", "tool_use_id": fetch, "content": {
                       "type": "web_fetch_result", "url": "https://benchmarks.example.org/churn-2026/table.txt",
                       "retrieved_at": "2026-11-29T09:12:44Z",
                       "content": {"type": "document", "title": "Churn table 2026", **CITED, "source": {
                           "type": "text", "media_type": "text/plain", "data": csv_text(sid + ":fetch", 2 * KB)}}}},
                   {"type": "server_tool_use", "id": bash, "name": "bash_code_execution",
                    "input": {"command": "python3 churn.py --quarter Q4 | tail -3"}},
                   {"type": "bash_code_execution_tool_result", "tool_use_id": bash, "content": {
                       "type": "bash_code_execution_result", "return_code": 0, "stderr": "",
                       "stdout": "segment  churn\nSMB      4.2 %\nenterprise 1.2 %\n", "content": []}},
                   {"type": "container_upload", "file_id": "file_011CNq4b8Wz5kR2yT7uV3xA9"},
                   {"type": "chart_20270101", "spec": {"kind": "line", "series": ["churn"]}},
                   tool_use(first, "spreadsheet_read", {"sheet": "Q4", "range": "A1:H60"})]),
        user([tool_result(first, [text("Q4 sheet, 60 rows:"), text(csv_text(sid, 4 * KB)), image(sid + ":chart"),
                                  search_result("https://wiki.internal/finance/q4-appendix", "Q4 appendix",
                                                ["Net revenue retention 108 %."], **CITED)],
                          cache_control=EPHEMERAL),
              text("Keep it to one page.")]),
        assistant([thinking(THINK_WS_2, f"{sid}:t1"), text("Rendering the summary."),
                   tool_use(second, "render_pdf", {"template": "board", "pages": 1})]),
        user([tool_result(second, traceback_text(sid, 2 * KB), is_error=True)]),
    ]


# --- live-media: images and documents in the request that opened the task ---------------------------


def live_media() -> list[Scenario]:
    fam = "live-media"
    out: list[Scenario] = []

    sid = "live-media.screenshot-and-pdf-open-the-task-window-4"
    live = [user([image(sid + ":shot"), pdf(sid, "Runbook: ETL", title="runbook-etl.pdf", **CITED),
                   text("The dashboard looks like this. What does the runbook say to do?")])]
    live += step(sid, 0, "read_file", {"path": "logs/etl-2026-11-29.log"}, log_text(sid, 8 * KB),
                 think="Match the screenshot with the log.")
    live += step(sid, 1, "runbook_step", {"doc": "runbook-etl", "step": 4}, "paged on-call (ticket OPS-4411)",
                 lead=[text("The runbook says to page on-call after the fifth failure.",
                            citations=[{"type": "page_location", "cited_text": "After the fifth failure the job "
                                        "stops and pages the on-call engineer.", "document_index": 0,
                                        "document_title": "runbook-etl.pdf", "start_page_number": 1,
                                        "end_page_number": 2}])])
    out.append(build(sid, "a base64 screenshot and a cited base64 PDF open the task in flight, window 4", fam,
                     ["tool-use", "thinking", "image", "document", "citations", "large-result"],
                     history_of_settled(sid), live, 4))

    sid = "live-media.image-urls-and-pdf-url-open-the-task-window-2"
    live = [user([image_url("https://assets.example.com/incidents/812/latency.png"), image(sid + ":p99"),
                  pdf_url("https://assets.example.com/incidents/812/postmortem.pdf", **CITED),
                  text("Compare these two graphs with the postmortem's timeline.")])]
    live += step(sid, 0, "metrics_query", {"q": "p99_latency{service='api'}", "range": "6h"}, json_text(sid, 6 * KB),
                 think="Get the raw series.")
    out.append(build(sid, "a url image, a base64 image and a cited url PDF open the task in flight, window 2", fam,
                     ["tool-use", "thinking", "image", "document", "citations", "large-result"],
                     short_settled(sid), live, 2))

    sid = "live-media.documents-of-every-source-open-the-task-window-2"
    live = [user([pdf_url("https://docs.example.com/contracts/msa-2026.pdf", title="MSA 2026", **CITED,
                          cache_control=EPHEMERAL),
                  pdf(sid, "Order form 7", title="order-form-7.pdf", context="signed copy", **CITED),
                  plain_document(csv_text(sid, 3 * KB), title="usage-october.csv", **CITED),
                  {"type": "document", "source": {"type": "content", "content": [
                      text("Clause 9.2: credits are capped at 10 % of the monthly fee."),
                      text("Clause 9.3: credits expire after 12 months.")]}, "title": "sla-excerpt", **CITED},
                  image_url("https://docs.example.com/contracts/msa-2026-sig.png"),
                  text("Given these, how much credit do we owe for October?")])]
    live += step(sid, 0, "calculator", {"expr": "min(0.10 * 18400, 2130)"}, "1840",
                 think="Cap applies: 10 % of 18,400.")
    out.append(build(sid, "url, base64, text and content documents with citations and a url image open the task",
                     fam, ["tool-use", "thinking", "document", "citations", "cache-control", "image"],
                     short_settled(sid), live, 2))

    sid = "live-media.mixed-media-request-after-media-in-settled-window-4"
    settled = history_of_settled(sid)
    settled.append(qa(f"{sid}:s5", [pdf(sid + ":old", "Q3 report", title="q3.pdf", **CITED),
                                    text("Summarise the Q3 report in one line.")],
                      "Revenue up 12 %, churn flat."))
    live = [user([image_url("https://assets.example.com/q4/board-slide.png", x_slide=7),
                  pdf(sid, "Q4 draft", title="q4-draft.pdf", **CITED, x_draft=True),
                  search_result("https://wiki.internal/finance/q4", "Q4 notes", ["Churn rose to 3.1 %."], **CITED,
                                x_rank=1),
                  text("Does the Q4 draft agree with the slide and the notes?")])]
    live += step(sid, 0, "spreadsheet_read", {"sheet": "Q4", "range": "A1:F40"}, csv_text(sid, 5 * KB),
                 think="Numbers behind the slide.")
    out.append(build(sid, "a url image, a base64 PDF and a search result with unknown fields open the task, window 4",
                     fam, ["tool-use", "thinking", "image", "document", "citations", "unknown-field",
                           "large-result"], settled, live, 4))

    sid = "live-media.screenshot-request-awaiting-call-window-2"
    call = toolu(f"{sid}:0")
    live = [user([image(sid + ":err", cache_control=EPHEMERAL), image_url("https://assets.example.com/ui/expected.png"),
                  pdf(sid, "Design spec", title="design.pdf", **CITED),
                  text("The settings page renders like the first image instead of the second. Why?")]),
            assistant([thinking(THINK_WS, f"{sid}:t0"), text("Checking the stylesheet that the page loads."),
                       tool_use(call, "read_file", {"path": "web/settings.css"})])]
    out.append(build(sid, "two images and a PDF open a task whose first call awaits its result, window 2", fam,
                     ["tool-use", "thinking", "image", "document", "citations", "cache-control"],
                     short_settled(sid), live, 2, unanswered=(call,)))
    for keep, settled_of in ((4, short_settled), (5, history_of_settled), (6, history_of_settled)):
        sid = f"live-media.same-attachments-again-in-flight-window-{keep}"
        shot, manual = image("repeated:dashboard"), pdf("repeated:manual", "Loader manual", title="loader.pdf", **CITED)
        question = "Here is the dashboard and the loader manual again. Is batch 381 still failing?"
        output = log_text("repeated:tail", 2 * KB)
        settled = settled_of(sid)
        settled.append(tool_task(f"{sid}:s9", [shot, manual, text(question)], "tail_log", {"lines": 40}, output,
                                 "Yes: batch 381 failed three times in the tail."))
        live = [user([shot, manual, text(question)])]
        live += step(sid, 0, "tail_log", {"lines": 40}, output, think="Same check as yesterday; tail the log again.")
        out.append(build(sid, f"the same screenshot, PDF, request and tool output as a settled task, again in flight, "
                         f"window {keep}", fam, ["tool-use", "thinking", "image", "document", "citations",
                                                 "identical-messages", "large-result"], settled, live, keep))
    return out


# --- live-turns: reasoning text, paused turns, identical messages, windows ---------------------------


def paused(sid: str, lead: list[dict[str, Any]], kind: str = "server_tool_use") -> tuple[dict[str, Any], str]:
    use = srvtoolu(sid) if kind == "server_tool_use" else mcptoolu(sid)
    block: dict[str, Any] = {"type": kind, "id": use, "name": "web_search" if kind == "server_tool_use" else "search",
                             "input": {"query": "psycopg pipeline mode serialization retry"}}
    if kind == "mcp_tool_use":
        block["server_name"] = "kb"
    return assistant([*lead, block]), use


def live_turns() -> list[Scenario]:
    fam = "live-turns"
    out: list[Scenario] = []
    note = ("The paused turn has text but an open server tool use, so it settles nothing: the task in flight "
            "opens on the request before it, and the user message after it belongs to the same task.")

    sid = "live-turns.thinking-whitespace-and-non-ascii-window-4"
    live = [user("Why do the retries not back off?\u00a0Explain in detail (the ﬁx ships Friday).")]
    live += step(sid, 0, "read_file", {"path": "src/etl/retry.py"}, source_text(sid, 3 * KB), think=THINK_WS)
    live += step(sid, 1, "grep", {"pattern": "sleep", "path": "src/etl"}, "retry.py:41:    time.sleep(0)",
                 think=THINK_WS_2)
    live.append(assistant([thinking("  \n\n   trailing and leading blanks matter   \n", f"{sid}:t3"),
                           redacted(f"{sid}:r3"), text("Next I will check the pool settings."),
                           tool_use(toolu(f"{sid}:3"), "read_file", {"path": "deploy/loader.toml"})]))
    live.append(user([tool_result(toolu(f"{sid}:3"), "pool_size = 4\nretries = 5\n")]))
    out.append(build(sid, "thinking with newlines, tabs, runs of spaces, CJK and emoji in three live steps, window 4",
                     fam, ["tool-use", "thinking", "redacted-thinking", "interleaved-thinking", "large-result"],
                     history_of_settled(sid), live, 4))

    sid = "live-turns.paused-turn-then-user-message-window-4"
    turn, _ = paused(sid, [thinking(THINK_WS_2, f"{sid}:t"), text("Searching upstream for the bug.")])
    live = [user("Is the serialization failure a known psycopg bug?"), turn,
            user("Also check whether 3.2.3 ﬁxes it…")]
    out.append(build(sid, "a paused turn (text and an open web search) then a user message: all in flight, window 4",
                     fam, ["server-tool", "pause-turn", "thinking"], history_of_settled(sid), live, 4, note=note))

    sid = "live-turns.paused-turn-user-message-then-tool-loop-window-2"
    turn, _ = paused(sid, [thinking("Search first.", f"{sid}:t"), text("Looking this up.")])
    call = toolu(f"{sid}:0")
    live = [user("Find the fixed psycopg version and pin it."), turn, user("Pin it in requirements.txt only."),
            assistant([thinking("The release notes name 3.2.3.", f"{sid}:t1"), text("3.2.3 fixes it; pinning."),
                       tool_use(call, "edit_file", {"path": "requirements.txt", "old": "psycopg==3.2.1",
                                                    "new": "psycopg==3.2.3"})]),
            user([tool_result(call, "edited requirements.txt (1 line)")])]
    out.append(build(sid, "a paused turn, a user message, then a client tool step: all in flight, window 2",
                     fam, ["server-tool", "pause-turn", "thinking", "tool-use"], short_settled(sid), live, 2,
                     note=note))

    sid = "live-turns.paused-mcp-turn-then-user-message-window-2"
    turn, _ = paused(sid, [text("Querying the knowledge base.", cache_control=EPHEMERAL)], kind="mcp_tool_use")
    live = [user([text("What does our KB say about pipeline mode?"), image(sid + ":kb")]), turn,
            user("Only the 2026 pages, please.")]
    out.append(build(sid, "an MCP turn left open with text, then a user message: all in flight, window 2", fam,
                     ["server-tool", "pause-turn", "cache-control", "image"], history_of_settled(sid), live, 2,
                     note=note))

    sid = "live-turns.identical-stacked-requests-window-2"
    live = [user("Run the migrations on staging."), user("Run the migrations on staging.")]
    live += step(sid, 0, "run_command", {"command": "alembic upgrade head"}, log_text(sid, 2 * KB),
                 think="Sent twice; run once.")
    out.append(build(sid, "the same request sent twice in a row opens the task in flight, window 2", fam,
                     ["tool-use", "thinking", "identical-messages", "large-result"], short_settled(sid), live, 2))

    sid = "live-turns.identical-progress-notes-window-4"
    note_turn = assistant([text("Still scanning the shards; this takes a while.")])
    live = [user("Scan every shard for orphaned rows.")]
    live += step(sid, 0, "scan_shard", {"shard": 1}, csv_text(sid, 2 * KB), think="Shard by shard.")
    live += [note_turn, dict(note_turn)]
    live += step(sid, 1, "scan_shard", {"shard": 2}, "0 orphaned rows")
    out.append(build(sid, "two identical progress notes back to back inside the task in flight, window 4", fam,
                     ["tool-use", "thinking", "identical-messages", "progress-note", "large-result"],
                     history_of_settled(sid), live, 4,
                     note="A text-only turn followed by more assistant work is a progress note: the task goes on."))

    sid = "live-turns.identical-go-on-messages-after-a-result-window-2"
    live = [user("Backfill the missing October rows.")]
    live += step(sid, 0, "run_job", {"job": "backfill", "month": "2026-10"}, log_text(sid, 4 * KB),
                 think="Start the backfill.")
    live += [user("Go on."), user("Go on.")]
    live += step(sid, 1, "run_job", {"job": "backfill", "month": "2026-10", "resume": True}, "done: 18211 rows")
    out.append(build(sid, "two identical user messages after a tool result, in the middle of the task, window 2",
                     fam, ["tool-use", "thinking", "identical-messages", "large-result"], short_settled(sid), live,
                     2, note="No assistant answer precedes the two messages, so they do not open a new task."))

    system_note = ("The answer before the system message settled its task; the system message is the first "
                   "message after it, so the task in flight opens on it, not on the request that follows.")
    for keep, stacked in ((0, False), (1, False), (1, True)):
        sid = f"live-turns.system-message-opens-the-task-window-{keep}" + ("-stacked-requests" if stacked else "")
        live = [{"role": "system", "content": "The user is on the incident bridge; keep answers short.",
                 "clear_at": "next_user_message"},
                user([image(sid + ":graph"), text("Why is p99 latency up since 02:14?")])]
        if stacked:
            live.append(user("And is it still climbing?"))
        live += step(sid, 0, "metrics_query", {"q": "p99_latency{service='api'}", "range": "3h"},
                     json_text(sid, 3 * KB), think=THINK_WS_2)
        out.append(build(sid, f"a system message after an answer opens the task in flight"
                         f"{', then two stacked requests' if stacked else ''}, window {keep}", fam,
                         ["system-message", "tool-use", "thinking", "image", "large-result"],
                         history_of_settled(sid), live, keep, note=system_note))

    for keep in (1, 3, 5, 7):
        sid = f"live-turns.window-{keep}-cuts-settled-media-and-results"
        live = [user([image(sid + ":q"), text("Explain this graph using last night's log.")])]
        live += step(sid, 0, "read_file", {"path": "logs/etl-2026-11-29.log"}, log_text(sid, 6 * KB), think=THINK_WS,
                     result_extra={"cache_control": EPHEMERAL})
        out.append(build(sid, f"window {keep} cuts settled tasks with media and big results; the live image and "
                         "log stay", fam, ["tool-use", "thinking", "image", "cache-control", "large-result",
                                           "result-list"], history_of_settled(sid), live, keep))
    return out


FILES = {
    "live-content.yaml": (live_content, """\
Real content inside the task in flight: tool results of 2-40 KB, results whose content is a list
(text, several texts, text and image), is_error results, cache_control and citations on live
blocks, unknown fields on every block type and unknown block types, each under a window that cuts
settled history. The truth is where the task in flight was built to start.

Generated: do not edit by hand; change tools/generate_live_specs.py and run it again.
"""),
    "live-media.yaml": (live_media, """\
Images and documents (base64, url, text and content sources, with citations) in the request that
opened the task in flight, after settled tasks that carry media of their own.

Generated: do not edit by hand; change tools/generate_live_specs.py and run it again.
"""),
    "live-turns.yaml": (live_turns, """\
Turn shapes inside the task in flight: thinking text with newlines, runs of spaces and non-ASCII;
a paused turn (text and an open server tool use) followed by a user message; identical consecutive
messages; and windows of 1 to 7 messages that cut settled history with media and big results.

Generated: do not edit by hand; change tools/generate_live_specs.py and run it again.
"""),
}


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "specs"
    folder.mkdir(parents=True, exist_ok=True)
    for name, (scenarios, header) in FILES.items():
        (folder / name).write_text(render(scenarios(), header, dump=json_flow), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
