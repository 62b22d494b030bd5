"""The price table each provider ships as ``prices.yaml`` in its own package, and its loader."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import yaml

PRICES_FILE = "prices.yaml"


@dataclass(frozen=True)
class Prices:
    """The price table: its date, its source and USD per million input/output tokens by model."""

    date: str
    source: str
    models: dict[str, dict[str, float]]


def load_prices(package: str) -> Prices:
    """Returns the ``prices.yaml`` table shipped in ``package``; raises OSError or KeyError if missing or incomplete."""
    text = resources.files(package).joinpath(PRICES_FILE).read_text(encoding="utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return Prices(str(data["date"]), str(data["source"]), dict(data["models"]))
