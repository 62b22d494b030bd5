"""Real database servers for the task-record stores: PostgreSQL and Redis started on 127.0.0.1, on
a free port, with their data in a temporary folder, and stopped again.

``running(kind)`` starts one (unless the environment already names one: ``POSTGRES_URL`` /
``REDIS_URL`` below), puts its URL in the environment for the worker processes and yields it;
``ServerUnavailable`` says why one cannot start (its programs are not installed, PostgreSQL would
run as root with no ``postgres`` user). PostgreSQL refuses to run as root, so as root ``initdb`` and
``pg_ctl`` run as the ``postgres`` user through ``runuser``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import Any

POSTGRES = "postgres"
REDIS = "redis"
ENV = {POSTGRES: "CONFORMANCE_EGRESS_POSTGRES_URL", REDIS: "CONFORMANCE_EGRESS_REDIS_URL"}
START_TIMEOUT = 30.0


class ServerUnavailable(RuntimeError):
    """A server the stores need cannot be started here (the message says why)."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _program(name: str) -> str:
    """Returns the path of a server program: on PATH, else in Debian's ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if not found:
        raise ServerUnavailable(f"{name} is not installed (Debian: apt-get install postgresql redis-server)")
    return found


def _as_postgres_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        raise ServerUnavailable("PostgreSQL does not run as root and there is no postgres user") from None
    runuser = shutil.which("runuser")
    if not runuser:
        raise ServerUnavailable("PostgreSQL does not run as root and runuser is not installed")
    return [runuser, "-u", "postgres", "--"]


def _wait_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServerUnavailable(f"the server exited with {process.returncode} at start")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise ServerUnavailable(f"nothing listens on 127.0.0.1:{port} after {START_TIMEOUT:g} s")


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """Yields the URL of a fresh PostgreSQL (trust auth, user ``postgres``, database ``postgres``)
    on 127.0.0.1; stops it and removes its data at the end."""
    initdb, pg_ctl = _program("initdb"), _program("pg_ctl")
    prefix = _as_postgres_user()
    folder = tempfile.mkdtemp(prefix="egress-postgres-")
    if prefix:
        shutil.chown(folder, "postgres")
    data, port = os.path.join(folder, "data"), _free_port()
    log = os.path.join(folder, "server.log")
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        done = subprocess.run([*prefix, initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                               "--no-sync"], check=False, timeout=120, **quiet)
        if done.returncode != 0:
            raise ServerUnavailable(f"initdb exited with {done.returncode}")
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        done = subprocess.run([*prefix, pg_ctl, "-D", data, "-l", log, "-o", options, "-w", "-t",
                               str(int(START_TIMEOUT)), "start"], check=False, timeout=START_TIMEOUT + 10, **quiet)
        if done.returncode != 0:
            raise ServerUnavailable(f"pg_ctl start exited with {done.returncode}")
        _wait_port(port)
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if os.path.isdir(data):
            subprocess.run([*prefix, pg_ctl, "-D", data, "-m", "immediate", "-w", "stop"], check=False,
                           timeout=60, **quiet)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis() -> Iterator[str]:
    """Yields the URL of a fresh Redis on 127.0.0.1 (nothing saved to disk); stops it at the end."""
    program = _program("redis-server")
    folder = tempfile.mkdtemp(prefix="egress-redis-")
    port = _free_port()
    process = subprocess.Popen([program, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", folder, "--protected-mode", "no"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


STARTERS = {POSTGRES: postgres, REDIS: redis}


@contextlib.contextmanager
def running(kind: str) -> Iterator[str]:
    """Yields the URL of a ``kind`` server: the one the environment names, else one started here
    (its URL in the environment while it runs); raises ``ServerUnavailable``."""
    if os.environ.get(ENV[kind]):
        yield os.environ[ENV[kind]]
        return
    with STARTERS[kind]() as url:
        os.environ[ENV[kind]] = url
        try:
            yield url
        finally:
            os.environ.pop(ENV[kind], None)


def url(kind: str) -> str:
    """Returns the URL of the ``kind`` server the stores are to use; raises ``ServerUnavailable``
    when none is running (the environment names none)."""
    found = os.environ.get(ENV[kind])
    if not found:
        raise ServerUnavailable(f"no {kind} server is running ({ENV[kind]} is not set)")
    return found


__all__ = ["ENV", "POSTGRES", "REDIS", "ServerUnavailable", "running", "url"]
