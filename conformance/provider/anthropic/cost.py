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
from typing import Any

from .._cost import Estimate, load_prices, rows, total_usd, totals
from . import semantics as sem
from .live import script_kwargs
from .probes import Probe
from ..table import grid

__all__ = ["Estimate", "answer_allowance", "estimate", "render", "requests_of", "total_usd"]


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
    model = probe.request["model"]
    return Estimate(probe.id, model, len(sent), tokens, output, load_prices(__package__).usd(model, tokens, output),
                    counted=client is not None)


def render(estimates: list[Estimate]) -> list[str]:
    """Returns the dry-run table, its legend, and two total lines naming the price table's date."""
    legend = ["REQ requests, INPUT input tokens ((est.): the suite's offline estimate), OUT the most output tokens",
              "(max_tokens), USD the most they can cost"]
    return grid(rows(estimates)) + legend + totals(estimates, load_prices(__package__), "record --dry-run",
                                                   "request(s)")
