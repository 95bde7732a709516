"""A guard that keeps tests off the network: only loopback and unix sockets connect.

While :func:`network_guard` is active, ``socket.socket.connect`` and
``connect_ex`` (every thread, asyncio included) refuse an address outside
127.0.0.0/8 and ``::1`` with :class:`NetworkBlocked`, and note it, so a test
fails even if the code under test swallows the error. Unix sockets and other
non-IP families pass. A host name other than ``localhost`` is refused too
(connecting to it would resolve it first).

Spec: issue 12 point 7 (no scenario touches the network).
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["NetworkBlocked", "NetworkGuard", "is_loopback", "network_guard"]


class NetworkBlocked(ConnectionRefusedError):
    """A socket tried to connect outside loopback while the network guard was on."""


def is_loopback(address: Any) -> bool:
    """Whether a ``connect`` address stays on this machine: an IP tuple whose host
    is in 127.0.0.0/8, ``::1`` (also IPv4-mapped) or ``localhost``; or any
    non-tuple address (a unix socket path)."""
    if not isinstance(address, tuple) or not address:
        return True
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False  # a host name: resolving it is already a network use
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


class NetworkGuard:
    """What one :func:`network_guard` saw.

    Attributes:
        blocked: each refused address, as text, in order.
    """

    def __init__(self) -> None:
        self.blocked: list[str] = []
        self._lock = threading.Lock()

    def refuse(self, address: Any) -> NetworkBlocked:
        """Note ``address`` and return the error to raise."""
        with self._lock:
            self.blocked.append(repr(address))
        return NetworkBlocked(f"network guard: tests connect only to loopback, not {address!r}")

    def check(self) -> None:
        """Raise AssertionError naming every refused address, if any."""
        with self._lock:
            blocked = list(self.blocked)
        if blocked:
            raise AssertionError(
                f"the test tried to reach the network ({len(blocked)} connect(s) refused): "
                + ", ".join(blocked)
            )


@contextmanager
def network_guard() -> Iterator[NetworkGuard]:
    """Refuse non-loopback connects until the block ends; yields the guard.

    Guards nest: the innermost one refuses and notes the address.
    """
    guard = NetworkGuard()
    original_connect: Callable[..., Any] = socket.socket.connect
    original_connect_ex: Callable[..., Any] = socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address):
            raise guard.refuse(address)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not is_loopback(address):
            guard.refuse(address)
            return errno.ECONNREFUSED  # connect_ex reports errors as numbers
        result: int = original_connect_ex(self, address)
        return result

    socket.socket.connect = connect  # type: ignore[method-assign, assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign, assignment]
    try:
        yield guard
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
