"""Drive one OpenAI probe through the ``openai`` SDK and return the judged exchange.

The same steps run when recording (against a server, under vcrpy) and when replaying (from a
cassette, network blocked): the earlier call if any, then for truncation probes the token counts of
the input's suffixes, then the judged call (streamed when the probe says so, the final response
taken from ``response.completed``). The SDK parses every answer; an error answer becomes the
exchange's status and body.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import openai
from openai.types.responses import Response

from .. import cassettes
from .._tls import shared_tls
from .rules import COUNT_TOLERANCE, Exchange
from .probes import OpenAIProbe

STREAM_ORDER = ("response.created", "response.in_progress")


class RunProblem(Exception):
    """The server's answers do not let the probe run: an earlier call failed, or a stream is malformed.

    ``transport`` marks a failure to reach an answer at all (no recording, no connection).
    """

    def __init__(self, message: str, transport: bool = False, retryable: bool = False) -> None:
        super().__init__(message)
        self.transport, self.retryable = transport, retryable


@dataclass
class Ran:
    """The judged exchange and the notes gathered on the way."""

    exchange: Exchange
    notes: list[str] = field(default_factory=list)


def make_client(api_key: str, base_url: str) -> openai.OpenAI:
    """Returns an SDK client with retries off and strict response validation."""
    return openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0, _strict_response_validation=True,
                         http_client=openai.DefaultHttpxClient(verify=shared_tls()))


def _error_body(exc: openai.APIStatusError) -> dict[str, Any]:
    """Returns the error answer as the API sent it, ``{"error": {...}}`` (the SDK unwraps ``error``);
    raises ``RunProblem`` (retryable) for an answer the SDK would retry (408, 409, 429, 5xx)."""
    if cassettes.should_retry(exc.status_code, exc.response.headers.get_list("x-should-retry")):
        raise RunProblem(f"server answered {exc.status_code}", retryable=True)
    body = exc.body
    if isinstance(body, dict) and "error" in body:
        return body
    return {"error": body if isinstance(body, dict) else {"message": str(body)}}


def _answer(call: Callable[..., Any], kwargs: dict[str, Any]) -> tuple[int, Any]:
    """Returns (status, parsed JSON body) of one raw call; raises ``RunProblem`` when there is no answer."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = call(**kwargs)
        return raw.http_response.status_code, raw.http_response.json()
    except openai.APIStatusError as exc:
        return exc.status_code, _error_body(exc)
    except openai.APIConnectionError as exc:
        raise RunProblem(f"no answer: {exc.__cause__ or exc}", transport=True) from None
    except ValueError as exc:
        raise RunProblem(f"the answer is not JSON: {exc}") from None


def _parsed_response(body: Any, what: str) -> dict[str, Any]:
    """Returns ``body`` once the SDK's ``Response`` type accepts it; raises ``RunProblem`` otherwise."""
    try:
        Response.model_validate(body)
    except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError, or a body that is no mapping
        first = str(exc).splitlines()
        raise RunProblem(f"{what}: the response does not parse as the SDK's Response: {' '.join(first[:3])}") from None
    return body


def _streamed(client: openai.OpenAI, kwargs: dict[str, Any]) -> tuple[int, Any]:
    """Returns (status, the final response) of a streamed call, checking the events' names and order."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            events = list(client.responses.create(stream=True, **kwargs))
    except openai.APIStatusError as exc:
        return exc.status_code, _error_body(exc)
    except openai.APIConnectionError as exc:
        raise RunProblem(f"no answer: {exc.__cause__ or exc}", transport=True) from None
    kinds = [e.type for e in events]
    if tuple(kinds[:2]) != STREAM_ORDER:
        raise RunProblem(f"the stream opens with {kinds[:2]}, not {list(STREAM_ORDER)}")
    numbers = [e.sequence_number for e in events]
    if numbers != sorted(numbers):
        raise RunProblem("the stream's sequence numbers are out of order")
    last = events[-1] if events else None
    if last is None or last.type not in ("response.completed", "response.failed", "response.incomplete"):
        raise RunProblem(f"the stream ends with {kinds[-1:]}, not response.completed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        final = last.response.model_dump(mode="json", exclude_unset=True)
        done = [e.item.model_dump(mode="json", exclude_unset=True) for e in events
                if e.type == "response.output_item.done"]
    if [d.get("id") for d in done] != [o.get("id") for o in final["output"]]:
        raise RunProblem("the items of response.output_item.done differ from response.completed's output")
    if last.type == "response.failed":
        return 400, {"error": final.get("error") or {}}
    return 200, final


def _create(client: openai.OpenAI, kwargs: dict[str, Any], stream: bool, what: str) -> tuple[int, Any]:
    if stream:
        status, body = _streamed(client, kwargs)
    else:
        status, body = _answer(client.responses.with_raw_response.create, kwargs)
    if status < 400:
        _parsed_response(body, what)
    return status, body


def suffix_starts(items: list[dict[str, Any]]) -> list[int]:
    """Returns where a counted suffix may start: at a message or a function call (never at an output)."""
    return [n for n, i in enumerate(items) if i.get("type", "message") in ("message", "function_call")]


def _suffix_counts(client: openai.OpenAI, request: dict[str, Any], items: list[dict[str, Any]],
                   reported: Any) -> dict[int, int]:
    """Returns the input_tokens counts of the input's suffixes, shortest first, up to the first that
    reaches the reported ``usage.input_tokens`` (longer ones cannot be the kept suffix)."""
    counts: dict[int, int] = {}
    for start in reversed(suffix_starts(items)):
        status, body = _answer(client.responses.input_tokens.with_raw_response.count,
                               {"model": request["model"], "input": items[start:]})
        if status >= 400 or not isinstance(body, dict) or not isinstance(body.get("input_tokens"), int):
            raise RunProblem(f"counting the suffix from item {start} was answered {status}")
        counts[start] = body["input_tokens"]
        if isinstance(reported, int) and body["input_tokens"] >= reported - COUNT_TOLERANCE:
            break
    return counts


def run(probe: OpenAIProbe, client: openai.OpenAI) -> Ran:
    """Returns the judged exchange of ``probe`` through ``client``; raises ``RunProblem``."""
    notes: list[str] = []
    before_output: list[dict[str, Any]] = []
    previous_id = None
    if probe.before is not None:
        status, body = _create(client, {**probe.before.request, "input": probe.before.items()}, False, "the earlier call")
        if status >= 400:
            message = (body.get("error") or {}).get("message") if isinstance(body, dict) else body
            raise RunProblem(f"the earlier call was answered {status} ({message})")
        before_output = [o for o in body["output"]]
        previous_id = body["id"]
        notes.append(f"earlier call answered with {[o.get('type') for o in before_output]}")
    items = probe.full_input(before_output)
    own = items[len(items) - len(probe.call.input):]
    request = dict(probe.call.request)
    if probe.before is not None and probe.chain == "previous_response_id":
        sent: dict[str, Any] = {**request, "input": own, "previous_response_id": previous_id}
    else:
        sent = {**request, "input": items}
    if probe.endpoint == "compact":
        keep = ("model", "instructions", "previous_response_id", "input", "prompt_cache_key")
        status, body = _answer(client.responses.with_raw_response.compact, {k: v for k, v in sent.items() if k in keep})
    else:
        status, body = _create(client, sent, probe.stream, "the judged call")
    counts: dict[int, int] = {}
    if probe.mechanism == "truncation" and status < 400:
        counts = _suffix_counts(client, request, items, ((body.get("usage") or {}).get("input_tokens")))
    exchange = Exchange(probe.endpoint, request, items, body if isinstance(body, dict) else None, status, counts)
    return Ran(exchange, notes)
