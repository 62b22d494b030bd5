"""Imported first by the fork server (``PRELOAD``), never elsewhere: the server imports the harness
and the libraries a block preloads with the cyclic garbage collector off, and leaves all it has
loaded out of the passes of every worker it forks (``gc.freeze`` before each fork), so that no
worker walks again what they all share (and copy-on-write keeps those pages shared)."""

import gc
import os

_SERVER = os.getpid()


def _before_fork() -> None:
    """Leaves out of later passes all the server holds, before it forks a worker (not before a
    fork in a worker: the hooks are inherited)."""
    if os.getpid() == _SERVER:
        gc.freeze()


def _in_worker() -> None:
    """Turns the collector on again in a worker the server forked (a worker runs target code)."""
    if os.getppid() == _SERVER:
        gc.enable()


gc.disable()  # the server itself only imports and forks
os.register_at_fork(before=_before_fork, after_in_child=_in_worker)
