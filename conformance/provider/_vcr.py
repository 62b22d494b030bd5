"""vcrpy, imported without the HTTP libraries whose patchers the suite skips.

When vcrpy's ``vcr.patch`` loads, it imports every HTTP library it can patch (requests, urllib3,
botocore, tornado, aiohttp, httpx, ...) to keep their originals, whether or not a cassette will
patch them; the SDKs speak httpx2 only, and every other patcher is skipped
(``cassettes.SKIPPED_PATCHERS``), so those imports were a third of a second of every replay for
nothing. Here vcrpy loads with those libraries refused to it (to this thread, for the time of the
import, and only those not already imported): it then keeps no original of them, which only the
skipped patchers read. A library imported later (an SDK's own dependency) loads as usual.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from typing import Any

# The top-level modules ``vcr.patch`` tries to import for a patcher other than httpx2's.
UNPATCHED = ("botocore", "urllib3", "requests", "httplib2", "tornado", "aiohttp", "httpx", "httpx_curl_cffi",
             "pyreqwest")


class _Refused:
    """A meta path finder that refuses ``UNPATCHED`` libraries to one thread."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def find_spec(self, name: str, path: Sequence[str] | None = None, target: Any = None) -> ModuleSpec | None:
        """Returns ``None`` (the other finders decide); raises ``ModuleNotFoundError`` for a library
        of ``UNPATCHED`` (or a module inside one) not yet imported, asked for by vcrpy's thread."""
        top = name.partition(".")[0]
        if threading.get_ident() == self.thread and top in UNPATCHED and top not in sys.modules:
            raise ModuleNotFoundError(f"{name} is not loaded for vcrpy (its patcher is skipped)", name=name)
        return None


def _load() -> Any:
    """Returns the ``vcr`` package, ``vcr.patch`` loaded with ``UNPATCHED`` refused."""
    refused = _Refused()
    sys.meta_path.insert(0, refused)
    try:
        import vcr
        import vcr.patch  # noqa: F401 - the module whose imports are cut
    finally:
        sys.meta_path.remove(refused)
    return vcr


vcr = _load()
