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

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import openai

from .. import cassettes
from .._recording import Recorded, default_server, finish, record_in_order
from .probes import OpenAIProbe
from .run import RunProblem, make_client, run

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_VARIABLE = "OPENAI_BASE_URL"
KEY_VARIABLE = "OPENAI_API_KEY"
ATTEMPTS = 4
BACKOFF_SECONDS = 2.0
SLEEP: Callable[[float], None] = time.sleep  # the wait between attempts; tests replace it


def resolve_base_url(given: str | None) -> str:
    """Returns ``given``, else ``$OPENAI_BASE_URL`` (the SDK's convention), else the public API."""
    return given or os.environ.get(BASE_URL_VARIABLE, "").strip() or DEFAULT_BASE_URL


def probe_digest(probe: OpenAIProbe) -> str:
    """Returns a sha256 over the probe's calls, to spot edited specs later."""
    calls = [{"request": s.request, "input": s.items()} for s in (probe.before, probe.call) if s is not None]
    canonical = json.dumps({"mechanism": probe.mechanism, "stream": probe.stream, "chain": probe.chain,
                            "calls": calls}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _attempt(probe: OpenAIProbe, client: openai.OpenAI, base_url: str, out_root: Path,
             stored_url: str | None) -> Recorded | str:
    """Returns the outcome, or a note when the server answered with something to retry."""
    fallback = default_server(base_url)
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch) / "cassette.yaml"
        recorder = cassettes.make_vcr("all", fallback)
        try:
            with recorder.use_cassette(str(scratch_path)):
                ran = run(probe, client)
                notes += ran.notes
        except RunProblem as exc:
            if exc.retryable:
                return str(exc)
            if exc.transport:
                return Recorded(probe.id, False, f"cannot connect ({exc})")
            return Recorded(probe.id, False, str(exc))
        return finish(scratch_path, notes, probe_id=probe.id, probe_sha256=probe_digest(probe),
                      sdk=f"openai {openai.__version__}", base_url=base_url, stored_url=stored_url,
                      out_root=out_root)


def record_probe(probe: OpenAIProbe, client: openai.OpenAI, base_url: str, out_root: Path, *,
                 attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
                 stored_url: str | None = None) -> Recorded:
    """Records one probe, retrying transient answers with backoff; never raises for a server problem."""
    note = "no answer"
    for attempt in range(attempts):
        outcome = _attempt(probe, client, base_url, out_root, stored_url)
        if isinstance(outcome, Recorded):
            return outcome
        note = outcome
        if attempt + 1 < attempts:
            (sleep or SLEEP)(BACKOFF_SECONDS * 2 ** attempt)
    return Recorded(probe.id, False, f"{note} on all {attempts} attempts; provider unavailable, not recorded",
                    unavailable=True)


def record(probes: list[OpenAIProbe], api_key: str, base_url: str | None, out_root: Path, *,
           attempts: int = ATTEMPTS, sleep: Callable[[float], None] | None = None,
           stored_url: str | None = None) -> list[Recorded]:
    """Records every probe in order into ``out_root``; stops after the first one the provider stays
    unavailable for (that outcome is the last one)."""
    url = resolve_base_url(base_url)
    with make_client(api_key, url) as client:
        return record_in_order(probes, lambda probe: record_probe(probe, client, url, out_root, attempts=attempts,
                                                                  sleep=sleep, stored_url=stored_url))
