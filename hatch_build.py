"""The wheel's build hook: an editable install leaves the reference compactor out of the wheel, so
the checkout's own ``reference/`` (read as ``conformance_reference`` through ``conformance_reference.py``)
is the one that runs; a regular install ships it as the ``conformance_reference`` package."""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc, unused-ignore]  # Any without hatchling installed
    """Sets the files an editable wheel force-includes: the shipped data, not ``reference/``."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Keeps every force-include of pyproject but the reference in an editable build."""
        if version == "editable":
            forced = self.build_config.force_include  # source path -> path in the wheel
            build_data["force_include_editable"] = {k: v for k, v in forced.items() if v != "conformance_reference"}
