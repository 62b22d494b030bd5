"""Cassette handling: the vcrpy configuration, scrubbing, the hashed body matcher, loading, blocking.

Cassettes are standard vcrpy YAML (``version: 1``, ``interactions``) plus vcrpy's ``metadata``
mapping, which names the ``server`` that answered and the ``probe`` id. They live at
``cassettes/<server>/<probe-id>.yaml``. Before anything is written, request and response headers
are cut down to an allowlist (so keys, organization ids, request ids and cookies never land), the
request URI loses its user name and password and its credential-named query values, the
reasoning text every provider's JSON and SSE bodies carry becomes ``[scrubbed:<sha256[:12]>]``
(``base.Provider.scrub``), and
retryable answers (408, 409, 429, 5xx) are dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import socket
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

import vcr
from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister
from vcr.request import Request
from vcr.serializers import compat

from ..engine._yamlsource import load_document, read_text
from ..engine.tracebacks import CREDENTIAL_QUERY, URL_USERINFO
from ..errors import SpecError

PLACEHOLDER = re.compile(r"^(?:\[scrubbed:[0-9a-f]{12}\])+$")  # a streamed block: its deltas' placeholders end to end
REQUEST_HEADERS_KEPT = frozenset({"content-type", "accept"})  # and each provider's ``request_headers``
RESPONSE_HEADERS_KEPT = frozenset({"content-type", "x-conformance-server", "retry-after", "x-should-retry"})
RETRYABLE = frozenset({408, 409, 429})
MASKED = "REDACTED"  # what a recorded URI holds in place of a credential-named query parameter's value
MATCH_ON = ("method", "path", "body_hash")
# A server-sent event stream: any line opening with ``data:`` (comments, ``id:`` and ``retry:`` lines may come first).
EVENT_STREAM = re.compile(r"^data:", re.MULTILINE)
# The SDK speaks httpx2 only; patching the other libraries costs failed imports on every cassette.
SKIPPED_PATCHERS = tuple(name for name in vcr.patch.PATCHER_NAMES if name != "httpx2")


def placeholder(text: str) -> str:
    """Returns the scrubbed stand-in for reasoning text; an existing placeholder is returned unchanged."""
    if not text or PLACEHOLDER.match(text):
        return text
    return f"[scrubbed:{hashlib.sha256(text.encode()).hexdigest()[:12]}]"


@lru_cache(maxsize=1)
def _scrubbers() -> tuple[Callable[[dict[str, Any]], None], ...]:
    """Returns every registered provider's ``scrub`` (each replaces its reasoning in one JSON object)."""
    from . import base

    return tuple(p.scrub for p in base.all_providers())


def scrub_json(value: Any) -> Any:
    """Returns ``value`` with every provider's reasoning text and ciphertext replaced
    (``base.Provider.scrub``) and error ``request_id`` masked (edits in place)."""
    if isinstance(value, dict):
        for scrub in _scrubbers():
            scrub(value)
        if value.get("type") == "error" and isinstance(value.get("request_id"), str):
            value["request_id"] = "req_scrubbed"
        for item in value.values():
            scrub_json(item)
    elif isinstance(value, list):
        for item in value:
            scrub_json(item)
    return value


def _scrub_sse(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        if line.startswith("data:"):
            payload = line[5:].strip()
            with contextlib.suppress(ValueError):
                line = "data: " + json.dumps(scrub_json(json.loads(payload)), separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines)


@lru_cache(maxsize=1)
def _scrub_markers() -> tuple[bytes, ...]:
    """Returns the byte strings a body must hold for scrubbing to change it (an error's ``request_id``
    and each provider's ``scrub_markers``)."""
    from . import base

    return (b'"request_id"', *(m for p in base.all_providers() for m in p.scrub_markers))


@lru_cache(maxsize=256)
def scrub_body(body: bytes) -> bytes:
    """Returns a JSON or SSE body with reasoning text scrubbed; other bodies come back unchanged."""
    if not body or not any(marker in body for marker in _scrub_markers()):
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.dumps(scrub_json(json.loads(text)), separators=(",", ":")).encode()
        except ValueError:
            return body
    if EVENT_STREAM.search(text):
        return _scrub_sse(text).encode()
    return body


def _as_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    return body.encode() if isinstance(body, str) else bytes(body)


@lru_cache(maxsize=1024)
def body_hash(body: bytes) -> str:
    """Returns the sha256 of a request body after scrubbing and key sorting (raw bytes if not JSON)."""
    scrubbed = scrub_body(body)
    try:
        canonical = json.dumps(json.loads(scrubbed), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        canonical = scrubbed
    return hashlib.sha256(canonical).hexdigest()


def body_hash_matcher(live: Request, stored: Request) -> None:
    """Returns None when both bodies hash alike; raises AssertionError naming both hashes otherwise.

    Requests to different paths are left to the path matcher; identical scrubbed bytes match without
    hashing, so the canonical (key-sorted) hash is computed only for bodies that differ in bytes.
    """
    if live.path != stored.path:
        return
    left_body, right_body = scrub_body(_as_bytes(live.body)), scrub_body(_as_bytes(stored.body))
    if left_body == right_body:
        return
    left, right = body_hash(left_body), body_hash(right_body)
    assert left == right, f"request body differs (sha256 {left[:12]} != {right[:12]})"


@lru_cache(maxsize=1)
def request_headers_kept() -> frozenset[str]:
    """Returns the request headers a cassette keeps: ``REQUEST_HEADERS_KEPT`` and each provider's
    ``request_headers`` (the ones that select its API's version and features)."""
    from . import base

    return REQUEST_HEADERS_KEPT.union(*(p.request_headers for p in base.all_providers()))


def recorded_uri(uri: str) -> str:
    """Returns ``uri`` as a cassette stores it: without a user name and password, and with the value of
    each credential-named query parameter (``key``, ``api_key``, ``access_token``, ``sig``...) masked,
    its name kept. Replay matches on method, path and body, none of which this changes."""
    return CREDENTIAL_QUERY.sub(rf"\g<1>{MASKED}", URL_USERINFO.sub("", uri))


def before_record_request(request: Request) -> Request:
    """Returns a copy of the request with allowlisted headers, a URI without credentials
    (``recorded_uri``) and a scrubbed body."""
    kept = {k: v for k, v in request.headers.items() if k.lower() in request_headers_kept()}
    clean = Request(request.method, recorded_uri(request.uri), scrub_body(_as_bytes(request.body)), kept)
    return clean


def should_retry(code: int, should_retry_headers: list[str]) -> bool:
    """Returns whether the SDK would retry an answer with this status and ``x-should-retry`` values."""
    return code in RETRYABLE or code >= 500 or "true" in (v.lower() for v in should_retry_headers)


def is_retryable(response: dict[str, Any]) -> bool:
    """Returns whether the SDK would retry this recorded answer (408, 409, 429, 5xx or ``x-should-retry: true``)."""
    should = [v for k, vs in response.get("headers", {}).items() if k.lower() == "x-should-retry" for v in vs]
    return should_retry(int(response["status"]["code"]), should)


class UnscrubbableResponse(ValueError):
    """Raised while recording when a response body is in an encoding the recorder cannot decode."""


def make_response_filter(server: str) -> Any:
    """Returns a ``before_record_response`` hook that stamps ``server`` and scrubs, or drops retryables.

    The hook raises ``UnscrubbableResponse`` for a body still compressed after vcrpy's decoding.
    """

    def before_record_response(response: dict[str, Any]) -> dict[str, Any] | None:
        if is_retryable(response):
            return None
        encoding = [v for k, vs in response.get("headers", {}).items() if k.lower() == "content-encoding" for v in vs]
        if any(v.lower() != "identity" for v in encoding):
            # vcrpy decodes gzip and deflate only; an encoded body could not be scrubbed or replayed.
            raise UnscrubbableResponse(f"response body is still encoded as {', '.join(encoding)}; not recorded")
        headers = {k.lower(): v for k, v in response.get("headers", {}).items() if k.lower() in RESPONSE_HEADERS_KEPT}
        headers.setdefault("x-conformance-server", [server])
        body = scrub_body(_as_bytes(response["body"]["string"]))
        headers["content-length"] = [str(len(body))]
        return {**response, "headers": headers, "body": {"string": body}}

    return before_record_response


_LOADED: dict[str, dict[str, Any]] = {}


class ValidatedPersister:
    """A vcrpy persister that loads through ``load_cassette`` (validated, cached) and saves as usual."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> tuple[list, list, dict]:
        """Returns (requests, responses, metadata); raises ``SpecError`` for a bad cassette."""
        if not Path(cassette_path).is_file():
            raise CassetteNotFoundError(str(cassette_path))
        data = load_cassette(Path(cassette_path))
        requests = [Request._from_dict(i["request"]) for i in data["interactions"]]
        responses = [compat.convert_to_bytes(i["response"]) for i in data["interactions"]]
        return requests, responses, data.get("metadata") or {}

    @staticmethod
    def save_cassette(cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        """Writes the cassette as vcrpy YAML."""
        FilesystemPersister.save_cassette(cassette_path, cassette_dict, serializer)


class _VCR(vcr.VCR):
    """vcrpy's VCR without the deep copy it wraps around request filters.

    ``before_record_request`` already returns a new request and never mutates its input, and
    vcrpy runs the filter on every match attempt, so the copy was most of the replay time.
    """

    def _build_before_record_request(self, options: dict[str, Any]) -> Any:
        return options.get("before_record_request", self.before_record_request)


def _unchanged(request: Request) -> Request:
    return request


def make_vcr(record_mode: str, server: str = "unknown") -> vcr.VCR:
    """Returns a VCR that scrubs, drops retryables, decodes compression and matches on body hash."""
    # On replay nothing is written and the body matcher scrubs both sides itself, so live requests
    # need no filtering: skipping it saves building a copy of each request on every match attempt.
    request_filter = _unchanged if record_mode == "none" else before_record_request
    recorder = _VCR(record_mode=record_mode, match_on=MATCH_ON, decode_compressed_response=True,
                       before_record_request=request_filter,
                       before_record_response=make_response_filter(server),
                       record_on_exception=True, skip_patchers=SKIPPED_PATCHERS)
    recorder.register_matcher("body_hash", body_hash_matcher)
    recorder.register_persister(ValidatedPersister)
    return recorder


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _looks_valid(data: Any) -> bool:
    """Returns whether a parsed cassette has the expected shape (no line numbers needed then)."""
    try:
        return data["version"] == 1 and bool(data["interactions"]) and all(
            {"method", "uri", "body"} <= set(i["request"]) and isinstance(i["response"]["status"]["code"], int)
            and "string" in i["response"]["body"] for i in data["interactions"])
    except (TypeError, KeyError, AttributeError):
        return False


def _need(condition: bool, path: Path, locator: Any, field: tuple, message: str) -> None:
    if not condition:
        raise locator.error(field, message) if locator else SpecError(path, None, "", message)


def load_cassette(path: Path) -> dict[str, Any]:
    """Returns the parsed cassette; raises ``SpecError`` (file, line, field) when it is not a valid one."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise SpecError(path, None, "", f"cannot read cassette: {exc.strerror or exc}") from None
    key = f"{path.resolve()}:{stat.st_mtime_ns}:{stat.st_size}"
    if key in _LOADED:
        return _LOADED[key]
    if stat.st_size == 0:
        raise SpecError(path, None, "", "empty cassette file")
    text = read_text(path)
    try:
        data: Any = yaml.load(text, Loader=_LOADER)
        locator = None
    except yaml.YAMLError:
        data, locator = load_document(path, text)
    if not _looks_valid(data):
        data, locator = load_document(path, text)
    _need(isinstance(data, dict), path, locator, (), "not a vcrpy cassette (expected a mapping)")
    _need(data.get("version") == 1, path, locator, ("version",), "cassette format version must be 1")
    interactions = data.get("interactions")
    _need(isinstance(interactions, list) and bool(interactions), path, locator, ("interactions",),
          "no interactions recorded")
    for index, item in enumerate(interactions):
        where = ("interactions", index)
        _need(isinstance(item, dict) and isinstance(item.get("request"), dict)
              and isinstance(item.get("response"), dict), path, locator, where, "needs request and response")
        request, response = item["request"], item["response"]
        for name in ("method", "uri", "body"):
            _need(name in request, path, locator, where + ("request",), f"request lacks {name}")
        _need(isinstance(request["uri"], str), path, locator, where + ("request", "uri"), "uri is not text")
        _need(isinstance(request["body"], (str, bytes, type(None))), path, locator, where + ("request", "body"),
              "request body is not text")
        _need(isinstance(response.get("status"), dict) and isinstance(response["status"].get("code"), int),
              path, locator, where + ("response", "status"), "response lacks status.code")
        _need(isinstance(response.get("body"), dict) and "string" in response["body"], path, locator,
              where + ("response", "body"), "response lacks body.string")
        _need(isinstance(response["body"]["string"], (str, bytes)), path, locator,
              where + ("response", "body", "string"), "response body is not text")
        for side, part in (("request", request), ("response", response)):
            _need(isinstance(part.get("headers", {}), dict), path, locator, where + (side, "headers"),
                  "headers are not a mapping")
    _LOADED[key] = data
    return data


def cassette_meta(data: dict[str, Any]) -> dict[str, str]:
    """Returns ``{"server", "probe"}`` from the cassette's metadata (empty strings when missing)."""
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    return {"server": str(meta.get("server", "")), "probe": str(meta.get("probe", ""))}


def response_json(interaction: dict[str, Any]) -> Any:
    """Returns the decoded JSON body of one interaction's response, or None when it is not JSON."""
    body = interaction["response"]["body"]["string"]
    try:
        return json.loads(body if isinstance(body, str) else bytes(body).decode())
    except (ValueError, UnicodeDecodeError):
        return None


def dump(data: dict[str, Any]) -> str:
    """Returns cassette data as YAML text in the layout vcrpy writes."""
    return yaml.dump(data, Dumper=getattr(yaml, "CDumper", yaml.Dumper))


class NetworkBlocked(RuntimeError):
    """Raised when code tries to open a network connection while replay blocks the network."""


@contextlib.contextmanager
def network_blocked() -> Iterator[None]:
    """Yields with ``socket.connect`` and ``socket.create_connection`` raising ``NetworkBlocked``."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise NetworkBlocked("network access is blocked during replay")

    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection)
    # replaced for the replay only and restored below, so their signatures need not match
    socket.socket.connect = refuse  # type: ignore[method-assign]  # the network guard, undone below
    socket.socket.connect_ex = refuse  # type: ignore[method-assign, assignment]  # the network guard, undone below
    socket.create_connection = refuse  # type: ignore[assignment]  # the network guard, undone below
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex, socket.create_connection = saved  # type: ignore[method-assign]  # the originals put back
