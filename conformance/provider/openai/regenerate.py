"""Re-create the shipped OpenAI emulator cassettes: start the emulator on 127.0.0.1 and record every
OpenAI probe.

Run ``python -m conformance.provider.openai.regenerate [--out cassettes] [--port 0]``. The recorded
URIs always read ``http://127.0.0.1:8090/v1`` whatever port the emulator got, and the emulator's
answers depend only on the request, so the cassettes come out byte for byte the same on every run.
"""

from __future__ import annotations

import sys

from ..regenerate import regenerate_command
from .emulator import Emulator
from .record import record

STORED_URL = "http://127.0.0.1:8090/v1"
# (run with -m, the module's name is "__main__": its spec has the name it is run by)
main = regenerate_command(__spec__.name, __doc__, provider="openai", emulator=Emulator, record=record,
                          stored_url=STORED_URL)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
