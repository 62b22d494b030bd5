"""OpenAI probes (a probe file with ``provider: openai``): one judged call, optionally after one
earlier call whose output is carried into the judged input or chained by ``previous_response_id``.

Every probe declares where the task in flight starts in the judged call's full input
(``live.from_item``) and the verdict the documented rules predict; both are checked against
``semantics`` when the file loads, so a wrong declaration is a located ``SpecError``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ...engine._yamlsource import Locator
from . import semantics as sem

PROVIDER = "openai"
CALL_PLACEHOLDER = "$call"  # a call_id the earlier call's function_call assigns at run time


@dataclass(frozen=True)
class Step:
    """One call: its parameters (no ``input``), its own input items and the padding applied to them."""

    request: dict[str, Any]
    input: tuple[dict[str, Any], ...]
    padding: tuple[dict[str, Any], ...] = ()

    def items(self) -> list[dict[str, Any]]:
        """Returns the step's input with its padding applied (a fresh copy)."""
        items = copy.deepcopy(list(self.input))
        for seed, pad in enumerate(self.padding):
            item = items[pad["item"]]
            grow = " " + sem.filler(pad["tokens"], seed)
            if item.get("type") == "function_call_output":
                item["output"] += grow
            elif isinstance(item.get("content"), str):
                item["content"] += grow
            else:
                item["content"][0]["text"] += grow
        return items


@dataclass(frozen=True)
class OpenAIProbe:
    """An OpenAI probe: the judged call, an optional earlier call, the declared live span and prediction."""

    id: str
    description: str
    mechanism: str
    endpoint: str
    call: Step
    before: Step | None
    chain: str  # "carry" (store false, items sent back) or "previous_response_id"
    stream: bool
    live_from: int
    predict: dict[str, Any]
    path: str = "<memory>"
    line: int = 0
    provider: str = PROVIDER

    @property
    def family(self) -> str:
        """Returns the strategy family, ``openai.<mechanism>``."""
        return f"openai.{self.mechanism}"

    @property
    def expected_error(self) -> dict[str, str] | None:
        """Returns the predicted rejection, if any."""
        return self.predict.get("error")

    def config_label(self) -> str:
        """Returns a short one-line description of the configuration, for tables."""
        request = self.call.request
        if self.mechanism == "threshold":
            threshold = next((e.get("compact_threshold") for e in request.get("context_management") or []), None)
            label = f"context_management compaction(threshold {threshold})"
        elif self.mechanism == "compact":
            label = "responses.compact"
        elif self.mechanism == "trigger":
            label = "compaction_trigger"
        else:
            label = f"truncation {request.get('truncation', 'disabled')}"
        extras = [self.chain if self.before else "", "stream" if self.stream else "",
                  "reasoning" if "reasoning.encrypted_content" in (request.get("include") or
                                                                   (self.before.request.get("include") if self.before else None) or []) else ""]
        return label + "".join(f" + {e}" for e in extras if e)

    def predicted_before_output(self) -> list[dict[str, Any]]:
        """Returns the output the earlier call is expected to give (its kinds: a call or an answer)."""
        if self.before is None:
            return []
        out: list[dict[str, Any]] = []
        if self.before.request.get("reasoning"):
            out.append({"type": "reasoning", "id": "rs_expected", "summary": [], "encrypted_content": "expected"})
        if sem.answer_kind(self.before.request) == "function_call":
            tool = self.before.request["tools"][0]["name"]
            out.append({"type": "function_call", "call_id": "call_expected", "name": tool, "arguments": "{}"})
        else:
            out.append({"type": "message", "role": "assistant", "id": "msg_expected", "status": "completed",
                        "content": [{"type": "output_text", "text": "answer", "annotations": []}]})
        return out

    def full_input(self, before_output: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Returns the judged call's whole input: the earlier call's input and output, then its own items."""
        earlier: list[dict[str, Any]] = []
        if self.before is not None:
            output = self.predicted_before_output() if before_output is None else before_output
            earlier = self.before.items() + copy.deepcopy(output)
        own = self.call.items()
        call_id = next((o.get("call_id") for o in earlier if o.get("type") == "function_call"), None)
        for item in own:
            if item.get("call_id") == CALL_PLACEHOLDER and call_id:
                item["call_id"] = call_id
        return earlier + own

    @cached_property
    def documented(self) -> sem.Prediction:
        """Returns what the documented rules predict for this probe."""
        return sem.predict(self.mechanism, self.call.request, self.full_input(), self.live_from)


def _step(raw: dict[str, Any]) -> Step:
    return Step(dict(raw.get("request") or {}), tuple(raw.get("input") or ()), tuple(raw.get("padding") or ()))


def build(raw: dict[str, Any], path: Path, where: tuple, locator: Locator) -> OpenAIProbe:
    """Returns the probe checked against the documented rules; raises a located ``SpecError``."""
    mechanism = raw["mechanism"]
    endpoint = "compact" if mechanism == "compact" else "responses"
    before = _step(raw["before"]) if raw.get("before") else None
    call = _step(raw)
    for step, field in ((call, where), (before, where + ("before",))):
        if step is None:
            continue
        for index, pad in enumerate(step.padding):
            if not 0 <= pad["item"] < len(step.input):
                raise locator.error(field + ("padding", index, "item"), "points at no input item")
            item = step.input[pad["item"]]
            content = item.get("content")
            if item.get("type") != "function_call_output" and not isinstance(content, str) and not (
                    isinstance(content, list) and content and isinstance(content[0], dict) and "text" in content[0]):
                raise locator.error(field + ("padding", index, "item"), "can pad only a message's text or a call output")
    if mechanism == "truncation" and sem.window_limit(str(call.request.get("model"))) is None:
        raise locator.error(where + ("request", "model"), f"no context window known for this model; known: "
                            f"{', '.join(sorted(sem.CONTEXT_WINDOWS))}")
    if mechanism == "trigger" and not any(i.get("type") == sem.TRIGGER for i in call.input):
        raise locator.error(where + ("input",), "a trigger probe needs a compaction_trigger input item")
    probe = OpenAIProbe(raw["id"], raw["description"], mechanism, endpoint, call, before,
                        (raw.get("before") or {}).get("chain", "carry"), bool(raw.get("stream", False)),
                        raw["live"]["from_item"], raw["predict"], str(path), locator.line(where) or 0)
    items = [i for i in probe.full_input() if i.get("type") != sem.TRIGGER]
    problem = sem.check_live(items, probe.live_from)
    if problem:
        raise locator.error(where + ("live", "from_item"), problem)
    documented = probe.documented
    if documented.verdict != raw["predict"]["verdict"]:
        reason = "; ".join(documented.reasons)
        raise locator.error(where + ("predict", "verdict"), f"the documented rules give {documented.verdict!r}, "
                            f"not {raw['predict']['verdict']!r}" + (f" ({reason})" if reason else ""))
    expected = raw["predict"].get("error")
    if (expected is None) != (documented.error is None):
        raise locator.error(where + ("predict",), "a rejection names its error, and only a rejection does: "
                            f"the documented error is {documented.error}")
    if expected is not None and documented.error is not None:
        for key, value in documented.error.items():
            if key in expected and expected[key] != value:
                raise locator.error(where + ("predict", "error", key), f"the documented error gives {value!r}")
    return probe
