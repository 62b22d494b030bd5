"""Anthropic's Messages API as the suite's ``Provider`` (``conformance.provider.base``).

Registered as ``anthropic`` in the ``context_conformance.providers`` entry-point group. The SDK and
the heavier modules of this package are imported only by the methods that use them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import SpecError
from ..base import Judged, OwnModules

if TYPE_CHECKING:
    from ...engine._yamlsource import Locator
    from ..._recording import Recorded
    from ..base import Judge
    from .probes import Probe

THINKING_TYPES = ("thinking", "thinking_delta")
REDACTED_TYPE = "redacted_thinking"  # its ``data`` is the reasoning, encrypted


class AnthropicProvider(OwnModules):
    """Anthropic: probes of ``context_management`` edits and compaction, replayed through the SDK."""

    name = "anthropic"
    title = "Anthropic"
    key_variable = "ANTHROPIC_API_KEY"
    base_url_variable = "ANTHROPIC_BASE_URL"
    implicit = True  # probe files and results that name no provider are Anthropic's (the first one shipped)
    request_headers: frozenset[str] = frozenset({"anthropic-beta", "anthropic-version"})
    scrub_markers = (b'"thinking', b'"redacted_thinking"')

    def probe_schema(self) -> dict[str, Any]:
        """Returns the shipped probe schema (shared with the other shipped provider)."""
        from ..probes import schema

        return schema()

    def build_probe(self, raw: dict[str, Any], path: Path, where: tuple[Any, ...], locator: Locator) -> Probe:
        """Returns the probe checked against the documented semantics; raises a located ``SpecError``."""
        from .probes import build

        return build(raw, path, where, locator)

    def probe_details(self, probe: Probe) -> dict[str, Any]:
        """Returns the configuration and the live tool uses and thinking turns of ``probe``."""
        return {"config": probe.config_label(), "live_tool_use_ids": list(probe.live.tool_use_ids),
                "live_thinking_turns": list(probe.live.thinking_turns)}

    def live_label(self, details: dict[str, Any]) -> str:
        """Returns ``live tool uses <ids>, thinking turns <numbers>``."""
        tools = ",".join(details.get("live_tool_use_ids") or []) or "none"
        turns = ",".join(map(str, details.get("live_thinking_turns") or [])) or "none"
        return f"live tool uses {tools}, thinking turns {turns}"

    def judge_cassette(self, probe: Probe, path: Path, data: dict[str, Any]) -> Judged:
        """Returns the cassette replayed through the SDK and judged; raises ``CassetteProblem``."""
        from .replay import judge_cassette

        return judge_cassette(probe, path, data)

    def record(self, probes: Sequence[Probe], key: str, base_url: str | None, out: Path) -> list[Recorded]:
        """Records ``probes`` through the ``anthropic`` SDK (``record.record``)."""
        from .record import record

        return record(list(probes), key, base_url, out)

    def dry_run(self, probes: Sequence[Probe], key: str, base_url: str | None) -> list[str]:
        """Returns the cost table; input tokens from ``count_tokens`` when ``key`` is set, else offline."""
        from .cost import estimate, render

        if not key:
            return render([estimate(p) for p in probes])
        import anthropic

        from .client import make_client
        from .record import resolve_base_url

        with make_client(key, resolve_base_url(base_url)) as client:
            try:
                return render([estimate(p, client) for p in probes])
            except anthropic.APIError as exc:
                print(f"conformance record: count_tokens failed ({type(exc).__name__}); offline estimate instead",
                      file=sys.stderr)
                return render([estimate(p) for p in probes])

    def offline_cost(self, probes: Sequence[Probe]) -> float | None:
        """Returns the offline dollar estimate, None when a model has no price."""
        from .cost import estimate, total_usd

        return total_usd([estimate(p) for p in probes])

    def claims_config(self, path: Path) -> bool:
        """Returns False: Anthropic's lint reads every configuration no other provider claims."""
        return False

    def lint_config(self, path: Path, max_task_steps: int | None, as_json: str | bool | None,
                    model: str | None = None) -> int:
        """Prints the lint of a ``context_management`` object or request fragment (its
        ``thinking.block_binding`` read with ``model`` when one is named); returns 0, 1 (reaches
        live work, or ``drop_block`` hides an edit) or 2."""
        from .._lint import emit
        from .lint import lint, load_config, render

        try:
            config = load_config(path)
        except SpecError as exc:
            print(f"conformance lint-config: {exc}", file=sys.stderr)
            return 2
        findings, rejected = lint(config, max_task_steps, model)
        if rejected:
            print(f"conformance lint-config: the API rejects this configuration: {rejected}", file=sys.stderr)
            return 2
        table = render(findings, config, max_task_steps, model)
        return emit(findings, table, as_json) or (1 if any(f.reaches for f in findings) else 0)

    def judge(self) -> Judge:
        """Returns the Messages API judge of ``conformance analyze``."""
        from .judge import JUDGE

        return JUDGE

    def scrub(self, value: dict[str, Any]) -> None:
        """Replaces the text of a thinking block or thinking delta, and the encrypted ``data`` of a
        redacted_thinking block, with its placeholder (signatures stay: the API checks them)."""
        from ..cassettes import placeholder

        if value.get("type") in THINKING_TYPES and isinstance(value.get("thinking"), str):
            value["thinking"] = placeholder(value["thinking"])
        elif value.get("type") == REDACTED_TYPE and isinstance(value.get("data"), str):
            value["data"] = placeholder(value["data"])

    def reasoning_leaks(self, value: dict[str, Any], where: str) -> list[str]:
        """Returns a leak for a thinking block or delta whose text, or a redacted_thinking block
        whose ``data``, is not a placeholder."""
        from ..cassettes import PLACEHOLDER

        text = value.get("thinking")
        if value.get("type") in THINKING_TYPES and isinstance(text, str) and text and not PLACEHOLDER.match(text):
            return [f"unscrubbed reasoning text at {where}"]
        data = value.get("data")
        if value.get("type") == REDACTED_TYPE and isinstance(data, str) and data and not PLACEHOLDER.match(data):
            return [f"unscrubbed redacted_thinking data at {where}"]
        return []


PROVIDER = AnthropicProvider()
