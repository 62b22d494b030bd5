"""What the recorder reports for answers that must not become cassettes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anthropic
import httpx2
import pytest

from conformance.provider.probes import Probe
from conformance.provider.record import _send


def refusing(status: int, headers: dict[str, str]) -> Any:
    """Returns a stand-in client whose every call is answered with ``status`` and ``headers``."""
    response = httpx2.Response(status, headers=headers, request=httpx2.Request("POST", "http://127.0.0.1:1/v1/messages"))

    def call(**kwargs: Any) -> None:
        raise anthropic.APIStatusError("refused", response=response, body=None)

    return SimpleNamespace(beta=SimpleNamespace(messages=SimpleNamespace(create=call, count_tokens=call)))


@pytest.mark.parametrize(("status", "headers", "retryable"), [
    (400, {"x-should-retry": "true"}, True),
    (529, {}, True),
    (400, {}, False),
])
def test_an_answer_the_sdk_would_retry_stops_the_probe(probes: dict[str, Probe], status: int,
                                                       headers: dict[str, str], retryable: bool) -> None:
    notes, failed = _send(refusing(status, headers), probes["clear-tool-uses.keep-below-live-task"])
    assert (failed == status) is retryable
    assert ("not recorded, run again" in notes[-1]) is retryable
