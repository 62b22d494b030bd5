"""Imported first by the fork server (``PRELOAD``), never elsewhere: the server imports the harness
and the libraries a block preloads with the cyclic garbage collector off, and leaves all it has
loaded out of the passes of every worker it forks (``gc.freeze`` before each fork), so that no
worker walks again what they all share (and copy-on-write keeps those pages shared)."""

import gc
import os

gc.disable()  # the server itself only imports and forks
os.register_at_fork(before=gc.freeze, after_in_child=gc.enable)
