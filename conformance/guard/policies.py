"""What the guard does with a verdict worth an alert: log it, raise after the response, call back,
or report it to OpenTelemetry (an event on the current span, a counter). Each policy gets the
``Judgement`` only: ids, indices and counts, never a body."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from ..provider.analyze.model import Judgement

LOG = logging.getLogger("conformance.guard")
METRIC = "conformance.guard.alerts"


class GuardAlert(BaseException):
    """Raised (policy ``raise``) once the response of an interaction whose verdict is an alert was read.

    A ``BaseException``, as ``KeyboardInterrupt`` is: the SDKs retry a call on any ``Exception``
    raised while reading its response, which would send it again; this one reaches the caller.
    """

    def __init__(self, judgement: Judgement) -> None:
        super().__init__(f"{judgement.verdict}: {judgement.provider} {judgement.endpoint} interaction "
                         f"{judgement.index}: {'; '.join(judgement.evidence)}")
        self.judgement = judgement


Policy = str | Callable[[Judgement], Any]


def log(found: Judgement) -> None:
    """Logs the alert as a warning of the ``conformance.guard`` logger (evidence only)."""
    LOG.warning("%s: %s %s interaction %s: %s", found.verdict, found.provider, found.endpoint, found.index,
                "; ".join(found.evidence))


def span_event(found: Judgement) -> None:
    """Adds a ``conformance.guard.alert`` event to the current OpenTelemetry span (when one records)."""
    from opentelemetry import trace

    trace.get_current_span().add_event("conformance.guard.alert", attributes=_attributes(found))


_counter: Any = None


def metric(found: Judgement) -> None:
    """Adds one to the ``conformance.guard.alerts`` counter of the global OpenTelemetry meter."""
    global _counter
    if _counter is None:
        from opentelemetry import metrics

        _counter = metrics.get_meter("conformance.guard").create_counter(
            METRIC, description="interactions whose context management reached a task in flight")
    _counter.add(1, attributes={k: v for k, v in _attributes(found).items() if k != "conformance.evidence"})


def _attributes(found: Judgement) -> dict[str, Any]:
    return {"conformance.verdict": found.verdict, "conformance.provider": found.provider,
            "conformance.endpoint": found.endpoint, "conformance.model": found.model,
            "conformance.strategy": found.strategy, "conformance.evidence": "; ".join(found.evidence)}


def _raise(found: Judgement) -> None:
    raise GuardAlert(found)


NAMED: dict[str, Callable[[Judgement], Any]] = {"log": log, "raise": _raise, "otel-event": span_event,
                                                "otel-metric": metric}


def in_caller(policies: Sequence[Callable[[Judgement], Any]]) -> bool:
    """Returns whether a policy must act in the caller's thread before the SDK returns: ``raise``
    (the alert is the caller's) and ``otel-event`` (the caller's span is current there)."""
    return any(p is _raise or p is span_event for p in policies)


def resolve(policy: Policy | Sequence[Policy]) -> list[Callable[[Judgement], Any]]:
    """Returns the policy callables for a name, a callable or a list of them; raises ``ValueError``
    for an unknown name."""
    given = [policy] if isinstance(policy, str) or callable(policy) else list(policy)
    found = []
    for one in given:
        if callable(one):
            found.append(one)
        elif one in NAMED:
            found.append(NAMED[one])
        else:
            raise ValueError(f"unknown guard policy {one!r}: one of {', '.join(NAMED)} or a callable")
    return found
