"""``conformance explain`` on an OpenAI probe: the calls, the input items with the live span marked,
and what a recording showed against the prediction."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..._text import plural

if TYPE_CHECKING:
    from ...results import CheckResult
    from .probes import OpenAIProbe


def _item_label(item: dict[str, Any]) -> str:
    kind = item.get("type", "message")
    if kind == "message":
        return f"message {item.get('role')}"
    return f"{kind} {item.get('call_id') or item.get('id') or ''}".rstrip()


def probe_lines(probe: OpenAIProbe) -> list[str]:
    """Returns the configuration, the request, the input items of the judged call with the live
    span marked, and the prediction."""
    items = probe.full_input()
    lines = [f"  family {probe.family} · {probe.config_label()}",
             f"  request: {json.dumps({k: v for k, v in probe.call.request.items() if k != 'tools'})}"]
    if probe.before is not None:
        lines.append(f"  after an earlier call ({probe.chain}): {plural(len(probe.before.input), 'input item')}")
    lines += ["", f"input items of the judged call ({len(items)}, as predicted):"]
    lines += [f"  {n:>3} {'live' if n >= probe.live_from else '    '} {_item_label(i)}" for n, i in enumerate(items)]
    lines += ["", "truth (declared live span):", f"  from item {probe.live_from}", "",
              "expected (documented prediction):"]
    return lines + [f"  {key}: {json.dumps(value)}" for key, value in probe.predict.items()]


def recording_lines(result: CheckResult) -> list[str]:
    """Returns the verdict of one recording against the prediction and its evidence, or why it
    could not be judged."""
    if result.outcome not in ("pass", "fail"):
        return [f"    {result.outcome.upper()}: {result.message}"]
    d = result.details
    match = "as predicted" if result.outcome == "pass" else "CONTRADICTS the prediction"
    return [f"    verdict {d['verdict']}, {match} ({d['predicted']})", f"    evidence: {d['evidence_line']}"]
