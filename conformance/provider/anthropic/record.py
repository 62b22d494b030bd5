"""Record probes against a Messages API server (the real one or the emulator) into cassettes.

Each probe is sent through the anthropic SDK with ``max_retries=0`` under vcrpy, into a scratch
file: a probe with ``script`` first builds its history live (``live.drive``), then ``count_tokens``
when the probe asks for it, then ``beta.messages.create``. The finished cassette gets
``metadata: {server, probe, probe_sha256, sdk}`` (plus ``thinking_tokens``, the size of each
scrubbed thinking text and redacted_thinking data, for a built history) and moves to ``<out>/<server>/<probe-id>.yaml``.
A retryable answer (429, 529, ``overloaded_error``, other 5xx) is retried a bounded number of
times with backoff; if it persists the probe is marked ``unavailable`` and the run stops.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

from .. import cassettes
from .. import _recording
from .._recording import ATTEMPTS, NotRecorded, Recorded, Retryable, digest, record_in_order
from . import live
from .client import make_client
from .probes import Probe

DEFAULT_BASE_URL = "https://api.anthropic.com"
BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL"
MAX_WAIT_SECONDS = 60.0


def resolve_base_url(given: str | None) -> str:
    """Returns ``given``, else ``$ANTHROPIC_BASE_URL`` (the SDK's convention), else the public API."""
    return _recording.resolve_base_url(given, BASE_URL_VARIABLE, DEFAULT_BASE_URL)


def is_transient(exc: anthropic.APIStatusError) -> bool:
    """Returns whether an error answer is transient: 429, 529/5xx, ``overloaded_error`` or ``x-should-retry``."""
    body = exc.body if isinstance(exc.body, dict) else {}
    kind = (body.get("error") or {}).get("type") if isinstance(body.get("error"), dict) else body.get("type")
    return kind in ("overloaded_error", "rate_limit_error") or cassettes.should_retry(
        exc.status_code, exc.response.headers.get_list("x-should-retry"))


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    try:
        return min(float(exc.response.headers.get("retry-after", "")), MAX_WAIT_SECONDS)
    except ValueError:
        return None


def _guarded(name: str, call: Callable[..., Any], kwargs: dict[str, Any], notes: list[str]) -> Any:
    """Returns the call's answer (None after a recorded error answer); raises ``Retryable``/``NotRecorded``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(**kwargs)
    except anthropic.APIStatusError as exc:
        if is_transient(exc):
            raise Retryable(f"{name}: server answered {exc.status_code}", _retry_after(exc)) from None
        notes.append(f"{name}: answered {exc.status_code}")
    except anthropic.APIResponseValidationError:
        notes.append(f"{name}: response does not parse strictly (verify will report it)")
    except anthropic.APIConnectionError as exc:
        raise NotRecorded(f"{name}: cannot connect ({exc.__cause__ or exc})") from None
    return None


def _build(client: anthropic.Anthropic, probe: Probe) -> live.Built:
    """Returns the probe's history built live; raises ``Retryable``, or ``NotRecorded`` when it cannot be built."""

    def create(**kwargs: Any) -> Any:
        answer = _guarded("building the history", client.beta.messages.create, kwargs, notes)
        if answer is None:
            raise NotRecorded(notes[-1])
        return answer

    notes: list[str] = []
    try:
        return live.drive(probe, create)
    except live.ScriptError as exc:
        raise NotRecorded(f"the server did not follow the script: {exc}") from None


def _send(client: anthropic.Anthropic, probe: Probe) -> tuple[list[str], dict[str, Any]]:
    """Sends the probe's calls; returns notes and extra cassette metadata. Raises ``Retryable``/``NotRecorded``."""
    notes: list[str] = []
    extra: dict[str, Any] = {}
    if probe.script is not None:
        built = _build(client, probe)
        create_kwargs, count_kwargs = live.wire_kwargs(probe, built)
        extra["thinking_tokens"] = built.thinking_sizes()
        answers = sum(1 for m in built.messages if m["role"] == "assistant")
        notes.append(f"history built live from {answers} answers")
    else:
        create_kwargs, count_kwargs = probe.create_kwargs(), probe.count_kwargs()
    if count_kwargs is not None:
        _guarded("count_tokens", client.beta.messages.count_tokens, count_kwargs, notes)
    _guarded("create", client.beta.messages.create, create_kwargs, notes)
    return notes, extra


def record(probes: list[Probe], api_key: str, base_url: str | None, out_root: Path, *,
           attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
           stored_url: str | None = None) -> list[Recorded]:
    """Records every probe in order against ``base_url`` (default: ``resolve_base_url``) into ``out_root``,
    retrying transient answers with backoff; ``stored_url`` replaces the base URL in the recorded URIs
    (so a local server's port does not land).

    Stops after the first probe the provider stays unavailable for; that outcome is the last one.
    """
    url = resolve_base_url(base_url)
    with make_client(api_key, url) as client:
        return record_in_order(probes, lambda probe: _send(client, probe),
                               probe_sha256=lambda probe: digest(probe.create_kwargs()),
                               sdk=f"anthropic {anthropic.__version__}", base_url=url, stored_url=stored_url,
                               out_root=out_root, attempts=attempts, sleep=sleep)
