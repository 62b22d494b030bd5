"""``conformance explain`` on an Anthropic probe: the edits, the messages with the live span marked,
and what a recording cleared against the prediction."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ...engine.history_lines import messages_lines
from ..table import problem_line

if TYPE_CHECKING:
    from ...engine.results import CheckResult
    from .probes import Probe


def probe_lines(probe: Probe) -> list[str]:
    """Returns the betas and edits, the messages with the live span marked, the declared truth and
    the prediction."""
    messages = probe.messages()
    live = probe.live
    edits = (probe.request.get("context_management") or {}).get("edits") or []
    lines = [f"  family {probe.family} · betas {', '.join(probe.betas) or 'none'}",
             f"  edits: {json.dumps(edits) if edits else 'none'}"
             + (f" · compaction: {json.dumps(probe.request['compaction'])}" if probe.request.get("compaction") else ""),
             "", f"messages ({len(messages)}):", *messages_lines(messages, live.from_message), "",
             "truth (declared live span):",
             (f"  from message {live.from_message}; tool uses {', '.join(live.tool_use_ids) or 'none'}; "
              f"thinking turns {', '.join(map(str, live.thinking_turns)) or 'none'}"),
             "", "expected (documented prediction):"]
    lines += [f"  {key}: {json.dumps(value)}" for key, value in probe.predict.items()]
    if getattr(probe, "script", None) is not None:
        lines.append("  (the history is built live when recorded: the assistant turns above are the shape the "
                     "server must produce)")
    return lines


def recording_lines(result: CheckResult) -> list[str]:
    """Returns the verdict of one recording against the prediction, what it cleared and what of the
    task in flight it reached, or the problem line of one that could not be judged."""
    if result.outcome not in ("pass", "fail"):
        return [problem_line(result)]
    d = result.details
    match = "as predicted" if result.outcome == "pass" else "CONTRADICTS the prediction"
    lines = [f"    verdict {d['verdict']}, {match} ({d['predicted']})"]
    cleared = [*d.get("cleared_tool_use_ids", []), *(f"thinking turn {n}" for n in d.get("cleared_thinking_turns", []))]
    lines.append(f"    cleared: {', '.join(map(str, cleared)) or 'nothing'}"
                 + ("; summarised the prompt" if d.get("summarized") else "")
                 + (f"; rejected with {d['error_code']}" if d.get("error_code") else ""))
    live = [*d.get("reached_tool_use_ids", []), *(f"thinking turn {n}" for n in d.get("reached_thinking_turns", []))]
    size = d["live_task"]  # as the probe's provider measures it
    words = "; ".join(d.get("live_evidence") or [])
    lines.append(f"    task in flight ({size['tool_steps']} tool steps): "
                 + (f"FINDING: {words}" if words else
                    f"FINDING: its {', '.join(map(str, live))} were cleared or summarised" if live else "untouched"))
    if result.outcome == "fail":
        lines.append(f"    {result.message}")
    return lines
