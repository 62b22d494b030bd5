"""Libraries the peer matrix does not run, each with why: published under *Not measured* in
docs/matrix.md, so a reader learns a library was looked at and what stands in the way (an install
that would change a pin of the extras, no trimming step to call, a server it needs)."""

from __future__ import annotations

# (library, version looked at, what it would have run, why it is not a row)
NOT_MEASURED: tuple[tuple[str, str, str, str], ...] = (
    ("crewai", "1.15.30", "its context-overflow summary (`respect_context_window`)",
     "requires openai<3 where the pinned openai-agents 0.24.0 requires openai>=3, and pydantic<2.13; its install "
     "adds 68 packages (chromadb, lancedb, onnxruntime, pyarrow, kubernetes among them)"),
    ("google-adk", "2.13.0", '`EventsCompactionConfig` with `LlmEventSummarizer`, `include_contents="none"`',
     "requires opentelemetry-api and opentelemetry-sdk <=1.44, and the egress extra pins both at 1.45.1 for its "
     "tracer rows (2.13.0 is the newest release)"),
    ("pydantic-ai-harness", "0.62.0", "`ClearToolResults`, `TieredCompaction`",
     "requires pydantic-ai-slim==2.62.0 exactly, and the egress extra pins pydantic-ai-slim==2.68.0 (0.62.0 is "
     "the newest release); pydantic-ai-slim itself ships no trimmer, so its rows run the processors of its "
     "packaged documentation through `ProcessHistory`"),
    ("smolagents", "1.26.0", "step pruning",
     "its code exposes no trimming step: `AgentMemory` is replayed whole (`write_memory_to_messages`), and its one "
     "pruning, the example step callback `vision_web_browser.save_screenshot` (screenshots of older steps "
     "dropped), needs a running browser through helium and selenium"),
)


def section() -> list[str]:
    """Returns the *Not measured* section of docs/matrix.md, as lines."""
    return ["## Not measured", "", "| library | version | what | why |", "| --- | --- | --- | --- |",
            *[f"| {lib} | {version} | {what} | {why} |" for lib, version, what, why in NOT_MEASURED]]
