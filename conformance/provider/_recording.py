"""What every provider's recorder shares: the outcome of one probe, the server name a cassette is
filed under, and filing a finished scratch cassette as ``<out>/<server>/<probe-id>.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import yaml

from . import cassettes

_SAFE = re.compile(r"[^A-Za-z0-9.+_-]")
_Probe = TypeVar("_Probe")


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
        for item in data["interactions"]:
            uri = item["request"]["uri"]
            if uri.startswith(base_url):
                item["request"]["uri"] = stored_url + uri[len(base_url):]
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

def record_in_order(probes: Iterable[_Probe], record_one: Callable[[_Probe], Recorded]) -> list[Recorded]:
    """Returns ``record_one``'s outcome for each probe in order, stopping after the first one the
    provider stays unavailable for (that outcome is the last one)."""
    outcomes: list[Recorded] = []
    for probe in probes:
        outcomes.append(record_one(probe))
        if outcomes[-1].unavailable:
            break
    return outcomes
