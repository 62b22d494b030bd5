"""What ``conformance drift`` compares of a judged Anthropic recording: what of the task in flight
was cleared or summarised, the reason of a rejection, and what the prefix check of preserved
thinking did to the thinking a request sent back."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

BOUND_ELSEWHERE = "is bound to a different conversation"  # how a failed prefix check's 400 reads


def _error_reason(evidence: Mapping[str, Any]) -> dict[str, Any] | None:
    """Returns ``{status, type, code, message}`` of a recorded rejection (digits in the message masked),
    or None when there was none."""
    body = evidence.get("error")
    if evidence.get("status") is None and body is None:
        return None
    error = body.get("error") if isinstance(body, Mapping) else None
    error = error if isinstance(error, Mapping) else {}
    details = error["details"] if isinstance(error.get("details"), Mapping) else {}
    message = re.sub(r"\d+", "#", str(error.get("message") or ""))
    return {"status": evidence.get("status"), "type": error.get("type"), "code": details.get("error_code"),
            "message": message}


def _live_items(details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
    """Returns what of the probe's task in flight was cleared or summarised, by id and turn."""
    live_ids = set(probe.live.tool_use_ids) if probe is not None else set()
    return {"parts": list(details.get("live_reached") or []),  # its request summarised shows here
            "tool_results": list(details.get("reached_tool_use_ids") or []),
            "tool_inputs": [i for i in details.get("cleared_tool_inputs") or [] if i in live_ids],
            "thinking_turns": list(details.get("reached_thinking_turns") or [])}


def _binding(details: Mapping[str, Any]) -> str:
    """Returns what the prefix check of preserved thinking did to the thinking a request sent back, in
    words: ``rejected (...)``, ``dropped <paths>``, ``let through <paths>`` or ``passed``."""
    evidence = details.get("evidence") or {}
    message = str((evidence.get("rejection") or {}).get("message") or "")
    if BOUND_ELSEWHERE in message:
        return "rejected (a thinking block is bound to a different conversation)"
    listed = [e for e in evidence.get("input_transformations") or [] if isinstance(e, Mapping)]
    dropped = [str(e.get("path")) for e in listed if e.get("type") == "thinking_dropped"]
    allowed = [str(e.get("path")) for e in listed if e.get("type") == "thinking_mismatch_allowed"]
    said = [*([f"dropped {', '.join(dropped)}"] if dropped else []), *([f"let through {', '.join(allowed)}"]
                                                                         if allowed else [])]
    return "; ".join(said) or "passed"


def drift_facts(details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
    """Returns ``live`` (the tool results and inputs, thinking turns and summarised parts of the task
    in flight that were reached), ``reason`` (the rejection, or None) and ``binding`` (what the prefix
    check did) of one judged recording's ``details``."""
    return {"live": _live_items(details, probe), "reason": _error_reason(details.get("evidence") or {}),
            "binding": _binding(details)}
