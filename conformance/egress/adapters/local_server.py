"""A real HTTP server on 127.0.0.1 for the browser-stream adapters: uvicorn in a daemon thread,
started once per process, routing each request to the ASGI app mounted for it (``mount`` keeps one
for the life of the process, as a local sink for an exporter). ``open_stream``
mounts an app, sends one request with an HTTP client in streaming mode, and returns the response
unread: the harness reads it chunk by chunk, as a browser would."""

from __future__ import annotations

import secrets
import socket
import threading
import time
from typing import Any

_APPS: dict[str, Any] = {}
_MOUNTED: dict[str, Any] = {}
_SERVER: dict[str, Any] = {}
_LOCK = threading.Lock()


async def _dispatch(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Routes ``/<token>/...`` to the app mounted under ``token`` (its path without the token)."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    token, _, rest = scope["path"].lstrip("/").partition("/")
    app = _APPS.pop(token, None) or _MOUNTED.get(token)
    if app is None:
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await app({**scope, "path": "/" + rest, "raw_path": ("/" + rest).encode()}, receive, send)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def base_url() -> str:
    """Returns the URL of this process's server, starting it on a free port of 127.0.0.1 on first
    use; raises ``RuntimeError`` when it does not start within 10 s."""
    import uvicorn

    with _LOCK:
        if "url" in _SERVER:
            return str(_SERVER["url"])
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(_dispatch, host="127.0.0.1", port=port, log_level="error",
                                               lifespan="off", access_log=False))
        thread = threading.Thread(target=server.run, name="egress-local-server", daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the local HTTP server did not start")
            time.sleep(0.01)
        _SERVER.update(url=f"http://127.0.0.1:{port}", server=server)
        return str(_SERVER["url"])


def mount(app: Any) -> str:
    """Returns the base URL under which ``app`` answers every request for the life of this process."""
    token = secrets.token_hex(8)
    _MOUNTED[token] = app
    return f"{base_url()}/{token}"


def open_stream(app: Any, path: str = "/", *, method: str = "POST", json: Any = None,
                headers: dict[str, str] | None = None) -> Any:
    """Returns the streaming ``httpx`` response of one request to ``app`` served on 127.0.0.1 (its
    body not read yet; closing it closes the client)."""
    import httpx

    token = secrets.token_hex(8)
    _APPS[token] = app
    client = httpx.Client(timeout=30)
    request = client.build_request(method, f"{base_url()}/{token}{path}", json=json,
                                   headers={"accept": "text/event-stream", **(headers or {})})
    response = client.send(request, stream=True)
    close = response.close

    def close_both() -> None:
        close()
        client.close()

    response.close = close_both  # type: ignore[method-assign]  # closing the response closes its client too
    return response
