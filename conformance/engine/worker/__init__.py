"""Worker processes: run jobs away from the harness, kill a call at its time limit, survive a crash.

A ``Pool`` keeps up to ``jobs`` worker processes (forkserver where the platform has it, else spawn).
A job is a module-level function and its arguments, both sent by pickle; inside it, code that calls
a target marks the call with ``call_window`` so the parent can kill the worker when the call runs
past its limit. A worker that is killed or dies is replaced by a fresh one for the next job.

The parent sees one ``Event`` per job: ``done`` (the job's return value), ``failed`` (the job raised;
a harness error), ``timeout`` (a call ran past its limit) or ``died`` (the worker process ended).
This module knows nothing of scenarios or checks; ``worker.jobs`` is the loop ``run``, ``fuzz`` and
``egress`` send their calls of targets through. Every other process the suite starts comes from
here too: ``beside`` (one function in a process of its own, e.g. the provider replay), and a
``Pool(forked=True)`` runs a pure function over many inputs (``analyze``) in forks of this process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Literal

from ..._paths import outside_cwd
from .. import clock
from ..clock import EXTENSION_CAP, runqueue_seconds, waiting_threads

GRACE = 0.25  # seconds past a call's limit and allowance before the parent kills its worker
# imported once by the fork server, shared by every worker
PRELOAD = ["conformance.engine.runner"]

_parent: Connection | None = None  # set in a worker process only
_current_key: Any = None


@dataclass(frozen=True)
class Event:
    """What became of one job: its value, or why it has none. ``partial`` is what the job
    reported before its last call began (``None`` for the first)."""

    key: Any
    kind: Literal["done", "failed", "timeout", "died"]
    value: Any = None
    reason: str = ""
    partial: Any = None
    limit: float = 0.0


@contextmanager
def call_window(limit: float, partial: Any = None, allowance: float = 0.0) -> Iterator[None]:
    """Marks a call of target code: in a worker, the parent kills the worker when the block runs
    more than ``limit`` seconds plus ``GRACE`` plus ``allowance`` (the harness's own work inside
    the block, e.g. copying a long input); ``partial`` is kept for the parent's record.
    Outside a worker it does nothing."""
    global _in_window
    if _parent is None:
        yield
        return
    _parent.send(("call", _current_key, limit, partial, allowance))
    _in_window = True
    try:
        yield
    finally:
        _in_window = False
    _parent.send(("ended", _current_key))


_in_window = False


def extend_window(seconds: float) -> None:
    """Tells the parent that the call in the current ``call_window`` may run ``seconds`` past its
    limit: time its limit does not count (waiting for a CPU, importing; see ``clock``). Outside a
    worker's window it does nothing."""
    if _parent is not None and _in_window:
        _parent.send(("extend", _current_key, seconds))


@contextmanager
def output_captured(limit: int = 2000) -> Iterator[list[str]]:
    """Catches what this process writes to its standard output and error (file descriptors 1 and
    2, C code included) during the block; yields a list that afterwards holds the last ``limit``
    characters written. In a worker, fds 1 and 2 never point at the terminal (see
    ``_output_to_sink``), so what a target's threads write later is caught too (and dropped)."""
    global _lent
    captured: list[str] = []
    _flush_standard_streams()
    if _sink is not None:
        os.ftruncate(_sink, 0)  # opened for appending: the next write lands at the new end
        _reopen_standard_streams()  # an earlier job's target may have closed them
        try:
            yield captured
        finally:
            captured.append(_tail(_sink, limit))
        return
    if _lent is None:
        _lent = _open_sink()
    sink, _lent = _lent, None  # a nested capture opens a sink of its own
    os.ftruncate(sink, 0)
    saved = [os.dup(1), os.dup(2)]
    streams = sys.stdout, sys.stderr  # they may write elsewhere than fds 1 and 2 (pytest's capture)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    sys.stdout, sys.stderr = _text_stream(1), _text_stream(2)
    try:
        yield captured
    finally:
        captured.append(_tail(sink, limit))
        sys.stdout, sys.stderr = streams
        for fd, original in zip((1, 2), saved):
            os.dup2(original, fd)
            os.close(original)
        if _lent is not None:  # a nested capture's own
            os.close(_lent)
        _lent = sink


_sink: int | None = None  # where a worker's fds 1 and 2 point, for good (set in a worker process only)
_lent: int | None = None  # the file fds 1 and 2 are lent to during a capture outside a worker


def _open_sink() -> int:
    """Returns the descriptor of a new unlinked temporary file opened for appending."""
    fd, path = tempfile.mkstemp(prefix="conformance-output-")
    try:
        return os.open(path, os.O_RDWR | os.O_APPEND)
    finally:
        os.close(fd)
        os.unlink(path)


def _output_to_sink() -> None:
    """Points this worker's standard output and error at a private file for good: nothing a
    target writes, during its call or from a thread it left running, reaches the terminal."""
    global _sink
    _sink = _open_sink()
    os.dup2(_sink, 1)
    os.dup2(_sink, 2)


def _reopen_standard_streams() -> None:
    """Points fds 1 and 2 at the worker's sink again, and gives ``sys.stdout`` and ``sys.stderr``
    back when a target closed or replaced them with nothing."""
    assert _sink is not None
    os.dup2(_sink, 1)
    os.dup2(_sink, 2)
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None or getattr(stream, "closed", True):
            setattr(sys, name, _text_stream(fd))


def _text_stream(fd: int) -> Any:
    """Returns a text stream writing to ``fd`` that leaves ``fd`` open when it goes."""
    return open(fd, "w", encoding="utf-8", errors="replace", closefd=False)


def _tail(fd: int, limit: int) -> str:
    """Returns the last ``limit`` characters written to the file behind ``fd``, once the standard
    streams are flushed."""
    _flush_standard_streams()
    size = os.fstat(fd).st_size
    os.lseek(fd, max(0, size - 4 * limit), os.SEEK_SET)  # opened for appending: writes still go to the end
    return os.read(fd, 4 * limit).decode("utf-8", "replace")[-limit:]


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a stream a target closed or replaced
            pass


def in_worker() -> bool:
    """Returns whether this process is a worker of a ``Pool``."""
    return _parent is not None


def _address_space() -> int:
    """Returns this process's current virtual memory size in bytes (0 where unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cap_memory(limit_bytes: int) -> None:
    """Lets this process allocate at most ``limit_bytes`` more address space than it holds now
    (RLIMIT_AS); past it, allocations fail with ``MemoryError``. (An interpreter reserves far more
    address space than it uses, so the cap counts from where the worker stands.)"""
    import resource

    cap = _address_space() + limit_bytes
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _serve(conn: Connection, memory_limit: int | None) -> None:
    """The worker's loop: run each job received, send its value (or its failure) back."""
    global _parent, _current_key
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if memory_limit:
        cap_memory(memory_limit)
    _output_to_sink()
    _parent = conn
    clock.allowance_listener = extend_window  # a guarded call's grown limit reaches the parent's clock
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 - a job that does not unpickle here
            conn.send(("failed", None, f"the job could not be loaded in the worker: {type(exc).__name__}: {exc}"))
            continue
        if message is None:
            return
        key, (cwd, path, environ), job = message
        _current_key = key
        _follow(cwd, path, environ)  # first: the job may name modules found only on the parent's path
        try:
            fn, args = pickle.loads(job)
        except Exception as exc:  # noqa: BLE001 - a job that does not unpickle here
            conn.send(("failed", key, f"the job could not be loaded in the worker: {type(exc).__name__}: {exc}"))
            continue
        del message, job  # (what a job was sent and gave back is not held while the next runs)
        try:
            value = fn(*args)
            del fn, args
            conn.send(("done", key, value))
            del value
        except BaseException as exc:  # noqa: BLE001 - a job's failure is reported, not fatal
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-4))
            try:
                conn.send(("failed", key, f"{type(exc).__name__}: {exc}\n{text}"))
            except BaseException:  # noqa: BLE001 - e.g. the exception does not pickle
                conn.send(("failed", key, f"{type(exc).__name__}"))


def _follow(cwd: str, path: list[str], environ: dict[str, str]) -> None:
    """Gives this worker the parent's working directory, environment and import paths (each may
    have changed since the fork server started)."""
    if os.getcwd() != cwd:
        os.chdir(cwd)
    missing = [entry for entry in path if entry not in sys.path]
    if missing:
        sys.path[:0] = missing
    if environ != os.environ:
        for name in [n for n in os.environ if n not in environ]:
            del os.environ[name]
        os.environ.update(environ)


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


def warm_up() -> None:
    """Starts the fork server now (it imports the harness in the background), so the first
    workers start quickly later."""
    ctx = _context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        with _worker_starting():
            forkserver.ensure_running()


class Beside:
    """The answer of a function run ``beside``: ``result()`` waits for it."""

    def __init__(self, pool: Pool | None = None, value: Any = None, error: BaseException | None = None) -> None:
        self._pool, self._value, self._error = pool, value, error

    def result(self) -> Any:
        """Returns the function's value once its process answered (and has exited); raises what the
        function raised (``BesideFailed`` naming it, from a process) or ``BesideFailed`` when the process died."""
        pool, self._pool = self._pool, None
        if pool is not None:
            try:
                (event,) = pool.wait()
            finally:
                pool.close()
                _besides.discard(pool)
            if event.kind == "done":
                self._value = event.value
            else:
                self._error = BesideFailed(event.reason)
        if self._error is not None:
            raise self._error
        return self._value

    def end(self) -> None:
        """Returns once the process (if any) has exited, its answer read or not."""
        if self._pool is not None:
            try:
                self.result()
            except Exception:  # noqa: BLE001 - only the process's end is waited for here
                pass


class BesideFailed(RuntimeError):
    """A function run ``beside`` raised in its process (the message has its traceback), or the process died."""


def beside(fn: Callable[..., Any], *args: Any, unless_imported: str = "") -> Beside:
    """Returns the answer-to-be of ``fn(*args)`` run now in a worker process of its own (e.g. the
    provider replay, whose imports take seconds), so this process can go on; when the module
    ``unless_imported`` is already imported here, it runs here at once instead. The process is a
    fork of this one where that is safe (Linux, no other thread running but those waiting for a
    target's next call: nothing to import again, no fork server to wait for), else a worker as
    ``Pool`` starts them; it may run ``beside`` in turn."""
    if unless_imported and unless_imported in sys.modules:
        try:
            return Beside(value=fn(*args))
        except Exception as exc:  # noqa: BLE001 - handed to the caller by ``result()``
            return Beside(error=exc)
    forked = sys.platform == "linux" and threading.active_count() - waiting_threads() == 1
    pool = Pool(1, forked=forked, daemon=False)
    _besides.add(pool)  # (held until read: ``reaped`` ends it even when its answer is dropped unread)
    pool.submit(0, fn, args)
    pool.retire()  # (it exits once it answered)
    return Beside(pool)


def ended(answer: Beside) -> None:
    """Returns once the process that ran ``answer`` (started by ``beside``) has exited (at once for
    one run here): a process that starts others ``beside`` ends them before it answers."""
    answer.end()


_pools: weakref.WeakSet[Pool] = weakref.WeakSet()
_besides: set[Pool] = set()  # the pools of ``beside`` whose answer was not read yet


def _forget_pools() -> None:
    """In a forked child, the parent's pools are not its own to close."""
    _pools.clear()
    _besides.clear()


os.register_at_fork(after_in_child=_forget_pools)


def live_worker_pids() -> list[int]:
    """Returns the process ids of the workers of every open ``Pool``."""
    return [w.process.pid for pool in list(_pools) for w in pool._workers if w.process.pid is not None]


def _helpers() -> dict[str, Any]:
    """Returns the helper processes multiprocessing runs for this process (the fork server, the
    resource tracker) that are running now, by name, each with what stops it."""
    from multiprocessing import forkserver, resource_tracker

    running: dict[str, Any] = {}
    server = getattr(forkserver, "_forkserver", None)
    if getattr(server, "_forkserver_pid", None) is not None:
        running["forkserver"] = server
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if getattr(tracker, "_pid", None) is not None:
        running["resource_tracker"] = tracker
    return running


def _stop_fork_server() -> None:
    """Stops this process's fork server when it runs (the workers it forked run on); the next pool
    starts a new one, with the preload of that moment."""
    server = _helpers().get("forkserver")
    if server is not None:
        server._stop()


@contextmanager
def preloading(modules: Sequence[str]) -> Iterator[None]:
    """Runs the block with a fork server that imports ``modules`` too before it forks a worker, so
    that a library every worker of the block needs is imported once, not by each fresh worker (a
    module that fails to import is left to the worker); the fork server of before is back after."""
    wanted = [m for m in dict.fromkeys(modules) if m not in PRELOAD]
    if not wanted or "forkserver" not in multiprocessing.get_all_start_methods():
        yield
        return
    saved = list(PRELOAD)
    _stop_fork_server()
    PRELOAD[:] = [*saved, *wanted]
    try:
        yield
    finally:
        _stop_fork_server()
        PRELOAD[:] = saved


@contextmanager
def reaped() -> Iterator[None]:
    """Runs the block, then ends every process started for it that still runs (workers of pools
    left open, the processes run ``beside``, the fork server and the resource tracker when they
    were not running before) and returns once each has exited."""
    before = set(_helpers())
    try:
        yield
    finally:
        for pool in list(_pools):  # (a process run ``beside`` whose answer was not read is killed)
            pool.close()
        _besides.clear()
        for name, helper in _helpers().items():  # the fork server first: it holds the tracker's fd
            if name not in before:
                try:
                    helper._stop()
                except (AttributeError, OSError, ChildProcessError):  # pragma: no cover - another Python
                    pass


def describe_exit(code: int | None) -> str:
    """Returns how a process ended, e.g. ``exit code 3`` or ``signal SIGSEGV``."""
    if code is None:
        return "no exit code"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


@contextmanager
def _worker_starting() -> Iterator[None]:
    """Runs the block (the start of a worker or of the fork server) with the current folder left off
    the import path it starts with, unless ``PYTHONPATH`` names it, so that it imports this project
    from where it is installed, never from a checkout it runs in (each job puts the folder back for
    the target's own imports: ``_follow``), and with an unreadable main file hidden."""
    saved, safe = list(sys.path), os.environ.get("PYTHONSAFEPATH")
    sys.path[:] = [entry for entry in saved if outside_cwd(entry)]  # what a spawned worker starts with
    os.environ["PYTHONSAFEPATH"] = "1"  # the fork server's `python -c` puts no current folder first
    try:
        with _main_file_hidden():
            yield
    finally:
        sys.path[:] = saved + [entry for entry in sys.path if entry not in saved]
        if safe is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = safe


@contextmanager
def _main_file_hidden() -> Iterator[None]:
    """Hides the main module's ``__file__`` for the block when it names no file (a program read from
    stdin): a starting worker would try to import it and die."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or os.path.exists(path):
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


class _Worker:
    """One worker process and the job it is running."""

    def __init__(self, ctx: multiprocessing.context.BaseContext, memory_limit: int | None, daemon: bool = True) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(target=_serve, args=(child, memory_limit), daemon=daemon,
                                   name="conformance-worker")
        with _worker_starting():
            self.process.start()
        child.close()
        self.key: Any = None
        self.busy = False
        self.deadline: float | None = None
        self.limit = 0.0
        self.partial: Any = None
        self.base = 0.0  # the deadline of the call in progress before any extension
        self.extension = 0.0  # seconds the worker's guard added to it (time the limit does not count)
        self.guard_waited = 0.0  # seconds its main thread had waited for a CPU when the call began

    def assign(self, key: Any, fn: Callable[..., Any], args: Sequence[Any]) -> None:
        # pickles first: a job that does not pickle leaves the worker idle
        job = pickle.dumps((fn, tuple(args)), protocol=pickle.HIGHEST_PROTOCOL)  # loaded once its paths are set
        self.conn.send((key, (os.getcwd(), list(sys.path), dict(os.environ)), job))
        self.key, self.busy, self.deadline, self.partial = key, True, None, None

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(1)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


class Pool:
    """Up to ``jobs`` worker processes; ``submit`` a job to a free one, ``wait`` for events.

    ``forked``: the workers are forks of this process where the platform can fork, for a pure
    function over plain data that calls no target (``analyze``'s judging of line ranges): they hold
    what this process imported, so nothing is imported again. Else they come from the fork server,
    which imports only the harness, so that a target's imports start clean. ``daemon=False``: a
    worker may start processes of its own (``beside`` inside ``beside``)."""

    def __init__(self, jobs: int, memory_limit: int | None = None, *, forked: bool = False,
                 daemon: bool = True) -> None:
        self.jobs = max(1, jobs)
        self.memory_limit = memory_limit
        self.daemon = daemon
        fork = forked and "fork" in multiprocessing.get_all_start_methods()
        self._ctx = multiprocessing.get_context("fork") if fork else _context()
        self._workers: list[_Worker] = []
        _pools.add(self)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def free(self) -> int:
        """Returns how many more jobs can be submitted now."""
        return self.jobs - sum(1 for w in self._workers if w.busy)

    @property
    def running(self) -> int:
        """Returns how many jobs are in flight."""
        return sum(1 for w in self._workers if w.busy)

    def start(self, count: int | None = None) -> None:
        """Starts idle workers up to ``count`` (default ``jobs``) ahead of the first job."""
        while len(self._workers) < min(self.jobs, count or self.jobs):
            self._workers.append(_Worker(self._ctx, self.memory_limit, self.daemon))

    def submit(self, key: Any, fn: Callable[..., Any], args: Sequence[Any]) -> None:
        """Sends ``fn(*args)`` to a free worker (starting one if needed); raises ``RuntimeError``
        when none is free and ``PicklingError`` (or ``TypeError``) when the job does not pickle."""
        idle = next((w for w in self._workers if not w.busy), None)
        if idle is None:
            if len(self._workers) >= self.jobs:
                raise RuntimeError("no free worker")
            idle = _Worker(self._ctx, self.memory_limit, self.daemon)
            self._workers.append(idle)
        try:
            idle.assign(key, fn, args)
        except OSError:  # it died while idle: a fresh one takes the job
            idle.kill()
            self._workers.remove(idle)
            idle = _Worker(self._ctx, self.memory_limit, self.daemon)
            self._workers.append(idle)
            idle.assign(key, fn, args)

    def retire(self) -> None:
        """Tells every worker to exit once the job it runs now is done (send no other job after it)."""
        for worker in self._workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass

    def wait(self) -> list[Event]:
        """Blocks until at least one job in flight ends; returns the events of those that did."""
        while True:
            busy = [w for w in self._workers if w.busy]
            if not busy:
                return []
            now = time.monotonic()
            deadlines = [w.deadline for w in busy if w.deadline is not None]
            timeout = max(0.0, min(deadlines) - now) if deadlines else None
            ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout)
            events: list[Event] = []
            for worker in busy:
                event = self._poll(worker, ready)
                if event is not None:
                    events.append(event)
            if events:
                return events

    def _poll(self, worker: _Worker, ready: list[Any]) -> Event | None:
        """Returns the event that ended ``worker``'s job, if it ended; handles call marks."""
        if worker.conn in ready or worker.process.sentinel in ready:
            try:
                while worker.conn.poll():
                    message = worker.conn.recv()
                    kind = message[0]
                    if kind == "call":
                        worker.limit, worker.partial = message[2], message[3]
                        worker.deadline = worker.base = time.monotonic() + message[2] + GRACE + message[4]
                        worker.extension, worker.guard_waited = 0.0, self._guard_waited(worker)
                    elif kind == "extend":
                        worker.extension = min(EXTENSION_CAP, message[2])
                        if worker.deadline is not None:
                            worker.deadline = worker.base + worker.extension
                    elif kind == "ended":
                        worker.deadline = None
                    else:
                        worker.busy = False
                        if kind == "done":
                            return Event(worker.key, "done", value=message[2])
                        return Event(worker.key, "failed", reason=message[2])
            except (EOFError, OSError):
                pass
            if not worker.process.is_alive() or worker.conn.closed:
                return self._retire(worker, "died")
        if worker.deadline is not None and time.monotonic() >= worker.deadline:
            # the guard in the worker may only have waited for a CPU: that time is not the call's
            waited = self._guard_waited(worker) - worker.guard_waited
            later = worker.base + min(EXTENSION_CAP, worker.extension + max(0.0, waited))
            if time.monotonic() < later:
                worker.deadline = later
                return None
            return self._retire(worker, "timeout")
        return None

    @staticmethod
    def _guard_waited(worker: _Worker) -> float:
        """Returns the seconds the worker's main thread (where a call's guard runs) waited for a CPU."""
        pid = worker.process.pid
        return runqueue_seconds(pid, pid) if pid is not None else 0.0

    def _retire(self, worker: _Worker, kind: Literal["timeout", "died"]) -> Event:
        worker.kill()
        self._workers.remove(worker)
        reason = (f"no answer within {worker.limit:g} s" if kind == "timeout"
                  else f"the worker process died during the call ({describe_exit(worker.process.exitcode)})")
        return Event(worker.key, kind, reason=reason, partial=worker.partial, limit=worker.limit)

    def recycle(self, key: Any) -> None:
        """Replaces the idle worker that ran the job ``key`` (e.g. it may hold a stray thread)."""
        for worker in [w for w in self._workers if not w.busy and w.key == key]:
            worker.kill()
            self._workers.remove(worker)

    def cancel(self, key: Any) -> None:
        """Kills the worker running the job ``key`` (its result is no longer wanted)."""
        for worker in [w for w in self._workers if w.busy and w.key == key]:
            worker.kill()
            self._workers.remove(worker)

    def close(self) -> None:
        """Stops every worker (killing those still busy)."""
        for worker in self._workers:
            if worker.busy:
                worker.kill()
            else:
                worker.stop()
        self._workers.clear()


_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_size(text: str) -> int:
    """Returns the bytes of a size such as ``512M``, ``2G`` or ``1048576``; raises ``ValueError``."""
    raw = text.strip().upper().removesuffix("B").removesuffix("I")
    number, unit = (raw[:-1], raw[-1]) if raw and raw[-1] in _UNITS else (raw, "")
    value = float(number) * _UNITS[unit]
    if value < 2**20:
        raise ValueError(f"memory limit {text!r} is below 1 MiB")
    return int(value)


def default_jobs() -> int:
    """Returns the default number of workers: the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1
