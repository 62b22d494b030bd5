"""What a recording will cost before it is made: input tokens per probe and a price from a dated table.

``estimate`` returns one ``Estimate`` per probe: the requests it sends (the building turns of a
scripted history, then ``create``), their input tokens (from ``count_tokens`` when a client is given,
else the suite's offline estimate of four characters per token; what the server writes into a
history built live counts at its ``max_tokens`` bound), the most output tokens they may return
(``max_tokens`` of each request) and the dollar cost of both from ``prices.yaml``. ``count_tokens``
calls are not billed, so they are not priced.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cache
from typing import Any

from .._prices import Prices, load_prices
from . import semantics as sem
from .live import script_kwargs
from .probes import Probe
from ..table import grid


@cache
def prices() -> Prices:
    """Returns the shipped price table (``conformance/provider/anthropic/prices.yaml``)."""
    return load_prices(__package__)


@dataclass(frozen=True)
class Estimate:
    """One probe's expected spend: requests, input tokens, most output tokens and dollars (None: no price)."""

    probe: str
    model: str
    requests: int
    input_tokens: int
    max_output_tokens: int
    counted: bool
    usd: float | None


def _without_thinking(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the messages with thinking blocks dropped (a template's stand-ins are not signed)."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [b for b in content if b.get("type") not in sem.THINKING_TYPES]
        out.append({**message, "content": content})
    return out


def requests_of(probe: Probe) -> list[dict[str, Any]]:
    """Returns the ``create`` requests a recording of ``probe`` sends, building turns first (betas kept)."""
    sent = []
    if probe.script is not None:
        template = probe.messages()
        base = script_kwargs(probe)
        for index, message in enumerate(template):
            if message["role"] == "assistant":
                sent.append({**base, "messages": template[:index]})
    sent.append(probe.create_kwargs())
    return sent


def _count(client: Any, request: dict[str, Any]) -> int:
    kwargs = {k: v for k, v in request.items() if k != "max_tokens"}
    kwargs["messages"] = _without_thinking(kwargs["messages"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return int(client.beta.messages.count_tokens(**kwargs).input_tokens)


def answer_allowance(probe: Probe, request: dict[str, Any]) -> int:
    """Returns the input tokens a scripted request may carry beyond its template: what the server wrote.

    Each assistant message of a history built live is the server's, up to the building turns'
    ``max_tokens``; the template only holds stand-ins, so each counts at that bound.
    """
    if probe.script is None:
        return 0
    bound = int(script_kwargs(probe)["max_tokens"])
    return bound * sum(1 for m in request["messages"] if m["role"] == "assistant")


def estimate(probe: Probe, client: Any = None) -> Estimate:
    """Returns the probe's estimate; with an SDK ``client`` its input tokens come from ``count_tokens``."""
    sent = requests_of(probe)
    if client is not None:
        tokens = sum(_count(client, r) + answer_allowance(probe, r) for r in sent)
    else:
        tokens = sum(sem.request_tokens(r) + answer_allowance(probe, r) for r in sent)
    output = sum(int(r["max_tokens"]) for r in sent)
    price = prices().models.get(probe.request["model"])
    usd = None if price is None else (tokens * price["input"] + output * price["output"]) / 1_000_000
    return Estimate(probe.id, probe.request["model"], len(sent), tokens, output, client is not None, usd)


def render(estimates: list[Estimate]) -> list[str]:
    """Returns the dry-run table, its legend, and two total lines naming the price table's date."""
    table = prices()
    rows = [["PROBE", "MODEL", "REQ", "INPUT", "OUT", "USD"]]
    for e in estimates:
        rows.append([e.probe, e.model, str(e.requests), f"{e.input_tokens}" + ("" if e.counted else " (est.)"),
                     str(e.max_output_tokens), "no price" if e.usd is None else f"{e.usd:.4f}"])
    lines = grid(rows) + ["REQ requests, INPUT input tokens ((est.): the suite's offline estimate), OUT the most "
                          "output tokens", "(max_tokens), USD the most they can cost"]
    total = total_usd(estimates)
    spent = "unknown (a model has no price)" if total is None else f"${total:.2f}"
    lines.append(f"record --dry-run: {len(estimates)} probe(s), {sum(e.requests for e in estimates)} request(s), "
                 f"{sum(e.input_tokens for e in estimates)} input tokens, at most {spent}")
    lines.append(f"  at the list prices of {table.date} ({table.source})")
    return lines


def total_usd(estimates: list[Estimate]) -> float | None:
    """Returns the summed dollar estimate, or None when any probe's model has no price."""
    if any(e.usd is None for e in estimates):
        return None
    return sum(e.usd or 0.0 for e in estimates)
