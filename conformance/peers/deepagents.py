"""deepagents' ``SummarizationMiddleware`` (the one ``create_deep_agent`` installs), run as an agent
runs it before each model call, on LangChain messages (the ``langchain`` format).

The middleware's ``wrap_model_call`` gets a ``ModelRequest`` of the history and a handler standing
for the model; what the handler receives is the history the model would see. Its summariser is
a recording fake model answering a fixed summary (no network); the history it offloads goes to a
``StoreBackend`` on langgraph's ``InMemoryStore``, nothing written to disk, under a fixed session
id, so the summary message names the same file on every run.
"""

from __future__ import annotations

from typing import Any

from .base import Peers

LIBRARY = "deepagents"
SUMMARY = "SUMMARY: earlier work condensed by a fake model."
PEERS = Peers(LIBRARY, "deepagents.middleware.summarization")


def summarized(messages: list[Any], **settings: Any) -> list[Any]:
    """Runs deepagents' ``SummarizationMiddleware(**settings).wrap_model_call`` once on ``messages``;
    returns the messages its handler (the model's place) was called with."""
    from deepagents.backends import StoreBackend
    from deepagents.middleware.summarization import SUMMARIZATION_SESSION_ID_KEY, SummarizationMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages import AIMessage
    from langgraph.store.memory import InMemoryStore

    from ._fake_model import recording_model

    seen: list[list[Any]] = []

    def handler(request: Any) -> Any:
        seen.append(list(request.messages))
        return AIMessage(content="")

    backend = StoreBackend(namespace=lambda _runtime: ("conformance",), store=InMemoryStore())
    middleware = SummarizationMiddleware(recording_model(SUMMARY), backend=backend, **settings)
    # a fixed session id names the offloaded history's file, which the summary message quotes
    state = {"messages": list(messages), SUMMARIZATION_SESSION_ID_KEY: "session_conformance"}
    request = ModelRequest(model=recording_model(""), messages=list(messages), state=state)  # type: ignore[arg-type]  # the keys the middleware reads
    middleware.wrap_model_call(request, handler)
    return seen[-1]


@PEERS.add("deepagents.SummarizationMiddleware.messages", "SummarizationMiddleware",
           'trigger=("messages", keep_turns), keep=("messages", keep_turns // 2), both at least 1, fake model, '
           "StoreBackend(InMemoryStore)", "langchain")
def by_messages(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """Summarizes past ``keep_turns`` messages, keeping the last ``keep_turns // 2``."""
    return summarized(messages, trigger=("messages", max(1, keep_turns)), keep=("messages", max(1, keep_turns // 2)))


@PEERS.add("deepagents.SummarizationMiddleware.tokens", "SummarizationMiddleware",
           'trigger=("tokens", budget_tokens (default 200)), keep=("tokens", budget_tokens // 2), '
           'truncate_args_settings={"trigger": ("tokens", budget_tokens), "keep": ("messages", 2), "max_length": '
           "100}, fake model, StoreBackend(InMemoryStore)", "langchain")
def by_tokens(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """Summarizes past ``budget_tokens`` approximate tokens, keeping ``budget_tokens // 2``, and cuts
    long tool arguments of all but the last 2 messages to 100 characters."""
    return summarized(messages, trigger=("tokens", budget_tokens), keep=("tokens", max(1, budget_tokens // 2)),
                      truncate_args_settings={"trigger": ("tokens", budget_tokens), "keep": ("messages", 2),
                                              "max_length": 100})
