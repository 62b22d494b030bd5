"""Shared fixtures of the egress tests: the shipped conversations and surfaces."""

from __future__ import annotations

import pytest

from conformance.egress.conversations import Conversation, load


@pytest.fixture(scope="session")
def conversations() -> list[Conversation]:
    loaded = load()
    assert not loaded.errors, loaded.errors
    return loaded.conversations


def of_format(conversations: list[Conversation], fmt: str) -> list[Conversation]:
    return [c for c in conversations if c.format == fmt]
