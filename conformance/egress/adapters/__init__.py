"""The egress matrix's components: each library's own serializer or store, one file per library."""

from __future__ import annotations

from . import (autogen_core, haystack_ai, langchain_core, langgraph_checkpoint, langsmith_anthropic, llama_index_core,
               openai_agents, openinference_anthropic, openllmetry_anthropic, otel_genai_anthropic, pydantic_ai,
               langfuse_tracer, langgraph_checkpoint_postgres, langgraph_stream, logfire_tracer, mlflow_tracer,
               openai_instrumentations, openai_agents_sessions, openai_agents_stream, psycopg_table,
               pydantic_ai_ui, redis_hash, sse_starlette_relay)
from .base import Component

COMPONENTS: list[Component] = [
    *langchain_core.COMPONENTS, *haystack_ai.COMPONENTS, *llama_index_core.COMPONENTS, *pydantic_ai.COMPONENTS,
    *autogen_core.COMPONENTS, *openai_agents.COMPONENTS, *langgraph_checkpoint.COMPONENTS,
    *openinference_anthropic.COMPONENTS, *otel_genai_anthropic.COMPONENTS, *openllmetry_anthropic.COMPONENTS,
    *langsmith_anthropic.COMPONENTS, *pydantic_ai_ui.COMPONENTS,
    *sse_starlette_relay.COMPONENTS, *openai_agents_stream.COMPONENTS, *langgraph_checkpoint_postgres.COMPONENTS,
    *openai_agents_sessions.COMPONENTS, *psycopg_table.COMPONENTS, *redis_hash.COMPONENTS,
    *logfire_tracer.COMPONENTS, *langfuse_tracer.COMPONENTS, *mlflow_tracer.COMPONENTS,
    *openai_instrumentations.COMPONENTS, *langgraph_stream.COMPONENTS,
]


def select(names: list[str] | None) -> list[Component]:
    """Returns the components named (by name or library), all when ``names`` is empty; raises
    ``KeyError`` naming an unknown one."""
    if not names:
        return list(COMPONENTS)
    chosen = [c for c in COMPONENTS if c.name in names or c.library in names]
    unknown = [n for n in names if not any(n in (c.name, c.library) for c in COMPONENTS)]
    if unknown:
        raise KeyError(f"unknown egress component {unknown[0]!r}; known: {', '.join(c.name for c in COMPONENTS)}")
    return chosen


__all__ = ["COMPONENTS", "Component", "select"]
