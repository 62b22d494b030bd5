"""What the guard does with a verdict worth an alert: log it, raise after the response, call back,
or report it to OpenTelemetry (an event on the current span, a counter). Each policy gets the
``Judgement`` only: ids, indices and counts, never a body. A policy is named by its entry in the
``context_conformance.guard_policies`` group (this project's in its pyproject; a package adds its own)."""

from __future__ import annotations

import gc
import logging
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from .. import registry
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


NO_SPAN = ("the otel-event policy found no recording span where the guard judged the call, so its alerts "
           "are logged instead: neither the current span nor the span whose identity it carries records "
           "(a span of a tracer provider that is not set up, or one its sampler dropped)")
_told = False
# A recording span found by the identity a stand-in carries (trace id, span id) -> that span; weakly
# held, so a caller's span ended and dropped leaves it.
_found: weakref.WeakValueDictionary[tuple[int, int], Any] = weakref.WeakValueDictionary()


def _recording(span: Any) -> Any:
    """Returns the span an alert goes on: ``span`` when it records, else the live recording span
    whose identity it carries, or None.

    The Anthropic SDK makes each call's span current while it sends the request and reads a whole
    response. When its tracer does not record (the global tracer provider is not set up, and the
    client was given none), that span is OpenTelemetry's stand-in: it holds the caller's span's
    context (trace and span id, the very object) and nothing else, and it hides the caller's span
    from the current context until the SDK returns. The recording span with that context is found
    among the live objects that refer to the context (once per caller's span, then remembered weakly).
    """
    if span.is_recording():
        return span
    context = span.get_span_context()
    if not context.is_valid:
        return None
    key = (context.trace_id, context.span_id)
    found = _found.get(key)
    if found is not None and found.is_recording():
        return found
    from opentelemetry.trace import Span

    for holder in gc.get_referrers(context):
        if isinstance(holder, Span) and holder is not span and holder.get_span_context() is context \
                and holder.is_recording():
            _found[key] = holder
            return holder
    return None


def span_event(found: Judgement) -> None:
    """Adds a ``conformance.guard.alert`` event to the current OpenTelemetry span: the span of the
    call (the Anthropic SDK's own, a child of the caller's, while it sends the request and reads a
    whole response, when its tracer records), else the caller's (``_recording``: the span whose
    identity a stand-in carries; the one current as the caller reads a stream; through the OpenAI
    SDK, which makes no span). Where no span records, logs the alert instead (with ``NO_SPAN`` the
    first time): an event added there would be dropped without a word."""
    global _told
    from opentelemetry import trace

    span = _recording(trace.get_current_span())
    if span is not None:
        span.add_event("conformance.guard.alert", attributes=_attributes(found))
        return
    if not _told:
        _told = True
        LOG.warning(NO_SPAN)
    log(found)


_counter: Any = None


def metric(found: Judgement) -> None:
    """Adds one to the ``conformance.guard.alerts`` counter of the global OpenTelemetry meter."""
    global _counter
    if _counter is None:
        from opentelemetry import metrics

        _counter = metrics.get_meter("conformance.guard").create_counter(
            METRIC, description="interactions whose context management reached a task in flight")
    _counter.add(1, attributes={k: v for k, v in _attributes(found).items() if k != "conformance.engine.evidence"})


def _attributes(found: Judgement) -> dict[str, Any]:
    return {"conformance.verdict": found.verdict, "conformance.provider": found.provider,
            "conformance.endpoint": found.endpoint, "conformance.model": found.model,
            "conformance.strategy": found.strategy, "conformance.engine.evidence": "; ".join(found.evidence)}


def raise_alert(found: Judgement) -> None:
    raise GuardAlert(found)


def in_caller(policies: Sequence[Callable[[Judgement], Any]]) -> bool:
    """Returns whether a policy must act in the caller's thread before the SDK returns: ``raise``
    (the alert is the caller's) and ``otel-event`` (the call's span is current there)."""
    return any(p is raise_alert or p is span_event for p in policies)


def resolve(policy: Policy | Sequence[Policy]) -> list[Callable[[Judgement], Any]]:
    """Returns the policy callables for a name, a callable or a list of them; raises ``ValueError``
    for an unknown name."""
    given = [policy] if isinstance(policy, str) or callable(policy) else list(policy)
    found = []
    named = {entry.name: entry for entry in registry.entries("guard_policies")}
    for one in given:
        if callable(one):
            found.append(one)
        elif one in named:
            found.append(named[one].load())
        else:
            raise ValueError(f"unknown guard policy {one!r}: one of {', '.join(named)} or a callable")
    return found
