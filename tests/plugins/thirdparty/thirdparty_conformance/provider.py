"""``toyllm``: a provider whose server trims a conversation's oldest messages (``trim.keep_last``).

Its answer names the message the kept history starts at (``kept_from``); the trim reaches the task
in flight when it starts after ``live_from``. Everything here meets ``conformance.provider.base``
and nothing in the suite names this provider.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conformance.provider._recording import Recorded
from conformance.engine._yamlsource import Locator
from conformance.provider.analyze.model import NOT_JUDGED, REACHED, SETTLED, Judgement, start
from conformance.provider.base import CassetteProblem, Judged
from conformance.provider.cassettes import PLACEHOLDER, placeholder, response_json
from conformance.provider.recordings import Interaction

NAME = "toyllm"
HOST = "api.toyllm.example"
PROBE = {"type": "object", "required": ["id", "description", "messages", "keep_last", "live_from", "predict"],
         "additionalProperties": False,
         "properties": {"id": {"type": "string"}, "description": {"type": "string"},
                        "messages": {"type": "array", "items": {"type": "object"}},
                        "keep_last": {"type": "integer", "minimum": 1}, "live_from": {"type": "integer", "minimum": 0},
                        "predict": {"type": "object", "required": ["verdict"],
                                    "properties": {"verdict": {"enum": [REACHED, SETTLED]}}}}}
SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
          "required": ["format_version", "provider", "probes"], "additionalProperties": False,
          "properties": {"format_version": {"const": 1}, "provider": {"const": NAME},
                         "probes": {"type": "array", "minItems": 1, "items": PROBE}}}


@dataclass(frozen=True)
class ToyProbe:
    """One toyllm probe: a conversation, how many messages the server keeps, where live work starts."""

    id: str
    description: str
    messages: list[dict[str, Any]]
    keep_last: int
    live_from: int
    predict: dict[str, Any]
    path: str = "<memory>"
    line: int = 0
    provider: str = NAME

    @property
    def family(self) -> str:
        """Returns ``toyllm.trim``."""
        return "toyllm.trim"

    def config_label(self) -> str:
        """Returns ``trim keep_last <n>``."""
        return f"trim keep_last {self.keep_last}"

    def request(self) -> dict[str, Any]:
        """Returns the request body the probe sends."""
        return {"messages": self.messages, "trim": {"keep_last": self.keep_last}}


def _verdict(kept_from: int, live_from: int) -> str:
    return REACHED if kept_from > live_from else SETTLED


class ToyJudge:
    """The analyzer's judge of toyllm traffic: did the trim start the kept history inside live work?"""

    provider = NAME

    def claims(self, interaction: Interaction) -> bool:
        """Returns whether the interaction went to toyllm's API."""
        return interaction.host == HOST

    def judge(self, interaction: Interaction, earlier: Sequence[Interaction]) -> Judgement:
        """Returns the verdict of one trim; ``not-judged`` for a request without ``trim``."""
        request = interaction.request if isinstance(interaction.request, dict) else {}
        response = interaction.response if isinstance(interaction.response, dict) else {}
        if "trim" not in request:
            return start(interaction, NAME, NOT_JUDGED)
        found = start(interaction, NAME, _verdict(int(response["kept_from"]), int(request["live_from"])))
        found.strategy, found.live_start = "trim", int(request["live_from"])
        found.history = len(request["messages"])
        found.evidence.append(f"kept from message {response['kept_from']}")
        return found


class ToyProvider:
    """The toyllm provider, as ``conformance.provider.base.Provider`` asks."""

    name = NAME
    title = "Toy LLM"
    key_variable = "TOYLLM_API_KEY"
    base_url_variable = "TOYLLM_BASE_URL"
    implicit = False
    request_headers: frozenset[str] = frozenset({"toyllm-version"})
    scrub_markers = (b'"musing"',)

    def probe_schema(self) -> dict[str, Any]:
        """Returns the schema of a toyllm probe file."""
        return SCHEMA

    def build_probe(self, raw: dict[str, Any], path: Path, where: tuple[Any, ...], locator: Locator) -> ToyProbe:
        """Returns the probe; raises a located ``SpecError`` when live work starts past the conversation
        or the prediction is not what the trim gives."""
        if raw["live_from"] > len(raw["messages"]):
            raise locator.error(where + ("live_from",), f"beyond the conversation ({len(raw['messages'])} messages)")
        documented = _verdict(max(0, len(raw["messages"]) - raw["keep_last"]), raw["live_from"])
        if raw["predict"]["verdict"] != documented:
            raise locator.error(where + ("predict", "verdict"), f"the trim gives {documented!r}")
        return ToyProbe(raw["id"], raw["description"], raw["messages"], raw["keep_last"], raw["live_from"],
                        raw["predict"], str(path), locator.line(where) or 0)

    def probe_details(self, probe: ToyProbe) -> dict[str, Any]:
        """Returns the configuration, the provider and where live work starts."""
        return {"config": probe.config_label(), "provider": NAME, "live_from": probe.live_from}

    def live_label(self, details: dict[str, Any]) -> str:
        """Returns ``live from message <n>``."""
        return f"live from message {details.get('live_from')}"

    def judge_cassette(self, probe: ToyProbe, path: Path, data: dict[str, Any]) -> Judged:
        """Returns the recorded trim judged against the probe; raises ``CassetteProblem`` when the
        cassette does not answer the probe's request."""
        interaction = data["interactions"][0]
        body = interaction["request"]["body"]
        if json.loads(body) != {**probe.request(), "live_from": probe.live_from}:
            raise CassetteProblem("cassette does not match its probe: the recorded request differs")
        answer = response_json(interaction)
        if not isinstance(answer, dict) or not isinstance(answer.get("kept_from"), int):
            raise CassetteProblem("the recorded answer names no kept_from")
        verdict = _verdict(answer["kept_from"], probe.live_from)
        predicted = probe.predict["verdict"]
        differences = [] if verdict == predicted else [f"verdict {verdict!r}, predicted {predicted!r}"]
        details = {"verdict": verdict, "predicted": predicted, "config": probe.config_label(),
                   "reached_live": verdict == REACHED, "cassette": str(path),
                   "live_task": {"tool_steps": 0, "thinking_turns": 0,
                                 "input_tokens": len(probe.messages) - probe.live_from},
                   "evidence_line": f"kept from message {answer['kept_from']}"}
        return Judged(verdict, differences, details)

    def record(self, probes: Sequence[ToyProbe], key: str, base_url: str | None, out: Path) -> list[Recorded]:
        """Returns a failed outcome per probe: the toy server is not reachable from tests."""
        return [Recorded(p.id, False, "the toy server records nothing") for p in probes]

    def dry_run(self, probes: Sequence[ToyProbe], key: str, base_url: str | None) -> list[str]:
        """Returns one line per probe: a toyllm call is free."""
        return [f"{p.id}: 1 request, $0.00" for p in probes]

    def offline_cost(self, probes: Sequence[ToyProbe]) -> float | None:
        """Returns 0.0: a toyllm call is free."""
        return 0.0

    def claims_config(self, path: Path) -> bool:
        """Returns whether the file is a JSON object with ``"provider": "toyllm"``."""
        try:
            return json.loads(path.read_text(encoding="utf-8")).get("provider") == NAME
        except (OSError, ValueError, AttributeError):
            return False

    def lint_config(self, path: Path, max_task_steps: int | None, as_json: bool) -> int:
        """Prints whether ``trim.keep_last`` keeps a task of ``max_task_steps`` messages; returns 1 when not."""
        keep = json.loads(path.read_text(encoding="utf-8"))["trim"]["keep_last"]
        reaches = max_task_steps is None or keep < max_task_steps
        finding = {"edit": "trim", "reaches": reaches, "keep_last": keep}
        print(json.dumps([finding]) if as_json else f"toyllm trim keep_last {keep}: "
              + ("reaches into a task in flight" if reaches else "keeps the task in flight"), file=sys.stdout)
        return 1 if reaches else 0

    def judge(self) -> ToyJudge:
        """Returns the analyzer's judge of toyllm traffic."""
        return ToyJudge()

    def scrub(self, value: dict[str, Any]) -> None:
        """Replaces a ``musing`` (toyllm's reasoning text) with its placeholder."""
        if isinstance(value.get("musing"), str):
            value["musing"] = placeholder(value["musing"])

    def reasoning_leaks(self, value: dict[str, Any], where: str) -> list[str]:
        """Returns a leak for a ``musing`` that is not a placeholder."""
        text = value.get("musing")
        if isinstance(text, str) and text and not PLACEHOLDER.match(text):
            return [f"unscrubbed reasoning text at {where}"]
        return []

    def explain_lines(self, probe: ToyProbe) -> list[str]:
        """Returns the configuration, one line per message with live work marked, and the prediction."""
        return [f"  family {probe.family} · {probe.config_label()}", "", f"messages ({len(probe.messages)}):",
                *(f"  {n:>3} {'live' if n >= probe.live_from else '    '} {m.get('role')}"
                  for n, m in enumerate(probe.messages)),
                "", "expected (documented prediction):", f"  verdict: {probe.predict['verdict']}"]

    def recording_lines(self, result: Any) -> list[str]:
        """Returns the verdict against the prediction and where the kept history starts."""
        if result.outcome not in ("pass", "fail"):
            return [f"    {result.outcome.upper()}: {result.message}"]
        return [f"    verdict {result.details['verdict']} ({result.outcome})", f"    {result.details['evidence_line']}"]

    def drift_facts(self, details: Mapping[str, Any], probe: Any) -> dict[str, Any]:
        """Returns whether the trim reached live work; a toyllm trim is never rejected."""
        return {"live": {"reached": bool(details.get("reached_live"))}, "reason": None, "binding": None}


PROVIDER = ToyProvider()
