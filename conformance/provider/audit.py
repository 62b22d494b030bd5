"""``conformance audit``: fail on anything secret or any unscrubbed reasoning text in a recording.

Reads every file ``analyze`` reads, in every dialect (``recordings.dialects``). Checks the raw text
(key-shaped strings, bearer tokens, organization, project and workspace ids, a user name and
password in a URL, a credential-named query value such as ``?key=...``, thinking fields whose
value is not a placeholder), the headers wherever a dialect keeps them (a mapping, a HAR
list of name/value, nock's flat ``rawHeaders``): a header whose name says it carries a
credential, a session or an account id, or whose value is id-shaped, is a finding unless its
value is a placeholder (``<...>``, ``REDACTED``, ``scrubbed``); rate-limit headers are not. The
decoded bodies of every interaction are scanned for thinking blocks, reasoning text and
ciphertext (each provider's ``reasoning_leaks``), so
bodies stored as binary, gzip, hex chunks or base64 are audited like text. A file that cannot be
parsed is still scanned as text and reported, so nothing passes by being unreadable. ``fix``
writes a scrubbed copy with the recorder's scrubber.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..engine.tracebacks import CREDENTIAL_PARAMETER
from ..engine.transcript import fingerprint
from .base import all_providers
from .cassettes import PLACEHOLDER
from .recordings.reader import YAML_LOADER as _LOADER

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie",
                            "request-id", "cf-ray", "x-request-id"})
# Any other header whose name says it carries a credential, a session or an account id (providers'
# organization, workspace and project headers among them).
SECRET_HEADER_NAME = re.compile(r"auth|api[-_]?key|token|secret|password|cookie|session|organi[sz]ation|account|project"
                                r"|workspace|request[-_]?id", re.IGNORECASE)
# Counts and limits, not credentials, whatever their names say ("...-Tokens-Remaining").
HARMLESS_HEADER_NAME = re.compile(r"rate[-_]?limit|retry-after", re.IGNORECASE)
# A value a recorder put in place of the real one: ``<ANTHROPIC_API_KEY>``, ``REDACTED``, ``[scrubbed:...]``.
PLACEHOLDER_VALUE = re.compile(r"^\s*(\**|x+|)\s*$|<[^<>\s]+>|redacted|filtered|scrubbed|dummy|placeholder|fake"
                               r"|test[-_]?key", re.IGNORECASE)
# Each rule opens on its literal, so that a search of a whole file skips ahead to it (a leading ``\b``
# or optional character made the regular-expression engine try every position): ``sk-(?<=\bsk-)``
# is ``\bsk-`` and ``(?:\\"|")`` is ``\\?"``, with the same matches (``test_audit`` compares them).
TEXT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("API key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{6,}")),
    ("API key", re.compile(r"sk-(?<=\bsk-)(?:proj-)?[A-Za-z0-9]{20,}")),
    ("bearer token", re.compile(r"Bearer\s+[A-Za-z0-9._~+/\-]{8,}")),
    ("organization id", re.compile(r"org-(?<=\borg-)[A-Za-z0-9]{12,}")),
    ("project id", re.compile(r"proj_(?<=\bproj_)[A-Za-z0-9]{12,}")),
    ("workspace id", re.compile(r"wrkspc_(?<=\bwrkspc_)[A-Za-z0-9]{8,}")),
    # a user name and password in a URL (the recorder drops them) and a credential-named query
    # value not masked (the recorder writes REDACTED): only the ``secret`` group is replaced by ``fix``
    ("credentials in a URL", re.compile(r"://(?P<secret>[^/\s@'\"<>?#]+)@")),
    ("credential in a URL query", re.compile(rf"[?&;]{CREDENTIAL_PARAMETER}=(?!REDACTED\b|<|%3C)"
                                             r"(?P<secret>[^&;\s'\"<>#]+)", re.IGNORECASE)),
    ("unscrubbed reasoning text", re.compile(r'(?:\\"|")thinking\\?"\s*:\s*\\?"(?!\[scrubbed:[0-9a-f]{12}\]\\?"|\\?")')),
)
HEADER_KEYS = frozenset({"headers", "rawheaders", "reqheaders", "request_headers", "response_headers"})
# A streamed block reassembles from its scrubbed deltas into placeholders end to end.
PLACEHOLDERS = re.compile(r"(?:\[scrubbed:[0-9a-f]{12}\])+")


def _placeholders(text: str) -> bool:
    """Returns whether ``text`` is a placeholder, or placeholders one after another (scrubbed deltas)."""
    return bool(PLACEHOLDER.match(text) or PLACEHOLDERS.fullmatch(text))


@dataclass(frozen=True)
class Finding:
    """One audit failure: the file, the 1-based line (0 when unknown) and what was found."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


def _thinking_leaks(value: Any, where: str) -> list[str]:
    leaks = []
    if isinstance(value, dict):
        for provider in all_providers():
            leaks += provider.reasoning_leaks(value, where)
        for key, item in value.items():
            leaks += _thinking_leaks(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            leaks += _thinking_leaks(item, f"{where}[{index}]")
    return leaks


def masked(found: str) -> str:
    """Returns how a finding is shown: its first six characters, a hash and a length, never the secret."""
    return f"{found[:6]}... [#{fingerprint(found)}, {len(found)} chars]"


def _text_leaks(text: str, where: str) -> list[str]:
    return [f"{label} in {where}: {masked(match.group(0))}" for label, rule in TEXT_RULES
            if (match := rule.search(text))]


def _body_leaks(body: Any, where: str) -> list[str]:
    if isinstance(body, dict):
        body = body.get("string", "")
    leaks: list[str] = []
    if isinstance(body, bytes):
        # Stored as binary, so the line scan of the file saw only base64: decode it and scan it here.
        if body[:2] == b"\x1f\x8b":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError):
                return [f"{where} is gzip that does not decompress; it cannot be audited"]
        body = body.decode("utf-8", "replace")
        leaks += _text_leaks(body, where)
    if not isinstance(body, str) or not body:
        return leaks
    try:
        return leaks + _thinking_leaks(json.loads(body), where)
    except ValueError:
        pass
    for number, line in enumerate(body.splitlines()):
        if line.startswith("data:"):
            try:
                leaks += _thinking_leaks(json.loads(line[5:]), f"{where} (event line {number + 1})")
            except ValueError:
                continue
    return leaks


def is_placeholder(value: str) -> bool:
    """Returns whether a header value is a recorder's stand-in rather than the real value."""
    return bool(PLACEHOLDER_VALUE.search(value)) or bool(PLACEHOLDER.match(value))


def _pairs(headers: Any) -> list[tuple[str, str]]:
    """Returns (name, value) pairs of a header container in any dialect's shape."""
    if isinstance(headers, dict):
        return [(str(k), str(x)) for k, v in headers.items() for x in (v if isinstance(v, list) else [v])]
    if isinstance(headers, list) and all(isinstance(h, dict) for h in headers):  # HAR, Polly
        return [(str(h.get("name", "")), str(h.get("value", ""))) for h in headers]
    if isinstance(headers, list) and all(isinstance(h, str) for h in headers):  # nock rawHeaders
        return [(str(n), str(v)) for n, v in zip(headers[::2], headers[1::2])]
    return []


def _label(name: str, value: str) -> str | None:
    """Returns what a header holds when it is secret (``organization id``, ``credential``...), else None."""
    if HARMLESS_HEADER_NAME.search(name) or is_placeholder(value):
        return None
    for label, rule in TEXT_RULES[:-1]:
        if rule.search(value):
            return label
    lowered = name.lower()
    if lowered not in SECRET_HEADERS and not SECRET_HEADER_NAME.search(name):
        return None
    for word, label in (("organi", "organization id"), ("workspace", "workspace id"), ("project", "project id"),
                        ("cookie", "cookie"), ("session", "session"), ("request", "request id"), ("cf-ray", "request id")):
        if word in lowered:
            return label
    return "credential"


def header_leaks(data: Any, where: str = "") -> list[str]:
    """Returns a finding per secret header found anywhere in a parsed recording (any dialect)."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if str(key).lower() in HEADER_KEYS:
                for name, text in _pairs(value):
                    label = _label(name, text)
                    if label:
                        found.append(f"{where or 'the file'} carries header {name!r} ({label}): {masked(text)}")
            else:
                found += header_leaks(value, f"{where}.{key}" if where else str(key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            found += header_leaks(item, f"{where}[{index}]")
    return found


def _structure(data: Any) -> list[str]:
    found: list[str] = header_leaks(data)
    interactions = data.get("interactions") if isinstance(data, dict) else None
    for index, item in enumerate(interactions if isinstance(interactions, list) else []):
        for side in ("request", "response"):
            part = item.get(side) if isinstance(item, dict) else None
            if not isinstance(part, dict):
                continue
            found += _body_leaks(part.get("body"), f"interactions[{index}].{side}.body")
            for key, value in part.items():  # a body some recorders keep already parsed (``parsed_body``)
                if key not in ("headers", "body") and isinstance(value, (dict, list)):
                    found += _thinking_leaks(value, f"interactions[{index}].{side}.{key}")
    return found


def _decoded_leaks(path: Path, vcrpy: bool) -> list[Finding]:
    """Returns reasoning found in the decoded bodies of every interaction (any dialect, any encoding)."""
    from .recordings import RecordingError, iter_recording

    findings = []
    try:
        for item in iter_recording(path):
            if vcrpy and item.dialect == "vcrpy":
                continue  # already scanned body by body, with its place named
            if item.unreadable:
                continue  # the text scan covered it
            for side in ("request", "response"):
                for leak in _thinking_leaks(getattr(item, side), f"{item.where}.{side}"):
                    findings.append(Finding(path, item.line, leak))
    except RecordingError:
        pass  # reported by the parse below, and the text scan covered the bytes
    return findings


def audit_file(path: Path) -> list[Finding]:
    """Returns every secret or reasoning leak found in one cassette file (empty when clean)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return [Finding(path, 0, f"cannot read: {exc.strerror or exc}")]
    findings = []
    if raw[:2] == b"\x1f\x8b" or raw[:4] == b"\x28\xb5\x2f\xfd":  # a compressed recording: audit what it holds
        import io

        from .recordings.reader import _decompressed

        try:
            raw = _decompressed(str(path), io.BytesIO(raw)).read()
        except Exception as exc:  # noqa: BLE001 - each decompressor raises its own error type for corrupt data
            findings.append(Finding(path, 0, f"does not decompress ({type(exc).__name__}); audited as it is"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Reported, then scanned with the bad bytes replaced so nothing behind them escapes the audit.
        bad_line = raw.count(b"\n", 0, exc.start) + 1
        findings.append(Finding(path, bad_line, f"not UTF-8 (byte 0x{raw[exc.start]:02x}); verify cannot read this "
                                            "file, audited as text with the byte replaced"))
        text = raw.decode("utf-8", errors="replace")
    # a rule that matches no part of the text matches none of its lines: only the others are read line by line
    rules = [(label, rule) for label, rule in TEXT_RULES if rule.search(text)]
    for number, line in enumerate(text.splitlines() if rules else (), start=1):
        for label, rule in rules:
            if match := rule.search(line):
                findings.append(Finding(path, number, f"{label}: {masked(match.group(0))}"))
    findings += _decoded_leaks(path, vcrpy=True)
    documents = _documents(text)
    if documents is None:
        try:
            yaml.load(text, Loader=_LOADER)
        except yaml.YAMLError as exc:
            return findings + [Finding(path, 0, f"cannot parse, audited as text only: {str(exc).splitlines()[0]}")]
        return findings
    for number, data in documents:
        findings += [Finding(path, number, message) for message in _structure(data)]
    return findings


def _event_stream(text: str) -> bool:
    """Returns whether a file's text is a server-sent event stream: it opens on ``event:`` or
    ``data:``, or it opens on a comment, ``id:`` or ``retry:`` line and its first data is JSON."""
    from .recordings.dialects.sse_capture import recognises_text

    return text.lstrip().startswith(("event:", "data:")) or recognises_text(text)


def _documents(text: str) -> list[tuple[int, Any]] | None:
    """Returns the parsed document(s) of a file with their line (JSON lines: one per line), or None."""
    stripped = text.lstrip()
    if _event_stream(text):
        return []
    if stripped.startswith(("{", "[")):
        try:
            return [(0, json.loads(text))]
        except ValueError:
            parsed = []
            for number, line in enumerate(text.splitlines(), start=1):
                try:
                    parsed.append((number, json.loads(line)))
                except ValueError:
                    continue
            if parsed:
                return parsed
    try:
        return [(0, yaml.load(text, Loader=_LOADER))]
    except yaml.YAMLError:
        return None


def audit_files(paths: Iterable[Path]) -> list[Path]:
    """Returns the files ``audit`` reads: each file given, and under each folder every recording ``analyze`` reads."""
    from .recordings.reader import RECORDING_SUFFIXES

    files: list[Path] = []
    for path in paths:
        files += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in RECORDING_SUFFIXES) \
            if path.is_dir() else [path]
    return files


def audit(paths: Iterable[Path]) -> tuple[list[Finding], int]:
    """Returns (findings, number of files audited) for the recordings under ``paths``."""
    files = audit_files(paths)
    findings: list[Finding] = []
    for path in files:
        findings += audit_file(path)
    return findings, len(files)


REDACTED = "<REDACTED>"


def _redacted(match: re.Match[str]) -> str:
    """Returns what ``fix`` writes for one match: ``REDACTED`` in place of its ``secret`` group, or of
    all of it when the rule has none."""
    if "secret" not in match.re.groupindex:
        return REDACTED
    start, end = match.span("secret")
    return match.group(0)[: start - match.start()] + REDACTED + match.group(0)[end - match.start():]


def _scrub_text(text: str) -> str:
    for _, rule in TEXT_RULES[:-1]:
        text = rule.sub(_redacted, text)
    return text


def _scrub_headers(headers: Any) -> Any:
    if isinstance(headers, dict):
        return {k: ([REDACTED if _label(str(k), str(x)) else x for x in v] if isinstance(v, list)
                    else REDACTED if _label(str(k), str(v)) else v) for k, v in headers.items()}
    if isinstance(headers, list) and all(isinstance(h, dict) for h in headers):
        return [{**h, "value": REDACTED} if _label(str(h.get("name", "")), str(h.get("value", ""))) else h
                for h in headers]
    if isinstance(headers, list) and all(isinstance(h, str) for h in headers):
        out = list(headers)
        for n in range(1, len(out), 2):
            if _label(out[n - 1], out[n]):
                out[n] = REDACTED
        return out
    return headers


def scrubbed(data: Any) -> Any:
    """Returns a parsed recording with secret headers, key- and id-shaped text and reasoning text
    replaced (the recorder's ``scrub_json``/``scrub_body`` for bodies, ``<REDACTED>`` for the rest)."""
    from .cassettes import scrub_body, scrub_json

    if isinstance(data, dict):
        out = {k: _scrub_headers(v) if str(k).lower() in HEADER_KEYS else scrubbed(v) for k, v in data.items()}
        return scrub_json(out)
    if isinstance(data, list):
        return [scrubbed(x) for x in data]
    if isinstance(data, str):
        return _scrub_text(scrub_body(data.encode()).decode("utf-8", "replace")) if data else data
    if isinstance(data, (bytes, bytearray)):
        body = bytes(data)
        if body[:2] == b"\x1f\x8b":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError):
                return data
        body = scrub_body(body)
        try:
            return _scrub_text(body.decode("utf-8")).encode()
        except UnicodeDecodeError:
            return body
    return data


def fix(path: Path) -> Path:
    """Writes a scrubbed copy of the recording at ``path`` beside it (``NAME.scrubbed.EXT``, uncompressed)
    and returns its path. Raises ``FileExistsError`` when a different file of that name is there (it
    is never written over), ``OSError`` when it cannot be read or written."""
    from .cassettes import _scrub_sse
    from .recordings.reader import _decompressed

    with open(path, "rb") as handle:
        raw = _decompressed(str(path), handle).read()
    text = raw.decode("utf-8", "replace")
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    stem, dot, suffix = name.rpartition(".")
    target = path.with_name(f"{stem}.scrubbed.{suffix}" if dot else f"{name}.scrubbed")
    stripped = text.lstrip()
    documents = _documents(text)
    if _event_stream(text):
        out = _scrub_text(_scrub_sse(text))
    elif documents and documents[0][0]:  # JSON lines
        lines = text.splitlines()
        for number, data in documents:
            lines[number - 1] = json.dumps(scrubbed(data), ensure_ascii=False)
        out = "\n".join(_scrub_text(line) for line in lines) + "\n"
    elif documents and stripped.startswith(("{", "[")):
        out = json.dumps(scrubbed(documents[0][1]), indent=2, ensure_ascii=False) + "\n"
    elif documents:
        out = yaml.safe_dump(scrubbed(documents[0][1]), sort_keys=False, allow_unicode=True, width=120)
    else:
        out = _scrub_text(text)
    if target.exists() and target.read_text(encoding="utf-8", errors="replace") != out:
        raise FileExistsError(f"{target} exists and is not the scrubbed copy of {path}: not overwritten "
                              "(move it away and run audit --fix again)")
    target.write_text(out, encoding="utf-8")
    return target
