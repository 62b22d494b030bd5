"""langchain-core: its own serializers of messages (``dumps`` as LangServe and Chainlit send it,
``messages_to_dict`` as chat histories store it) and ``BaseMessage.text``, the field that looks
like the answer."""

from __future__ import annotations

from typing import Any

from .base import Component


def dumps(messages: list[Any]) -> str:
    """Returns ``langchain_core.load.dumps`` of the messages."""
    from langchain_core.load import dumps as lc_dumps

    return lc_dumps(messages)


def messages_to_dict(messages: list[Any]) -> list[dict[str, Any]]:
    """Returns ``langchain_core.messages.messages_to_dict`` of the messages."""
    from langchain_core.messages import messages_to_dict as to_dict

    return to_dict(messages)


def text_only(messages: list[Any]) -> list[dict[str, str]]:
    """Returns each message's type and ``.text`` (text blocks only)."""
    return [{"type": m.type, "text": m.text} for m in messages]


COMPONENTS = [
    Component("langchain-core.load.dumps", "langchain-core", "langchain_core.load.dumps", "defaults", "browser-stream",
              "langchain", "conformance.egress.adapters.langchain_core:dumps", "langchain_core",
              stops="none in the library: send BaseMessage.text instead"),
    Component("langchain-core.messages_to_dict", "langchain-core", "langchain_core.messages.messages_to_dict",
              "defaults", "conversation-store", "langchain", "conformance.egress.adapters.langchain_core:messages_to_dict",
              "langchain_core", stops="none in the library"),
    Component("langchain-core.BaseMessage.text", "langchain-core", "BaseMessage.text", "text blocks only",
              "conversation-store", "langchain", "conformance.egress.adapters.langchain_core:text_only", "langchain_core"),
]
