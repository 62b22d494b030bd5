"""What recording the OpenAI probes will cost: billed requests, input tokens and a price from a dated table.

``estimate`` gives one ``Estimate`` per probe: the billed calls it makes (the earlier call, then the
judged call; ``input_tokens`` counts are not billed), their input tokens by the suite's offline
estimate, the most output tokens they may return (``max_output_tokens``, plus an allowance for the
compaction pass, which OpenAI bills as output) and the dollars from ``prices.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .._prices import Prices, load_prices
from . import semantics as sem
from .probes import OpenAIProbe

# The most output a compaction pass or a compact call is assumed to bill (recorded: about 800 tokens).
COMPACTION_ALLOWANCE = 2000
DEFAULT_OUTPUT = 1024  # a call that sets no max_output_tokens is priced at this bound


@cache
def prices() -> Prices:
    """Returns the shipped price table (``conformance/provider/openai/prices.yaml``)."""
    return load_prices(__package__)


@dataclass(frozen=True)
class Estimate:
    """One probe's expected spend: billed requests, input tokens, most output tokens and dollars (None: no price)."""

    probe: str
    model: str
    requests: int
    input_tokens: int
    max_output_tokens: int
    usd: float | None


def estimate(probe: OpenAIProbe) -> Estimate:
    """Returns the probe's offline estimate."""
    tokens = sem.input_tokens(probe.full_input(), probe.call.request.get("instructions"))
    output = COMPACTION_ALLOWANCE if probe.mechanism in ("compact", "trigger", "threshold") else 0
    output += 0 if probe.endpoint == "compact" else int(probe.call.request.get("max_output_tokens") or DEFAULT_OUTPUT)
    requests = 1
    if probe.before is not None:
        requests += 1
        tokens += sem.input_tokens(probe.before.items())
        output += int(probe.before.request.get("max_output_tokens") or DEFAULT_OUTPUT)
    model = str(probe.call.request["model"])
    price = prices().models.get(model)
    usd = None if price is None else (tokens * price["input"] + output * price["output"]) / 1_000_000
    return Estimate(probe.id, model, requests, tokens, output, usd)


def total_usd(estimates: list[Estimate]) -> float | None:
    """Returns the summed dollar estimate, or None when any probe's model has no price."""
    if any(e.usd is None for e in estimates):
        return None
    return sum(e.usd or 0.0 for e in estimates)


def rows(estimates: list[Estimate]) -> list[list[str]]:
    """Returns the dry-run table rows (header first)."""
    out = [["PROBE", "MODEL", "REQ", "INPUT", "OUT", "USD"]]
    for e in estimates:
        out.append([e.probe, e.model, str(e.requests), f"{e.input_tokens} (est.)", str(e.max_output_tokens),
                    "no price" if e.usd is None else f"{e.usd:.4f}"])
    return out


def summary(estimates: list[Estimate]) -> list[str]:
    """Returns the two total lines naming the price table's date."""
    table = prices()
    total = total_usd(estimates)
    spent = "unknown (a model has no price)" if total is None else f"${total:.2f}"
    return [f"record --dry-run (OpenAI): {len(estimates)} probe(s), {sum(e.requests for e in estimates)} billed "
            f"request(s), {sum(e.input_tokens for e in estimates)} input tokens, at most {spent}",
            f"  at the list prices of {table.date} ({table.source})"]
