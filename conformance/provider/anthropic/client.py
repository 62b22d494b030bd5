"""The SDK client that records and replays."""

from __future__ import annotations

import anthropic

from .._tls import shared_tls


def make_client(api_key: str, base_url: str) -> anthropic.Anthropic:
    """Returns an SDK client with retries off, strict response validation and the process's shared
    TLS context."""
    return anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0,
                               _strict_response_validation=True,
                               http_client=anthropic.DefaultHttpxClient(verify=shared_tls()))
