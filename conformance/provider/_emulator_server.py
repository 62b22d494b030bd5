"""The local HTTP scaffolding every provider's emulator shares: a quiet handler, a threaded server on
127.0.0.1, and the start/stop/context-manager shell around it.

Each provider keeps its own request handling, answers and headers; only the plumbing lives here.
"""

from __future__ import annotations

import argparse
import socket
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

SERVER_HEADER = "x-conformance-server"


class QuietHandler(BaseHTTPRequestHandler):
    """An HTTP/1.1 handler with TCP_NODELAY that logs nothing; providers add ``do_POST``."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return


class EmulatorServer(ThreadingHTTPServer):
    """A threaded server that carries the faults it was asked for and the name it reports."""

    daemon_threads = True
    faults: set[str]
    name: str


def check_faults(faults: Iterable[str], known: Iterable[str]) -> None:
    """Returns None when every fault is known; raises ValueError naming the unknown ones otherwise."""
    known = list(known)
    unknown = sorted(set(faults) - set(known))
    if unknown:
        raise ValueError(f"unknown fault(s): {', '.join(unknown)}; known: {', '.join(known)}")


def server_name(base: str, faults: Iterable[str]) -> str:
    """Returns the name reported in ``x-conformance-server``: ``base[+fault...]``."""
    return "+".join([base, *sorted(faults)])


_Self = TypeVar("_Self", bound="LocalEmulator")


class LocalEmulator:
    """A running emulator on 127.0.0.1; use as a context manager or call ``start``/``stop``.

    Subclasses build ``self._server`` (an ``EmulatorServer``) and may set ``url_path``.
    """

    url_path = ""
    _server: EmulatorServer

    def _serve_in_thread(self) -> None:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        """Returns the base URL, ``http://127.0.0.1:PORT`` followed by ``url_path``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.url_path}"

    @property
    def name(self) -> str:
        """Returns the server name recorded with every cassette made against it."""
        return self._server.name

    def start(self: _Self) -> _Self:
        """Starts serving in a daemon thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving and closes the socket."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self: _Self) -> _Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_main(argv: list[str] | None, *, prog: str, description: str | None, default_port: int,
               faults: Iterable[str], emulator: Callable[[int, list[str]], LocalEmulator]) -> int:
    """Runs an emulator in the foreground until interrupted; returns the exit code."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--port", type=int, default=default_port, help="port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--fault", action="append", default=[], choices=sorted(faults),
                        help="misbehave on purpose; repeatable")
    args = parser.parse_args(argv)
    running = emulator(args.port, args.fault)
    print(f"emulator '{running.name}' listening on {running.url}", flush=True)
    try:
        running._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        running._server.server_close()
    return 0
