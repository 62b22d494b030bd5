"""OpenAI's Responses API as the suite's ``Provider`` (``conformance.provider.base``).

Registered as ``openai`` in the ``context_conformance.providers`` entry-point group. The SDK and
the heavier modules of this package are imported only by the methods that use them.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import SpecError
from ..base import Judged, OwnModules

if TYPE_CHECKING:
    from ...engine._yamlsource import Locator
    from ..._recording import Recorded
    from ..base import Judge
    from .probes import OpenAIProbe

# The text of reasoning summaries and reasoning parts, and opaque ciphertext that can carry the
# model's reasoning (reasoning items, compaction items), by item type and by stream event type.
TEXT_TYPES = frozenset({"summary_text", "reasoning_text"})
OPAQUE_TYPES = frozenset({"reasoning", "compaction"})
REASONING_EVENTS = ("response.reasoning_summary_text.", "response.reasoning_text.")
# (a summary part event's ``part`` is a ``summary_text`` object, scrubbed by its type)
AUDITED_EVENTS = REASONING_EVENTS + ("response.reasoning_summary_part.",)


def _unscrubbed(value: Any) -> bool:
    from ..cassettes import PLACEHOLDER

    return isinstance(value, str) and bool(value) and not PLACEHOLDER.match(value)


class OpenAIProvider(OwnModules):
    """OpenAI: probes of Responses API compaction and truncation, replayed through the SDK."""

    name = "openai"
    title = "OpenAI"
    key_variable = "OPENAI_API_KEY"
    base_url_variable = "OPENAI_BASE_URL"
    implicit = False
    request_headers: frozenset[str] = frozenset()
    scrub_markers = (b'"encrypted_content"', b"summary_text", b"reasoning_text", b"response.reasoning_")

    def probe_schema(self) -> dict[str, Any]:
        """Returns the shipped probe schema (shared with the other shipped provider)."""
        from ..probes import schema

        return schema()

    def build_probe(self, raw: dict[str, Any], path: Path, where: tuple[Any, ...], locator: Locator) -> OpenAIProbe:
        """Returns the probe checked against the documented rules; raises a located ``SpecError``."""
        from .probes import build

        return build(raw, path, where, locator)

    def probe_details(self, probe: OpenAIProbe) -> dict[str, Any]:
        """Returns the configuration, the provider and the input item the task in flight starts at."""
        return {"config": probe.config_label(), "provider": probe.provider, "live_from_item": probe.live_from,
                "live_tool_use_ids": [], "live_thinking_turns": []}

    def live_label(self, details: dict[str, Any]) -> str:
        """Returns ``live from input item <n>``."""
        return f"live from input item {details.get('live_from_item')}"

    def judge_cassette(self, probe: OpenAIProbe, path: Path, data: dict[str, Any]) -> Judged:
        """Returns the cassette replayed through the SDK and judged; raises ``CassetteProblem``."""
        from . import replay

        found, ran = replay.judge_cassette(probe, path, data)
        details = {**found.to_dict(), "predicted": probe.predict["verdict"], "config": probe.config_label(),
                   "live_task": replay.live_size(probe, ran.exchange.items), "cassette": str(path),
                   "evidence_line": replay.evidence(found), "built_live": probe.before is not None}
        return Judged(found.verdict, replay.differences(probe, found), details)

    def record(self, probes: Sequence[OpenAIProbe], key: str, base_url: str | None, out: Path) -> list[Recorded]:
        """Records ``probes`` through the ``openai`` SDK (``record.record``)."""
        from .record import record

        return record(list(probes), key, base_url, out)

    def dry_run(self, probes: Sequence[OpenAIProbe], key: str, base_url: str | None) -> list[str]:
        """Returns the offline cost table (the Responses API is not asked for counts)."""
        from ..table import grid
        from .cost import estimate, rows, summary

        estimates = [estimate(p) for p in probes]
        return grid(rows(estimates)) + summary(estimates)

    def offline_cost(self, probes: Sequence[OpenAIProbe]) -> float | None:
        """Returns the offline dollar estimate, None when a model has no price."""
        from . import cost

        return cost.total_usd([cost.estimate(p) for p in probes])

    def claims_config(self, path: Path) -> bool:
        """Returns whether the file reads as an OpenAI configuration (``lint.is_openai_config``)."""
        from .lint import is_openai_config

        return is_openai_config(path)

    def lint_config(self, path: Path, max_task_steps: int | None, as_json: str | bool | None) -> int:
        """Prints the lint of a ``context_management`` list or ``truncation``; returns 0, 1 (reaches
        live work) or 2."""
        from ..._text import fit
        from .._lint import emit
        from ..probes import subschema_validator
        from . import lint

        try:
            config = lint.load_config(path, subschema_validator("openaiLintConfig"))
        except SpecError as exc:
            print(f"conformance lint-config: {exc}", file=sys.stderr)
            return 2
        findings = lint.lint(config)
        return emit(findings, "\n".join(fit(lint.render(findings))), as_json) or (1 if any(f.reaches for f in findings) else 0)

    def judge(self) -> Judge:
        """Returns the Responses API judge of ``conformance analyze``."""
        from .judge import JUDGE

        return JUDGE

    def scrub(self, value: dict[str, Any]) -> None:
        """Replaces reasoning summary and part text, reasoning stream text and reasoning or
        compaction ciphertext with placeholders."""
        from ..cassettes import placeholder

        kind = value.get("type")
        if kind in OPAQUE_TYPES and isinstance(value.get("encrypted_content"), str):
            value["encrypted_content"] = placeholder(value["encrypted_content"])
        if kind in TEXT_TYPES and isinstance(value.get("text"), str):
            value["text"] = placeholder(value["text"])
        if isinstance(kind, str) and kind.startswith(REASONING_EVENTS):
            for name in ("delta", "text"):
                if isinstance(value.get(name), str):
                    value[name] = placeholder(value[name])

    def reasoning_leaks(self, value: dict[str, Any], where: str) -> list[str]:
        """Returns reasoning left in place: a reasoning item's summary or content text or its
        ``encrypted_content``, and reasoning stream events' text and the summary parts they carry.
        A compaction item's ciphertext is not reasoning text: other projects' real recordings keep
        it, and ``record`` keeps only its fingerprint anyway."""
        kind = value.get("type")
        leaks = []
        if kind == "reasoning" and _unscrubbed(value.get("encrypted_content")):
            leaks.append(f"unscrubbed reasoning encrypted_content at {where}")
        if isinstance(kind, str) and kind.startswith(AUDITED_EVENTS):
            part = value["part"] if isinstance(value.get("part"), dict) else {}
            if _unscrubbed(value.get("delta")) or _unscrubbed(value.get("text")) or _unscrubbed(part.get("text")):
                leaks.append(f"unscrubbed reasoning text at {where}")
        if kind == "reasoning":
            parts = [*(value.get("summary") or []), *(value.get("content") or [])]
            if any(_unscrubbed(p.get("text")) for p in parts if isinstance(p, dict)):
                leaks.append(f"unscrubbed reasoning text at {where}")
        return leaks

    def item_label(self, item: Mapping[str, Any]) -> str | None:
        """Returns the one-line summary ``conformance explain`` shows of a Responses API item, or
        None for an item of another shape (``explain.input_item_label``)."""
        from .explain import input_item_label

        return input_item_label(item)

    def item_secrets(self, item: Mapping[str, Any]) -> list[str]:
        """Returns the reasoning text a Responses API item carries, for ``conformance explain``'s
        redactor (``explain.reasoning_texts``)."""
        from .explain import reasoning_texts

        return reasoning_texts(item)


PROVIDER = OpenAIProvider()
