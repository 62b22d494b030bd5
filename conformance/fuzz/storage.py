"""Where Hypothesis keeps its files during a fuzzing run: under ``.conformance_cache/``, not in a
``.hypothesis/`` folder of the current directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import configuration

STORAGE_DIR = Path(".conformance_cache") / "hypothesis-storage"
_HOME = "__hypothesis_home_directory"  # the setting set_hypothesis_home_dir writes (None: not chosen yet)
_DEFAULT = "__hypothesis_home_directory_default"  # .hypothesis/ of the folder Hypothesis was imported in


@contextmanager
def hypothesis_storage(folder: Path = STORAGE_DIR) -> Iterator[None]:
    """Points Hypothesis' own storage (constants, temporary files) at ``folder`` while the block runs,
    unless ``HYPOTHESIS_STORAGE_DIRECTORY`` or an earlier ``set_hypothesis_home_dir`` chose one;
    restores the previous choice afterwards, so a test session's own Hypothesis use is unchanged."""
    chosen = getattr(configuration, _HOME, None)
    default = getattr(configuration, _DEFAULT, None)
    if (chosen is not None and chosen != default) or os.getenv("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    configuration.set_hypothesis_home_dir(folder.resolve())
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(chosen)
