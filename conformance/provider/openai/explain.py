"""``conformance explain`` on an OpenAI probe: the calls, the input items with the live span marked,
and what a recording showed against the prediction."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..._text import plural
from ...engine.history_lines import sized
from ...engine.transcript import describe_block

if TYPE_CHECKING:
    from ...engine.results import CheckResult
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


# --- an input or output item of a recorded interaction, one line (``conformance explain FILE``) -----

_REASONING_ITEMS = ("reasoning",)
_CIPHER_ITEMS = ("compaction", "compaction_summary")


def _reasoning_texts(item: Mapping[str, Any]) -> list[str]:
    """Returns the reasoning text an OpenAI reasoning item carries (summary and content parts)."""
    parts = [*(item.get("summary") or []), *(item.get("content") or [])]
    return [str(p.get("text")) for p in parts if isinstance(p, Mapping) and isinstance(p.get("text"), str)]


def _part_label(part: Any) -> str:
    """Returns a short label of one content part of an OpenAI message (a text as its prefix)."""
    if isinstance(part, Mapping) and isinstance(part.get("text"), str):
        return describe_block({"type": "text", "text": part["text"]})
    return describe_block(part)


def _openai_label(item: Mapping[str, Any]) -> str:
    """Returns the one-line summary of an OpenAI input item: type, role or ids, a text prefix."""
    kind = str(item.get("type") or "message")
    ident = str(item.get("call_id") or item.get("id") or "")
    if kind == "message":
        content = item.get("content")
        parts = [_part_label(p) for p in (content if isinstance(content, list) else [{"text": content}]
                                          if isinstance(content, str) else [])]
        return f"{item.get('role', '?')!s:<9} " + (" · ".join(parts) or "(no content)")
    if kind in _REASONING_ITEMS:
        texts = _reasoning_texts(item)
        label = sized(f"reasoning {ident}".rstrip(), "\n".join(texts)) if texts else f"reasoning {ident}".rstrip()
        cipher = item.get("encrypted_content")
        return label + (f", encrypted ({len(cipher)} chars)" if isinstance(cipher, str) else "")
    if kind in _CIPHER_ITEMS:
        cipher = item.get("encrypted_content")
        return f"{kind} {ident}".rstrip() + (f", encrypted ({len(cipher)} chars)" if isinstance(cipher, str) else "")
    if kind == "function_call":
        return f"function_call {item.get('name', '?')} {ident}".rstrip()
    return f"{kind} {ident}".rstrip()


_OPENAI_PARTS = ("input_text", "output_text", "input_image", "input_file", "refusal")


def _is_openai(item: Mapping[str, Any]) -> bool:
    """Returns whether a history item is an OpenAI input item (typed, or a message of typed text parts)."""
    if item.get("type", "message") != "message":
        return True
    content = item.get("content")
    return isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") in _OPENAI_PARTS for p in content)


def reasoning_texts(item: Mapping[str, Any]) -> list[str]:
    """Returns the reasoning text of a Responses API reasoning item (none for any other item)."""
    return _reasoning_texts(item) if item.get("type") in _REASONING_ITEMS else []


def input_item_label(item: Mapping[str, Any]) -> str | None:
    """Returns the one-line summary of a Responses API item (type, role or ids, a text prefix;
    reasoning as hash and length), or None when ``item`` is not one (a message of another shape)."""
    return _openai_label(item) if _is_openai(item) else None
