"""Tests never touch the network: the autouse guard in conftest.py refuses anything but loopback."""

from __future__ import annotations


def test_the_network_guard_refuses_a_public_address() -> None:
    import socket

    import pytest
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("0.0.0.0", 9))  # not loopback by name; harmless even unguarded
