"""Agno's history limits, on Chat Completions messages (the ``openai-chat`` format) held as Agno
``Message`` objects: ``filter_tool_calls`` (what an agent with ``max_tool_calls_from_history`` runs
on the history it replays) and ``AgentSession.get_messages(limit=...)`` (what
``num_history_messages`` asks of the session).

Each message becomes a ``Message`` of the same role, content, tool calls and tool call id; one that
comes back with its tool calls as they were is given back whole, one whose tool calls Agno cut is
given back with the calls left.
"""

from __future__ import annotations

from typing import Any

from .base import Peers

LIBRARY = "agno"
PEERS = Peers(LIBRARY, "agno.utils.message")

Chat = list[dict[str, Any]]


def _to_agno(messages: Chat) -> tuple[list[Any], dict[str, dict[str, Any]]]:
    """Returns ``messages`` as Agno ``Message`` objects, and each source message by the object's id."""
    from agno.models.message import Message

    out, sources = [], {}
    for message in messages:
        obj = Message(role=message["role"], content=message.get("content"), tool_calls=message.get("tool_calls"),
                      tool_call_id=message.get("tool_call_id"))
        sources[obj.id] = message
        out.append(obj)
    return out, sources


def _back(objects: list[Any], sources: dict[str, dict[str, Any]]) -> Chat:
    """Returns the source message of each object, with the tool calls Agno left where it cut them."""
    out = []
    for obj in objects:
        source = sources[obj.id]
        if obj.tool_calls == source.get("tool_calls"):
            out.append(source)
        else:
            message = {k: v for k, v in source.items() if k != "tool_calls"}
            if obj.tool_calls:
                message["tool_calls"] = obj.tool_calls
            out.append(message)
    return out


@PEERS.add("agno.filter_tool_calls", "filter_tool_calls",
           "max_tool_calls=3 (Agent(max_tool_calls_from_history=3))", "openai-chat")
def tool_calls_3(messages: Chat) -> Chat:
    """``filter_tool_calls(messages, max_tool_calls=3)``: keeps the results of the last 3 tool calls."""
    from agno.utils.message import filter_tool_calls

    objects, sources = _to_agno(messages)
    filter_tool_calls(objects, 3)
    return _back(objects, sources)


@PEERS.add("agno.AgentSession.get_messages.limit", "AgentSession.get_messages",
           "limit=keep_turns (Agent(num_history_messages=keep_turns)), the history as one completed run",
           "openai-chat", module="agno.session")
def session_limit(messages: Chat, keep_turns: int = 10) -> Chat:
    """``AgentSession.get_messages(limit=keep_turns)`` over one completed run holding ``messages``."""
    from agno.run.agent import RunOutput
    from agno.run.base import RunStatus
    from agno.session.agent import AgentSession

    objects, sources = _to_agno(messages)
    run = RunOutput(run_id="conformance", messages=objects, status=RunStatus.completed)
    session = AgentSession(session_id="conformance", runs=[run])
    return _back(session.get_messages(limit=keep_turns), sources)
