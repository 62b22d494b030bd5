"""langgraph: ``CompiledStateGraph.astream_events(version="v2")``, the event stream a LangGraph app
relays to a browser, on LangChain messages. The graph is one ``MessagesState`` node that walks the
conversation: each AIMessage is one call of a chat model (a ``BaseChatModel`` that streams the
recorded message as langchain-anthropic streams one: thinking and text in small pieces as content
blocks with their ``index``, the signature as its own chunk, tool calls and ``additional_kwargs``
in the last chunk), each other message is appended as it was. The graph gets copies of the
messages (its ``add_messages`` sets an ``id`` on each message it is given). The target is the async
iterator of the events; the fix row relays only ``on_chat_model_stream`` chunks' ``.text``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from .base import Component

PIECE = 13


def _chunks(message: Any) -> Iterator[Any]:
    """Yields the ``AIMessageChunk``s the recorded AIMessage streams as."""
    from langchain_core.messages import AIMessageChunk

    content = message.content if isinstance(message.content, list) else [{"type": "text", "text": message.content}]
    for j, block in enumerate(content):
        block = block if isinstance(block, dict) else {"type": "text", "text": str(block)}
        kind = block.get("type")
        key = "thinking" if kind == "thinking" else "text" if kind == "text" else None
        if key is None:
            yield AIMessageChunk(content=[{**block, "index": j}], id=message.id)
            continue
        text = block.get(key, "")
        for i in range(0, len(text), PIECE):
            yield AIMessageChunk(content=[{"type": kind, key: text[i:i + PIECE], "index": j}], id=message.id)
        if block.get("signature"):
            yield AIMessageChunk(content=[{"type": kind, "signature": block["signature"], "index": j}], id=message.id)
    yield AIMessageChunk(content=[], id=message.id, additional_kwargs=dict(message.additional_kwargs or {}),
                         tool_call_chunks=[{"name": c["name"], "args": __import__("json").dumps(c["args"]),
                                            "id": c["id"], "index": None} for c in getattr(message, "tool_calls", [])],
                         chunk_position="last")


def _model() -> Any:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

    class RecordedChatModel(BaseChatModel):
        """Streams the AIMessage it is handed in ``recorded`` (one per call)."""

        recorded: list[Any]

        @property
        def _llm_type(self) -> str:
            return "recorded"

        def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **_: Any) -> ChatResult:
            message = self.recorded.pop(0)
            return ChatResult(generations=[ChatGeneration(message=AIMessage(**message.model_dump()))])

        def _stream(self, messages: list[Any], stop: Any = None, run_manager: Any = None,
                    **_: Any) -> Iterator[ChatGenerationChunk]:
            message = self.recorded.pop(0)
            for chunk in _chunks(message):
                if run_manager:
                    run_manager.on_llm_new_token("", chunk=ChatGenerationChunk(message=chunk))
                yield ChatGenerationChunk(message=chunk)

    return RecordedChatModel


def _graph(history: list[Any]) -> Any:
    from langchain_core.messages import AIMessage
    from langgraph.graph import START, MessagesState, StateGraph

    model = _model()(recorded=[m for m in history if isinstance(m, AIMessage)])
    first = next((i for i, m in enumerate(history) if isinstance(m, AIMessage)), len(history))

    def agent(state: MessagesState) -> dict[str, Any]:
        new: list[Any] = []
        for message in history[first:]:
            new.append(model.invoke(list(state["messages"]) + new) if isinstance(message, AIMessage) else message)
        return {"messages": new}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    return builder.compile(), history[:first]


async def _events(history: list[Any], text_only: bool) -> AsyncIterator[Any]:
    import copy

    graph, given = _graph(copy.deepcopy(history))
    async for event in graph.astream_events({"messages": given}, version="v2"):
        if not text_only:
            yield event
        elif event["event"] == "on_chat_model_stream" and event["data"]["chunk"].text:
            yield {"event": event["event"], "text": event["data"]["chunk"].text}


def astream_events(history: list[Any]) -> AsyncIterator[Any]:
    """Returns the async iterator of every ``astream_events(version="v2")`` event."""
    return _events(history, text_only=False)


def text_only(history: list[Any]) -> AsyncIterator[Any]:
    """Returns the async iterator of the ``on_chat_model_stream`` chunks' ``.text`` only."""
    return _events(history, text_only=True)


_LIB = "langgraph"
_MOD = "conformance.egress.adapters.langgraph_stream"
COMPONENTS = [
    Component(f"{_LIB}.astream_events", _LIB, "CompiledStateGraph.astream_events", "version='v2', every event relayed",
              "browser-stream", "langchain", f"{_MOD}:astream_events", "langgraph.graph",
              stops="none in the library: relay only on_chat_model_stream chunks' .text (text blocks only)"),
    Component(f"{_LIB}.astream_events.text", _LIB, "CompiledStateGraph.astream_events",
              "version='v2', only on_chat_model_stream chunk.text relayed", "browser-stream", "langchain",
              f"{_MOD}:text_only", "langgraph.graph"),
]
