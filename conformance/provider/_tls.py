"""The TLS context the SDK clients of one process share."""

from __future__ import annotations

import ssl
from functools import cache


@cache
def shared_tls() -> ssl.SSLContext:
    """Returns the TLS context every SDK client this process makes shares: httpx2's default (the
    certificates it trusts, ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` honoured), built once, where each
    new client would load the certificate bundle again (about 30 ms: a replay or a recording per
    server, the emulator's variants of a drift run, make many)."""
    import httpcore2

    return httpcore2.default_ssl_context()
