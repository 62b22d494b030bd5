"""The traceback of a target that raised: its own frames only, credentials scrubbed, keyed by place.

A report shows each distinct exception once; "distinct" means the same exception type raised through
the same frames (file, line, function), whatever its message says.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

from . import clock

MAX_FRAMES = 30
MAX_LINE = 400
REDACTED = "[redacted credential]"
_CREDENTIALS = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9]{20,}"),
    re.compile(r"Bearer\s+[A-Za-z0-9._~+/\-]{8,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),  # a Google API key
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # an AWS access key id
)
# HTTP basic credentials: ``Basic`` and the base64 of ``user:password`` (group 1; checked by decoding).
_BASIC = re.compile(r"\bBasic\s+([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])")
# A header or parameter whose name says it carries a credential, and its value: ``name: value``,
# ``name=value``, a dict's ``'name': 'value'``, JSON's ``"name": "value"``. An unquoted value is
# one word of 8 characters or more (after an auth scheme), so prose naming a header keeps its words.
_CREDENTIAL_FIELD = re.compile(
    r"""(?<![\w-])(?P<q>['"]?)(?:x[-_](?:goog[-_])?)?(?:api[-_]?key|(?:proxy[-_])?authorization|cookie"""
    r"""|x[-_]amz[-_]security[-_]token)(?P=q)\s*[:=]\s*"""
    r"""(?:(?P<vq>['"])(?P<quoted>(?:\\.|(?!(?P=vq))[^\\\n])+)(?P=vq)"""
    r"""|(?P<bare>(?:(?:Basic|Bearer|Digest|Token|ApiKey|Key)\s+)?[^\s,;'"(){}\[\]<>]{8,}))""",
    re.IGNORECASE)
# A URL's user name and password (``https://user:token@host``), with the ``@`` that ends them.
URL_USERINFO = re.compile(r"(?<=://)[^/\s@'\"<>?#]+@")
# The name of a query parameter that carries a credential: ``key``, ``api_key``, ``access_token``,
# ``x-amz-signature``, ``sig``, ``client_secret``... (``max_tokens`` is no such name).
CREDENTIAL_PARAMETER = r"(?:[A-Za-z0-9]+[-_])*(?:api[-_]?key|apikey|key|token|secret|password|passwd|sig|signature|credential)"
# A credential-named query parameter: its separator, name and ``=`` (group 1), then its value (one
# already replaced by ``REDACTED`` is left as it is).
CREDENTIAL_QUERY = re.compile(rf"([?&;]{CREDENTIAL_PARAMETER}=)(?!\[redacted )[^&;\s'\"<>#]+", re.IGNORECASE)
_SECRET_ENV_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_FRAME_LINE = re.compile(r'^\s*File "[^"]*", line \d+, in ')


def _skip(tb: TracebackType | None, frames: int) -> TracebackType | None:
    for _ in range(frames):
        if tb is None or tb.tb_next is None:
            break
        tb = tb.tb_next
    return tb


def credential_scrubber() -> Callable[[str], str]:
    """Returns ``scrub_credentials`` with the secret-named environment variables read once, now
    (reading the environment costs more than scrubbing a short text)."""
    named = [(name, value) for name, value in os.environ.items()
             if len(value) >= 8 and _SECRET_ENV_NAME.search(name)]

    def scrub(text: str) -> str:
        if not text:
            return text
        for name, value in named:
            if value in text:
                text = text.replace(value, f"[redacted ${name}]")
        return _without_credentials(text)

    return scrub


def _field_value_redacted(match: re.Match[str]) -> str:
    """Returns a credential-named field of ``_CREDENTIAL_FIELD`` with its value replaced."""
    group = "quoted" if match.group("quoted") is not None else "bare"
    start, end = match.span(group)
    return match.group(0)[: start - match.start()] + REDACTED + match.group(0)[end - match.start():]


def _basic_redacted(match: re.Match[str]) -> str:
    """Returns ``Basic`` and a placeholder when the word after it is the base64 of ``user:password``,
    else the match unchanged (``Basic settings`` is prose)."""
    try:
        decoded = base64.b64decode(match.group(1), validate=True)
    except ValueError:
        return match.group(0)
    return f"Basic {REDACTED}" if b":" in decoded else match.group(0)


def _without_credentials(text: str) -> str:
    """Returns ``text`` with key- and token-shaped strings, HTTP basic credentials, the values of
    credential-named headers and query parameters, and a URL's user name and password replaced."""
    for pattern in _CREDENTIALS:
        text = pattern.sub(REDACTED, text)
    if "Basic" in text:
        text = _BASIC.sub(_basic_redacted, text)
    if "://" in text:
        text = URL_USERINFO.sub(f"{REDACTED}@", text)
    if "=" in text:
        text = CREDENTIAL_QUERY.sub(rf"\g<1>{REDACTED}", text)
    return _CREDENTIAL_FIELD.sub(_field_value_redacted, text)


def scrub_credentials(text: str) -> str:
    """Returns ``text`` with API keys, bearer tokens and basic credentials, the values of
    credential-named headers and URL query parameters, a URL's user name and password, and the
    values of secret-named environment variables replaced by a placeholder."""
    return credential_scrubber()(text) if text else text


def scrub_data(value: Any, scrub: Callable[[str], str] | None = None) -> Any:
    """Returns a copy of plain data with ``scrub`` (by default ``scrub_credentials``) applied to
    every string."""
    scrub = scrub or credential_scrubber()
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {k: scrub_data(v, scrub) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_data(v, scrub) for v in value]
    return value


def target_traceback(exc: BaseException, harness_frames: int = 1) -> str:
    """Returns the formatted traceback of ``exc`` without the harness's own ``harness_frames``
    outermost frames: the last ``MAX_FRAMES`` frames of the target's code, long lines cut,
    credentials scrubbed."""
    tb = _skip(exc.__traceback__, harness_frames)
    if tb is not None and tb is exc.__traceback__ and tb.tb_next is None and harness_frames > 0:
        # raised by the call itself (a target of the wrong arity, say): no frame of the target to show
        text = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
        return scrub_credentials(f"{text}\n(raised by the call itself, in no Python frame of the target: a "
                                 "target of the wrong arity, or one written in C; a target is called as "
                                 "target(history, **options))")
    lines = _without_clock("".join(traceback.format_exception(type(exc), exc, tb, limit=-MAX_FRAMES)).splitlines())
    cut = [line if len(line) <= MAX_LINE else f"{line[:MAX_LINE]}... ({len(line) - MAX_LINE} more chars)"
           for line in lines]
    return scrub_credentials("\n".join(cut))


_CLOCK = clock.__file__  # its import timer stands between a target and each module it imports


def _without_clock(lines: list[str]) -> list[str]:
    """Returns traceback lines without the frames of the import timer (``clock``): a frame's
    ``File ...`` line and the source lines under it."""
    kept: list[str] = []
    skipping = False
    for line in lines:
        if _FRAME_LINE.match(line):
            skipping = f'File "{_CLOCK}"' in line
        elif skipping and not line.startswith("    "):
            skipping = False
        if not skipping:
            kept.append(line)
    return kept


def stack_of(thread: threading.Thread, harness_file: str) -> str | None:
    """Returns where a still-running ``thread`` is now: its frames below the last one in
    ``harness_file`` (the last ``MAX_FRAMES``), as a traceback, credentials scrubbed; None when it
    has no frame to show."""
    frame = sys._current_frames().get(thread.ident or -1)
    if frame is None:
        return None
    frames = [f for f in traceback.extract_stack(frame) if f.filename != _CLOCK]
    harness = [k for k, f in enumerate(frames) if f.filename == harness_file]
    own = frames[harness[-1] + 1:] if harness else frames
    if not own:
        return None
    text = "Stack when the time ran out (most recent call last):\n" + "".join(traceback.format_list(own[-MAX_FRAMES:]))
    return scrub_credentials(text.rstrip("\n") + "\nTimeoutError: no answer within the time limit")


def traceback_key(text: str) -> str:
    """Returns a short key that two tracebacks share when they raise the same exception type
    through the same frames (messages aside)."""
    lines = [line for line in text.splitlines() if line.strip()]
    frames = [line.strip() for line in lines if _FRAME_LINE.match(line)]
    last = lines[-1] if lines else ""
    kind = last.split(":", 1)[0]
    return hashlib.sha256("\n".join([*frames, kind]).encode("utf-8")).hexdigest()[:10]
