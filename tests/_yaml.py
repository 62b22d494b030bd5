"""YAML for the tests: libyaml's safe loader where PyYAML was built with it (the pure-Python
``yaml.safe_load`` reads the recordings several times slower)."""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(stream: Any) -> Any:
    """Returns the one YAML document of ``stream`` (text, bytes or a file), as ``yaml.safe_load``."""
    return yaml.load(stream, Loader=_LOADER)
