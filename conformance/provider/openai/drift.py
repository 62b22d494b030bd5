"""What ``conformance drift`` compares of a judged OpenAI recording: the input items of the task in
flight that were reached, and the reason of a rejection (the Responses API has no prefix check of
replayed reasoning)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


def _reason(evidence: Mapping[str, Any]) -> dict[str, Any] | None:
    """Returns ``{status, type, code, message}`` of a recorded rejection (digits and call ids in the
    message masked), or None when there was none."""
    error = evidence.get("error")
    if not isinstance(error, Mapping):
        return None
    message = re.sub(r"\b(call|fc|msg|rs|resp)_[A-Za-z0-9]+", r"\1_#", str(error.get("message") or ""))
    return {"status": error.get("status"), "type": error.get("type"), "code": error.get("code"),
            "message": re.sub(r"\d+", "#", message)}


def drift_facts(details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
    """Returns ``live`` (the input items of the task in flight that were reached, by index),
    ``reason`` (the rejection, or None) and ``binding`` (None: no prefix check) of one judged
    recording's ``details``."""
    return {"live": {"items": list(details.get("reached") or [])},
            "reason": _reason(details.get("evidence") or {}), "binding": None}
