"""Record probes against a Messages API server (the real one or the emulator) into cassettes.

Each probe is sent through the anthropic SDK with ``max_retries=0`` under vcrpy, into a scratch
file: a probe with ``script`` first builds its history live (``live.drive``), then ``count_tokens``
when the probe asks for it, then ``beta.messages.create``. The finished cassette gets
``metadata: {server, probe, probe_sha256, sdk}`` (plus ``thinking_tokens``, the size of each
scrubbed thinking text, for a built history) and moves to ``<out>/<server>/<probe-id>.yaml``.
A retryable answer (429, 529, ``overloaded_error``, other 5xx) is retried a bounded number of
times with backoff; if it persists the probe is marked ``unavailable`` and the run stops.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

from .. import cassettes
from .._recording import Recorded, default_server, finish, record_in_order
from . import live
from .client import make_client
from .probes import Probe

DEFAULT_BASE_URL = "https://api.anthropic.com"
BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL"
ATTEMPTS = 4
BACKOFF_SECONDS = 2.0
MAX_WAIT_SECONDS = 60.0
SLEEP: Callable[[float], None] = time.sleep  # the wait between attempts; tests replace it


class _Retryable(Exception):
    """The server answered with something the SDK would retry; carries a note and a suggested wait."""

    def __init__(self, note: str, wait: float | None) -> None:
        super().__init__(note)
        self.note, self.wait = note, wait


class _Failed(Exception):
    """The probe cannot be recorded this run (cannot connect, or the server did not follow the script)."""


def resolve_base_url(given: str | None) -> str:
    """Returns ``given``, else ``$ANTHROPIC_BASE_URL`` (the SDK's convention), else the public API."""
    return given or os.environ.get(BASE_URL_VARIABLE, "").strip() or DEFAULT_BASE_URL


def probe_digest(probe: Probe) -> str:
    """Returns a sha256 over the probe's request and padded history, to spot edited specs later."""
    canonical = json.dumps(probe.create_kwargs(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


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
    """Returns the call's answer (None after a recorded error answer); raises ``_Retryable``/``_Failed``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(**kwargs)
    except anthropic.APIStatusError as exc:
        if is_transient(exc):
            raise _Retryable(f"{name}: server answered {exc.status_code}", _retry_after(exc)) from None
        notes.append(f"{name}: answered {exc.status_code}")
    except anthropic.APIResponseValidationError:
        notes.append(f"{name}: response does not parse strictly (verify will report it)")
    except anthropic.APIConnectionError as exc:
        raise _Failed(f"{name}: cannot connect ({exc.__cause__ or exc})") from None
    return None


def _build(client: anthropic.Anthropic, probe: Probe) -> live.Built:
    """Returns the probe's history built live; raises ``_Retryable``, or ``_Failed`` when it cannot be built."""

    def create(**kwargs: Any) -> Any:
        answer = _guarded("building the history", client.beta.messages.create, kwargs, notes)
        if answer is None:
            raise _Failed(notes[-1])
        return answer

    notes: list[str] = []
    try:
        return live.drive(probe, create)
    except live.ScriptError as exc:
        raise _Failed(f"the server did not follow the script: {exc}") from None


def _send(client: anthropic.Anthropic, probe: Probe) -> tuple[list[str], dict[str, Any]]:
    """Sends the probe's calls; returns notes and extra cassette metadata. Raises ``_Retryable``/``_Failed``."""
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


def _attempt(probe: Probe, client: anthropic.Anthropic, base_url: str, out_root: Path,
             stored_url: str | None) -> Recorded | _Retryable:
    fallback = default_server(base_url)
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch) / "cassette.yaml"
        recorder = cassettes.make_vcr("all", fallback)
        try:
            with recorder.use_cassette(str(scratch_path)):
                notes, extra = _send(client, probe)
        except _Retryable as exc:
            return exc
        except _Failed as exc:
            return Recorded(probe.id, False, str(exc))
        return finish(scratch_path, notes, probe_id=probe.id, probe_sha256=probe_digest(probe),
                      sdk=f"anthropic {anthropic.__version__}", base_url=base_url, stored_url=stored_url,
                      out_root=out_root, extra=extra)


def record_probe(probe: Probe, client: anthropic.Anthropic, base_url: str, out_root: Path, *,
                 attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
                 stored_url: str | None = None) -> Recorded:
    """Records one probe, retrying transient answers with backoff; never raises for a server problem.

    ``stored_url`` replaces ``base_url`` in the recorded URIs (so a local server's port does not land).
    """
    last: _Retryable | None = None
    for attempt in range(attempts):
        outcome = _attempt(probe, client, base_url, out_root, stored_url)
        if isinstance(outcome, Recorded):
            return outcome
        last = outcome
        if attempt + 1 < attempts:
            (sleep or SLEEP)(outcome.wait if outcome.wait is not None else BACKOFF_SECONDS * 2 ** attempt)
    note = f"{last.note if last else 'no answer'} on all {attempts} attempts; provider unavailable, not recorded"
    return Recorded(probe.id, False, note, unavailable=True)


def record(probes: list[Probe], api_key: str, base_url: str | None, out_root: Path, *,
           attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
           stored_url: str | None = None) -> list[Recorded]:
    """Records every probe in order against ``base_url`` (default: ``resolve_base_url``) into ``out_root``.

    Stops after the first probe the provider stays unavailable for; that outcome is the last one.
    """
    url = resolve_base_url(base_url)
    with make_client(api_key, url) as client:
        return record_in_order(probes, lambda probe: record_probe(probe, client, url, out_root, attempts=attempts,
                                                                  sleep=sleep, stored_url=stored_url))
