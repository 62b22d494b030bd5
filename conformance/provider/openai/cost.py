"""What recording the OpenAI probes will cost: billed requests, input tokens and a price from a dated table.

``estimate`` gives one ``Estimate`` per probe: the billed calls it makes (the earlier call, then the
judged call; ``input_tokens`` counts are not billed), their input tokens by the suite's offline
estimate, the most output tokens they may return (``max_output_tokens``, plus an allowance for the
compaction pass, which OpenAI bills as output) and the dollars from ``prices.yaml``.
"""

from __future__ import annotations

from .._cost import Estimate, load_prices, rows, total_usd, totals
from . import semantics as sem
from .probes import OpenAIProbe

__all__ = ["Estimate", "estimate", "rows", "summary", "total_usd"]

# The most output a compaction pass or a compact call is assumed to bill (recorded: about 800 tokens).
COMPACTION_ALLOWANCE = 2000
DEFAULT_OUTPUT = 1024  # a call that sets no max_output_tokens is priced at this bound


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
    return Estimate(probe.id, model, requests, tokens, output, load_prices(__package__).usd(model, tokens, output))


def summary(estimates: list[Estimate]) -> list[str]:
    """Returns the two total lines naming the price table's date."""
    return totals(estimates, load_prices(__package__), "record --dry-run (OpenAI)", "billed request(s)")
