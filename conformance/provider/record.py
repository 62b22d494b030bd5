"""Record probes against a Messages API server (the real one or the emulator) into cassettes.

Each probe is sent through the anthropic SDK (``count_tokens`` when the probe asks for it, then
``beta.messages.create``) with ``max_retries=0`` under vcrpy, into a scratch file; the finished
cassette gets ``metadata: {server, probe, probe_sha256, sdk}`` and moves to
``<out>/<server>/<probe-id>.yaml``. A probe that met a retryable answer is not written.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anthropic
import yaml

from . import cassettes
from .probes import Probe

DEFAULT_BASE_URL = "https://api.anthropic.com"
_SAFE = re.compile(r"[^A-Za-z0-9.+_-]")


@dataclass(frozen=True)
class Recorded:
    """What happened to one probe: ``ok`` (written to ``path``) or not, with a one-line note."""

    probe: str
    ok: bool
    note: str
    path: Path | None = None


def probe_digest(probe: Probe) -> str:
    """Returns a sha256 over the probe's request and padded history, to spot edited specs later."""
    canonical = json.dumps(probe.create_kwargs(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def default_server(base_url: str) -> str:
    """Returns the server name assumed when the server does not name itself: the URL's host."""
    return _SAFE.sub("_", urlsplit(base_url).hostname or "unknown")


def make_client(api_key: str, base_url: str) -> anthropic.Anthropic:
    """Returns an SDK client with retries off and strict response validation."""
    return anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0,
                               _strict_response_validation=True)


def _send(client: anthropic.Anthropic, probe: Probe) -> tuple[list[str], int | None]:
    """Sends the probe's calls; returns notes and the first retryable status seen (None if none)."""
    notes: list[str] = []
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    if probe.count_kwargs() is not None:
        calls.append(("count_tokens", client.beta.messages.count_tokens, probe.count_kwargs() or {}))
    calls.append(("create", client.beta.messages.create, probe.create_kwargs()))
    for name, call, kwargs in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(**kwargs)
        except anthropic.APIStatusError as exc:
            if cassettes.should_retry(exc.status_code, exc.response.headers.get_list("x-should-retry")):
                return notes + [f"{name}: server answered {exc.status_code}; not recorded, run again"], exc.status_code
            notes.append(f"{name}: answered {exc.status_code}")
        except anthropic.APIResponseValidationError:
            notes.append(f"{name}: response does not parse strictly (verify will report it)")
        except anthropic.APIConnectionError as exc:
            return notes + [f"{name}: cannot connect ({exc.__cause__ or exc})"], -1
    return notes, None


def record_probe(probe: Probe, client: anthropic.Anthropic, base_url: str, out_root: Path) -> Recorded:
    """Records one probe and returns what happened; never raises for a server problem."""
    fallback = default_server(base_url)
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch) / "cassette.yaml"
        recorder = cassettes.make_vcr("all", fallback)
        with recorder.use_cassette(str(scratch_path)):
            notes, failed = _send(client, probe)
        if failed is not None:
            return Recorded(probe.id, False, "; ".join(notes))
        if not scratch_path.is_file():
            return Recorded(probe.id, False, "nothing was recorded")
        data = yaml.load(scratch_path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    headers = data["interactions"][-1]["response"].get("headers", {})
    server = _SAFE.sub("_", (headers.get("x-conformance-server") or [fallback])[0])
    data["metadata"] = {"server": server, "probe": probe.id, "probe_sha256": probe_digest(probe),
                        "sdk": f"anthropic {anthropic.__version__}"}
    target = out_root / server / f"{probe.id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(cassettes.dump(data), encoding="utf-8")
    return Recorded(probe.id, True, "; ".join(notes) or "recorded", target)


def record(probes: list[Probe], api_key: str, base_url: str | None, out_root: Path) -> list[Recorded]:
    """Records every probe in order against ``base_url`` (default: the public API) into ``out_root``."""
    url = base_url or DEFAULT_BASE_URL
    with make_client(api_key, url) as client:
        return [record_probe(probe, client, url, out_root) for probe in probes]
