"""Whether this machine listens on IPv6 loopback (``::1``): the tests of IPv6 hosts need it."""

from __future__ import annotations

import socket

import pytest

__all__ = ["has_ipv6_loopback", "needs_ipv6_loopback"]


def has_ipv6_loopback() -> bool:
    try:
        with socket.create_server(("::1", 0), family=socket.AF_INET6):
            return True
    except OSError:
        return False


#: Skips a test on a machine without IPv6 loopback, saying so.
needs_ipv6_loopback = pytest.mark.skipif(
    not has_ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine"
)
