"""The libraries the peer matrix names but cannot run here, each with its reason (rendered in
docs/matrix.md): a library whose install would change a pin of the ``peers`` extra, or that needs a
server, stays out of the extra."""

from __future__ import annotations

# (library and version, the components a row would call, why it does not run)
NOT_MEASURED: tuple[tuple[str, str, str], ...] = (
    ("pydantic-ai-harness 0.62.0", "`ClearToolResults`, `TieredCompaction`",
     "requires pydantic-ai-slim==2.62.0 exactly, and the egress extra pins pydantic-ai-slim==2.68.0 (0.62.0 is "
     "the newest release); pydantic-ai-slim itself ships no trimmer, so its rows run the processors of its "
     "packaged documentation through `ProcessHistory`"),
    ("google-adk 2.13.0", '`EventsCompactionConfig` with `LlmEventSummarizer`, `include_contents="none"`',
     "requires opentelemetry-api and opentelemetry-sdk <=1.44, and the egress extra pins both at 1.45.1 for its "
     "tracer rows (2.13.0 is the newest release)"),
)


def section() -> list[str]:
    """Returns the Markdown section that lists them, as a table."""
    return ["## Not measured", "", "| library | component | why |", "| --- | --- | --- |",
            *[f"| {library} | {component} | {why} |" for library, component, why in NOT_MEASURED], ""]
