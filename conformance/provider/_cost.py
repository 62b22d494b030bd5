"""What every provider's ``record --dry-run`` shares: the price table each provider ships as
``prices.yaml`` in its own package, one probe's estimate, and the table and totals printed of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

PRICES_FILE = "prices.yaml"
HEADER = ["PROBE", "MODEL", "REQ", "INPUT", "OUT", "USD"]


@dataclass(frozen=True)
class Prices:
    """The price table: its date, its source and USD per million input/output tokens by model."""

    date: str
    source: str
    models: dict[str, dict[str, float]]

    def usd(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """Returns what the tokens cost on ``model``, or None when the table has no price for it."""
        price = self.models.get(model)
        return None if price is None else (input_tokens * price["input"] + output_tokens * price["output"]) / 1_000_000


@cache
def load_prices(package: str) -> Prices:
    """Returns the ``prices.yaml`` table shipped in ``package`` (read once); raises OSError or
    KeyError if missing or incomplete."""
    text = resources.files(package).joinpath(PRICES_FILE).read_text(encoding="utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return Prices(str(data["date"]), str(data["source"]), dict(data["models"]))


@dataclass(frozen=True)
class Estimate:
    """One probe's expected spend: requests, input tokens (``counted`` by the server, else the suite's
    offline estimate), most output tokens and dollars (None: no price)."""

    probe: str
    model: str
    requests: int
    input_tokens: int
    max_output_tokens: int
    usd: float | None
    counted: bool = False


def total_usd(estimates: Sequence[Estimate]) -> float | None:
    """Returns the summed dollar estimate, or None when any probe's model has no price."""
    if any(e.usd is None for e in estimates):
        return None
    return sum(e.usd or 0.0 for e in estimates)


def rows(estimates: Sequence[Estimate]) -> list[list[str]]:
    """Returns the dry-run table rows (header first); an offline token count is marked ``(est.)``."""
    out = [list(HEADER)]
    for e in estimates:
        out.append([e.probe, e.model, str(e.requests), f"{e.input_tokens}" + ("" if e.counted else " (est.)"),
                    str(e.max_output_tokens), "no price" if e.usd is None else f"{e.usd:.4f}"])
    return out


def totals(estimates: Sequence[Estimate], prices: Prices, command: str, requests: str) -> list[str]:
    """Returns the two total lines of ``command`` (its requests called ``requests``, e.g. "request(s)"),
    the second naming the price table's date."""
    total = total_usd(estimates)
    spent = "unknown (a model has no price)" if total is None else f"${total:.2f}"
    return [f"{command}: {len(estimates)} probe(s), {sum(e.requests for e in estimates)} {requests}, "
            f"{sum(e.input_tokens for e in estimates)} input tokens, at most {spent}",
            f"  at the list prices of {prices.date} ({prices.source})"]
