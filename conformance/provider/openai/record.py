"""Record OpenAI probes against a Responses API server (the real one or the emulator) into cassettes.

Each probe runs through the ``openai`` SDK with ``max_retries=0`` under vcrpy into a scratch file
(``run.run``: the earlier call, the suffix counts, the judged call); the finished cassette gets
``metadata: {server, probe, probe_sha256, sdk}`` and moves to ``<out>/<server>/<probe-id>.yaml``.
The key comes from ``OPENAI_API_KEY`` and the server from ``--base-url``, else ``OPENAI_BASE_URL``,
else the public API. Headers are cut to an allowlist and reasoning text and ciphertext are
scrubbed before anything is written (``cassettes``). A retryable answer (429, 5xx) is retried a
bounded number of times with backoff; if it persists the run stops with the probe ``unavailable``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from pathlib import Path

import openai

from .. import _recording
from .._recording import ATTEMPTS, NotRecorded, Recorded, Retryable, digest, record_in_order
from .probes import OpenAIProbe
from .run import RunProblem, make_client, run

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
KEY_VARIABLE = "OPENAI_API_KEY"


def resolve_base_url(given: str | None) -> str:
    """Returns ``given``, else ``$OPENAI_BASE_URL`` (the SDK's convention), else the public API."""
    return _recording.resolve_base_url(given, BASE_URL_VARIABLE, DEFAULT_BASE_URL)


def probe_digest(probe: OpenAIProbe) -> str:
    """Returns a sha256 over the probe's calls, to spot edited specs later."""
    calls = [{"request": s.request, "input": s.items()} for s in (probe.before, probe.call) if s is not None]
    return digest({"mechanism": probe.mechanism, "stream": probe.stream, "chain": probe.chain, "calls": calls})


def _send(probe: OpenAIProbe, client: openai.OpenAI) -> tuple[list[str], dict[str, Any]]:
    """Runs the probe's calls (``run.run``); returns their notes and no extra metadata. Raises
    ``Retryable`` or ``NotRecorded``."""
    try:
        return run(probe, client).notes, {}
    except RunProblem as exc:
        if exc.retryable:
            raise Retryable(str(exc)) from None
        raise NotRecorded(f"cannot connect ({exc})" if exc.transport else str(exc)) from None


def record(probes: list[OpenAIProbe], api_key: str, base_url: str | None, out_root: Path, *,
           attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
           stored_url: str | None = None) -> list[Recorded]:
    """Records every probe in order into ``out_root``, retrying transient answers with backoff; stops
    after the first one the provider stays unavailable for (that outcome is the last one)."""
    url = resolve_base_url(base_url)
    with make_client(api_key, url) as client:
        return record_in_order(probes, lambda probe: _send(probe, client), probe_sha256=probe_digest,
                               sdk=f"openai {openai.__version__}", base_url=url, stored_url=stored_url,
                               out_root=out_root, attempts=attempts, sleep=sleep)
