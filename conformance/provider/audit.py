"""``conformance audit``: fail on anything secret or any unscrubbed reasoning text in a cassette.

Checks the raw text (key-shaped strings, bearer tokens, organization ids, thinking fields whose
value is not a placeholder) and the parsed interactions (header names that carry credentials,
sessions or account ids; thinking blocks in JSON and SSE bodies and in bodies kept already parsed
(``parsed_body``), reasoning items with summary text; bodies stored as binary or gzip,
which the raw text shows only as base64, are decoded and scanned like the text). A file that cannot be parsed is still
scanned as text and is reported, so nothing passes by being unreadable.
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

from ..transcript import fingerprint
from .base import all_providers

SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "cookie", "set-cookie",
                            "request-id", "cf-ray", "x-request-id"})
# Any other header whose name says it carries a credential, a session or an account id (providers'
# organization and project headers among them).
SECRET_HEADER_NAME = re.compile(r"auth|api[-_]?key|token|secret|password|cookie|session|organi[sz]ation|account|project"
                                r"|request[-_]?id", re.IGNORECASE)
TEXT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("API key", re.compile(r"sk-ant-[A-Za-z0-9_\-]{6,}")),
    ("API key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9]{20,}")),
    ("bearer token", re.compile(r"Bearer\s+[A-Za-z0-9._~+/\-]{8,}")),
    ("organization id", re.compile(r"organi[sz]ation[_-]?id", re.IGNORECASE)),
    ("organization id", re.compile(r"\borg-[A-Za-z0-9]{12,}")),
    ("project id", re.compile(r"\bproj_[A-Za-z0-9]{12,}")),
    ("unscrubbed reasoning text", re.compile(r'\\?"thinking\\?"\s*:\s*\\?"(?!\[scrubbed:[0-9a-f]{12}\]\\?")')),
)


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


def _structure(data: Any) -> list[str]:
    found: list[str] = []
    interactions = data.get("interactions") if isinstance(data, dict) else None
    for index, item in enumerate(interactions if isinstance(interactions, list) else []):
        for side in ("request", "response"):
            part = item.get(side) if isinstance(item, dict) else None
            if not isinstance(part, dict):
                continue
            headers = part.get("headers")
            for name in (headers if isinstance(headers, dict) else {}):
                if str(name).lower() in SECRET_HEADERS or SECRET_HEADER_NAME.search(str(name)):
                    found.append(f"interactions[{index}].{side} carries header {name!r}")
            found += _body_leaks(part.get("body"), f"interactions[{index}].{side}.body")
            for key, value in part.items():  # a body some recorders keep already parsed (``parsed_body``)
                if key not in ("headers", "body") and isinstance(value, (dict, list)):
                    found += _thinking_leaks(value, f"interactions[{index}].{side}.{key}")
    return found


def audit_file(path: Path) -> list[Finding]:
    """Returns every secret or reasoning leak found in one cassette file (empty when clean)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return [Finding(path, 0, f"cannot read: {exc.strerror or exc}")]
    findings = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Reported, then scanned with the bad bytes replaced so nothing behind them escapes the audit.
        line = raw.count(b"\n", 0, exc.start) + 1
        findings.append(Finding(path, line, f"not UTF-8 (byte 0x{raw[exc.start]:02x}); verify cannot read this "
                                            "file, audited as text with the byte replaced"))
        text = raw.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        for label, rule in TEXT_RULES:
            if match := rule.search(line):
                findings.append(Finding(path, number, f"{label}: {masked(match.group(0))}"))
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        return findings + [Finding(path, 0, f"cannot parse, audited as text only: {str(exc).splitlines()[0]}")]
    findings += [Finding(path, 0, message) for message in _structure(data)]
    return findings


def audit(paths: Iterable[Path]) -> tuple[list[Finding], int]:
    """Returns (findings, number of files audited) for the cassette files under ``paths``."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
    findings: list[Finding] = []
    for path in files:
        findings += audit_file(path)
    return findings, len(files)
