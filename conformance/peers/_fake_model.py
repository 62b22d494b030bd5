"""The stand-in for the model a library's summariser calls: langchain-core's ``GenericFakeChatModel``
answering one fixed summary, recording every prompt it is sent. No network, and no reasoning text
can reach a summary."""

from __future__ import annotations

import itertools
from typing import Any

from pydantic import Field


def recording_model(summary: str) -> Any:
    """Returns a chat model that answers ``summary`` to every prompt and keeps the prompts in its
    ``prompts`` list (each a list of messages)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    class RecordingChatModel(GenericFakeChatModel):
        """``GenericFakeChatModel`` that records the messages of each call."""

        prompts: list[list[Any]] = Field(default_factory=list)

        def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            self.prompts.append(list(messages))
            return super()._generate(messages, *args, **kwargs)

    return RecordingChatModel(messages=itertools.repeat(AIMessage(content=summary)))
