"""LiteLLM's client-side ``context_management`` for providers that lack it: its ``clear_tool_uses_20250919``
editor, run by ``apply_context_management`` as LiteLLM runs it before forwarding an Anthropic-shaped
``/v1/messages`` request (the ``anthropic`` format: LiteLLM edits that shape itself).

The edit's trigger counts tool uses (``{"type": "tool_uses", "value": 0}``: clear whenever any
clearable use is past ``keep``), so no tokenizer decides whether it runs.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from .base import Peers

# LiteLLM fetches its model cost map from the network when it is first imported unless told to read
# the copy it ships; a peer never touches the network
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

LIBRARY = "litellm"
MODULE = "litellm.llms.anthropic.messages.context_management"
MODEL = "claude-sonnet-4-5"  # the model named in the request: LiteLLM counts the tokens it frees with its tokenizer
PEERS = Peers(LIBRARY, MODULE)


def _edit(keep: int, clear_inputs: bool) -> dict[str, Any]:
    """Returns the ``clear_tool_uses_20250919`` edit with these settings."""
    edit: dict[str, Any] = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 0},
                            "keep": {"type": "tool_uses", "value": keep}}
    if clear_inputs:
        edit["clear_tool_inputs"] = True
    return edit


def _apply(messages: list[dict[str, Any]], edit: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the messages LiteLLM forwards after ``apply_context_management`` with ``edit``."""
    from litellm.llms.anthropic.messages.context_management.dispatcher import apply_context_management

    result = asyncio.run(apply_context_management(model=MODEL, messages=list(messages), tools=None, system=None,
                                                  context_management_spec={"edits": [edit]}))
    return list(result.messages)


@PEERS.add("litellm.clear_tool_uses", "apply_context_management",
           'edits=[{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 0}, "keep": '
           '{"type": "tool_uses", "value": 3}}]')
def clear_tool_uses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``clear_tool_uses_20250919`` with keep=3, triggered by any tool use past it."""
    return _apply(messages, _edit(3, clear_inputs=False))


@PEERS.add("litellm.clear_tool_uses.inputs-keep-1", "apply_context_management",
           'edits=[{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 0}, "keep": '
           '{"type": "tool_uses", "value": 1}, "clear_tool_inputs": true}]')
def clear_tool_uses_and_inputs(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``clear_tool_uses_20250919`` with keep=1 and ``clear_tool_inputs``, triggered by any tool use past it."""
    return _apply(messages, _edit(1, clear_inputs=True))
