"""One registry for every extension point: providers, message formats, recording dialects, egress
components and peers.

Each kind is a group of Python entry points, ``context_conformance.<kind>`` (as pytest's ``pytest11``
is): a package adds one by declaring, in its own ``pyproject.toml``::

    [project.entry-points."context_conformance.providers"]
    gemini = "my_package.gemini:PROVIDER"

The ones this project ships are declared the same way in its ``pyproject.toml`` and are also listed
here (``SHIPPED``), so a checkout run without reinstalling finds them too. Nothing is looked up until
a command asks for a kind (one scan of the installed distributions serves every kind), and nothing
is imported until an entry is loaded. A shipped name keeps its shipped entry: an installed package
adds names, it does not replace this project's.

An entry of ``peers`` or ``egress_adapters`` names a list of the package's objects; an entry of
``dialects`` names one dialect (a module or object with ``NAME``, ``recognises`` and ``interactions``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import UsageError

GROUP_PREFIX = "context_conformance."

# kind -> (name, "module:attr" or "module"), in the order commands list them
SHIPPED: dict[str, tuple[tuple[str, str], ...]] = {
    "providers": (
        ("anthropic", "conformance.provider.anthropic.provider:PROVIDER"),
        ("openai", "conformance.provider.openai.provider:PROVIDER"),
    ),
    "formats": (
        ("anthropic", "conformance.formats.anthropic:FORMAT"),
        ("openai-chat", "conformance.formats.openai_chat:FORMAT"),
        ("openai-responses", "conformance.formats.openai_responses:FORMAT"),
        ("bedrock", "conformance.formats.bedrock:FORMAT"),
        ("google-genai", "conformance.formats.google_genai:FORMAT"),
        ("langchain", "conformance.formats.langchain:FORMAT"),
    ),
    "peers": (
        ("agent_framework", "conformance.peers.agent_framework:PEERS"),
        ("agno", "conformance.peers.agno:PEERS"),
        ("anthropic_sdk", "conformance.peers.anthropic_sdk:PEERS"),
        ("autogen_core", "conformance.peers.autogen_core:PEERS"),
        ("beeai_framework", "conformance.peers.beeai_framework:PEERS"),
        ("deepagents", "conformance.peers.deepagents:PEERS"),
        ("griptape", "conformance.peers.griptape:PEERS"),
        ("haystack_ai", "conformance.peers.haystack_ai:PEERS"),
        ("langchain", "conformance.peers.langchain:PEERS"),
        ("langchain_context_editing", "conformance.peers.langchain_context_editing:PEERS"),
        ("langchain_core", "conformance.peers.langchain_core:PEERS"),
        ("langmem", "conformance.peers.langmem:PEERS"),
        ("llama_index_core", "conformance.peers.llama_index_core:PEERS"),
        ("litellm", "conformance.peers.litellm:PEERS"),
        ("openai_agents", "conformance.peers.openai_agents:PEERS"),
        ("pydantic_ai", "conformance.peers.pydantic_ai:PEERS"),
        ("semantic_kernel", "conformance.peers.semantic_kernel:PEERS"),
        ("strands_agents", "conformance.peers.strands_agents:PEERS"),
    ),
    # ``conformance analyze``'s readers, asked in this order (the most specific first), then those
    # of installed packages; each entry names a dialect (a module with NAME, recognises, interactions)
    "dialects": (
        ("ruby-vcr", "conformance.provider.recordings.dialects.ruby_vcr"),
        ("go-vcr", "conformance.provider.recordings.dialects.go_vcr"),
        ("vcrpy", "conformance.provider.recordings.dialects.vcrpy"),
        ("vcrpy-lists", "conformance.provider.recordings.dialects.vcrpy_lists"),
        ("polly", "conformance.provider.recordings.dialects.polly"),
        ("har", "conformance.provider.recordings.dialects.har"),
        ("nock", "conformance.provider.recordings.dialects.nock"),
        ("sse", "conformance.provider.recordings.dialects.sse_capture"),
        ("jsonl", "conformance.provider.recordings.dialects.jsonl"),
        ("response", "conformance.provider.recordings.dialects.response"),
    ),
    # tables of egress surfaces beside the shipped one (specs/egress/surfaces.yaml): each entry names
    # the path of a table file of the same schema; a shipped surface's name keeps its shipped row
    "egress_surfaces": (),
    # the egress matrix's components: each entry names a list of them (as peers do), in row order
    "egress_adapters": (
        ("langchain_core", "conformance.egress.adapters.langchain_core:COMPONENTS"),
        ("haystack_ai", "conformance.egress.adapters.haystack_ai:COMPONENTS"),
        ("llama_index_core", "conformance.egress.adapters.llama_index_core:COMPONENTS"),
        ("pydantic_ai", "conformance.egress.adapters.pydantic_ai:COMPONENTS"),
        ("autogen_core", "conformance.egress.adapters.autogen_core:COMPONENTS"),
        ("openai_agents", "conformance.egress.adapters.openai_agents:COMPONENTS"),
        ("langgraph_checkpoint", "conformance.egress.adapters.langgraph_checkpoint:COMPONENTS"),
        ("openinference_anthropic", "conformance.egress.adapters.openinference_anthropic:COMPONENTS"),
        ("otel_genai_anthropic", "conformance.egress.adapters.otel_genai_anthropic:COMPONENTS"),
        ("openllmetry_anthropic", "conformance.egress.adapters.openllmetry_anthropic:COMPONENTS"),
        ("langsmith_anthropic", "conformance.egress.adapters.langsmith_anthropic:COMPONENTS"),
        ("pydantic_ai_ui", "conformance.egress.adapters.pydantic_ai_ui:COMPONENTS"),
        ("sse_starlette_relay", "conformance.egress.adapters.sse_starlette_relay:COMPONENTS"),
        ("openai_agents_stream", "conformance.egress.adapters.openai_agents_stream:COMPONENTS"),
        ("langgraph_checkpoint_postgres", "conformance.egress.adapters.langgraph_checkpoint_postgres:COMPONENTS"),
        ("openai_agents_sessions", "conformance.egress.adapters.openai_agents_sessions:COMPONENTS"),
        ("psycopg_table", "conformance.egress.adapters.psycopg_table:COMPONENTS"),
        ("redis_hash", "conformance.egress.adapters.redis_hash:COMPONENTS"),
        ("logfire_tracer", "conformance.egress.adapters.logfire_tracer:COMPONENTS"),
        ("langfuse_tracer", "conformance.egress.adapters.langfuse_tracer:COMPONENTS"),
        ("mlflow_tracer", "conformance.egress.adapters.mlflow_tracer:COMPONENTS"),
        ("openai_instrumentations", "conformance.egress.adapters.openai_instrumentations:COMPONENTS"),
        ("langgraph_stream", "conformance.egress.adapters.langgraph_stream:COMPONENTS"),
    ),
}
KINDS = tuple(SHIPPED)


class RegistryError(UsageError, LookupError):
    """An entry that is unknown or cannot be loaded; the message names the kind, the entry and why
    (the command exits 2 with it, as for any usage error)."""


@dataclass(frozen=True)
class Entry:
    """One registered extension: its kind, its name and where it lives (``module:attr``)."""

    kind: str
    name: str
    value: str
    shipped: bool

    def load(self) -> Any:
        """Returns the object the entry names; raises ``RegistryError`` when it cannot be imported."""
        return _load(self.kind, self.name, self.value)


def group(kind: str) -> str:
    """Returns the entry-point group of ``kind`` (``context_conformance.providers``...); raises
    ``RegistryError`` for a kind that is not one of ``KINDS``."""
    if kind not in SHIPPED:
        raise RegistryError(f"unknown extension kind {kind!r}; known: {', '.join(KINDS)}")
    return GROUP_PREFIX + kind


@cache
def _installed_groups() -> dict[str, dict[str, str]]:
    """Returns group -> {name: value} of every installed entry point of this project's groups (one
    scan of the installed distributions, whatever the number of kinds asked for)."""
    from importlib.metadata import distributions  # only when a command needs a kind

    found: dict[str, dict[str, str]] = {}
    for dist in distributions():  # in ``sys.path`` order: the first distribution to name an entry wins
        for ep in dist.entry_points:
            if ep.group.startswith(GROUP_PREFIX):
                found.setdefault(ep.group, {}).setdefault(ep.name, ep.value)
    return found


def installed(kind: str) -> tuple[tuple[str, str], ...]:
    """Returns (name, value) of every entry point installed in ``kind``'s group, sorted by name,
    including this project's own when it is installed with its metadata."""
    return tuple(sorted(_installed_groups().get(group(kind), {}).items()))


@cache
def entries(kind: str) -> tuple[Entry, ...]:
    """Returns the shipped entries of ``kind`` in their order, then the installed ones of other names."""
    group(kind)  # a known kind
    shipped = [Entry(kind, name, value, True) for name, value in SHIPPED[kind]]
    names = {e.name for e in shipped}
    return tuple(shipped + [Entry(kind, name, value, False) for name, value in installed(kind) if name not in names])


def names(kind: str) -> list[str]:
    """Returns the names registered in ``kind``, shipped ones first."""
    return [e.name for e in entries(kind)]


def entry(kind: str, name: str) -> Entry:
    """Returns the entry called ``name``; raises ``RegistryError`` naming the known ones."""
    for found in entries(kind):
        if found.name == name:
            return found
    raise RegistryError(f"unknown {kind[:-1] if kind.endswith('s') else kind} {name!r}; known: {', '.join(names(kind))}")


def load(kind: str, name: str) -> Any:
    """Returns the loaded object registered as ``name`` in ``kind``; raises ``RegistryError``."""
    return entry(kind, name).load()


def load_all(kind: str, keep: Callable[[Entry], bool] = lambda e: True) -> list[Any]:
    """Returns every loaded object of ``kind`` in registry order (those ``keep`` accepts)."""
    return [e.load() for e in entries(kind) if keep(e)]


@cache
def _load(kind: str, name: str, value: str) -> Any:
    from importlib.metadata import EntryPoint

    try:
        return EntryPoint(name, value, group(kind)).load()
    except (ImportError, AttributeError) as exc:
        raise RegistryError(f"the {kind} entry {name!r} ({value}) cannot be loaded: {type(exc).__name__}: {exc}") from exc


def reset() -> None:
    """Forgets what was looked up and loaded (for a test that installs an entry point mid-run)."""
    _installed_groups.cache_clear()
    entries.cache_clear()
    _load.cache_clear()
