"""What every provider's recorder shares: the outcome of one probe, the server name a cassette is
filed under, recording one attempt into a scratch cassette filed as ``<out>/<server>/<probe-id>.yaml``,
and recording probes in order, retrying what the server asks to retry with backoff.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

import yaml

from . import cassettes

_SAFE = re.compile(r"[^A-Za-z0-9.+_-]")


class _Identified(Protocol):
    """A probe as the recorder needs it: its id."""

    @property
    def id(self) -> str: ...


_Probe = TypeVar("_Probe", bound=_Identified)
ATTEMPTS = 4
BACKOFF_SECONDS = 2.0
SLEEP: Callable[[float], None] = time.sleep  # the wait between attempts; tests replace it


class Retryable(Exception):
    """The server answered with something to retry; carries a note and the wait it asks for (None: the backoff's)."""

    def __init__(self, note: str, wait: float | None = None) -> None:
        super().__init__(note)
        self.note, self.wait = note, wait


class NotRecorded(Exception):
    """The probe cannot be recorded this run (cannot connect, or the server did not follow the script)."""


@dataclass(frozen=True)
class Recorded:
    """What happened to one probe: ``ok`` (written to ``path``) or not, with a one-line note.

    ``unavailable`` means the server kept answering with a retryable error (overloaded, rate limited).
    """

    probe: str
    ok: bool
    note: str
    path: Path | None = None
    unavailable: bool = False


def resolve_base_url(given: str | None, variable: str, default: str) -> str:
    """Returns ``given``, else the environment's ``variable`` (the SDKs' convention), else ``default``."""
    return given or os.environ.get(variable, "").strip() or default


def digest(canonical: Any) -> str:
    """Returns a sha256 over ``canonical`` as compact JSON with sorted keys (a probe's, to spot edited specs later)."""
    return hashlib.sha256(json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def default_server(base_url: str) -> str:
    """Returns the server name assumed when the server does not name itself: the URL's host."""
    return _SAFE.sub("_", urlsplit(base_url).hostname or "unknown")


def read_scratch(path: Path) -> dict[str, Any]:
    """Returns the cassette vcrpy wrote to ``path``, as plain data."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def file_cassette(data: dict[str, Any], *, probe_id: str, probe_sha256: str, sdk: str, base_url: str,
                  stored_url: str | None, out_root: Path, extra: dict[str, Any] | None = None) -> Path:
    """Writes the cassette under ``out_root/<server>/<probe_id>.yaml`` and returns its path.

    ``stored_url`` replaces ``base_url`` in the recorded URIs; the server is the last answer's
    ``x-conformance-server`` header, else ``default_server(base_url)``.
    """
    if stored_url:
        recorded_base = cassettes.recorded_uri(base_url)  # as the recorder stored it
        for item in data["interactions"]:
            uri = item["request"]["uri"]
            if uri.startswith(recorded_base):
                item["request"]["uri"] = stored_url + uri[len(recorded_base):]
    headers = data["interactions"][-1]["response"].get("headers", {})
    server = _SAFE.sub("_", (headers.get("x-conformance-server") or [default_server(base_url)])[0])
    data["metadata"] = {"server": server, "probe": probe_id, "probe_sha256": probe_sha256, "sdk": sdk,
                        **(extra or {})}
    target = out_root / server / f"{probe_id}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(cassettes.dump(data), encoding="utf-8")
    return target


def finish(scratch: Path, notes: list[str], *, probe_id: str, probe_sha256: str, sdk: str, base_url: str,
           stored_url: str | None, out_root: Path, extra: dict[str, Any] | None = None) -> Recorded:
    """Returns the outcome of a recording vcrpy wrote to ``scratch``: filed by ``file_cassette``, or
    not ok when nothing was recorded."""
    if not scratch.is_file():
        return Recorded(probe_id, False, "nothing was recorded")
    target = file_cassette(read_scratch(scratch), probe_id=probe_id, probe_sha256=probe_sha256, sdk=sdk,
                           base_url=base_url, stored_url=stored_url, out_root=out_root, extra=extra)
    return Recorded(probe_id, True, "; ".join(notes) or "recorded", target)

def attempt(probe_id: str, send: Callable[[], tuple[list[str], dict[str, Any]]], *, probe_sha256: str, sdk: str,
            base_url: str, stored_url: str | None, out_root: Path) -> Recorded | Retryable:
    """Returns the outcome of one attempt: ``send()`` (its notes and extra metadata) recorded by vcrpy
    into a scratch cassette and filed by ``finish``, not ok when it raised ``NotRecorded``, or the
    ``Retryable`` it raised."""
    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch) / "cassette.yaml"
        recorder = cassettes.make_vcr("all", default_server(base_url))
        try:
            with recorder.use_cassette(str(scratch_path)):
                notes, extra = send()
        except Retryable as exc:
            return exc
        except NotRecorded as exc:
            return Recorded(probe_id, False, str(exc))
        return finish(scratch_path, notes, probe_id=probe_id, probe_sha256=probe_sha256, sdk=sdk, base_url=base_url,
                      stored_url=stored_url, out_root=out_root, extra=extra)


def retried(probe_id: str, attempt_once: Callable[[], Recorded | Retryable], attempts: int = ATTEMPTS,
            sleep: Callable[[float], None] | None = None) -> Recorded:
    """Returns the first outcome of ``attempt_once`` that is not a retry, trying at most ``attempts``
    times and waiting between tries what the server asked, else a doubling backoff; never raises for
    a server problem (one that persists is an ``unavailable`` outcome)."""
    last: Retryable | None = None
    for tried in range(attempts):
        outcome = attempt_once()
        if isinstance(outcome, Recorded):
            return outcome
        last = outcome
        if tried + 1 < attempts:
            (sleep or SLEEP)(outcome.wait if outcome.wait is not None else BACKOFF_SECONDS * 2 ** tried)
    note = f"{last.note if last else 'no answer'} on all {attempts} attempts; provider unavailable, not recorded"
    return Recorded(probe_id, False, note, unavailable=True)


def record_in_order(probes: Iterable[_Probe], send: Callable[[_Probe], tuple[list[str], dict[str, Any]]], *,
                    probe_sha256: Callable[[_Probe], str], sdk: str, base_url: str, stored_url: str | None,
                    out_root: Path, attempts: int = ATTEMPTS,
                    sleep: Callable[[float], None] | None = None) -> list[Recorded]:
    """Returns the outcome of recording each probe in order (``send(probe)`` through ``attempt``, up to
    ``attempts`` times as ``retried``), stopping after the first one the provider stays unavailable for
    (that outcome is the last one). ``stored_url`` replaces ``base_url`` in the recorded URIs."""
    outcomes: list[Recorded] = []
    for probe in probes:
        def once(probe: _Probe = probe) -> Recorded | Retryable:
            return attempt(probe.id, lambda: send(probe), probe_sha256=probe_sha256(probe), sdk=sdk,
                           base_url=base_url, stored_url=stored_url, out_root=out_root)

        outcomes.append(retried(probe.id, once, attempts, sleep))
        if outcomes[-1].unavailable:
            break
    return outcomes
