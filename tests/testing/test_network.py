"""attn.testing.network_guard: a connect outside loopback fails, loopback and unix sockets work."""

from __future__ import annotations

import asyncio
import errno
import socket
import threading
from pathlib import Path

import pytest

from attn.testing import NetworkBlocked, NetworkGuard, network_guard
from attn.testing.network import is_loopback


def test_a_connect_outside_loopback_is_refused_and_noted() -> None:
    with network_guard() as guard, socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(NetworkBlocked, match=r"192\.0\.2\.1"):
            sock.connect(("192.0.2.1", 443))  # TEST-NET-1: never routed
        assert sock.connect_ex(("2.2.2.2", 80)) == errno.ECONNREFUSED
    assert guard.blocked == ["('192.0.2.1', 443)", "('2.2.2.2', 80)"]
    with pytest.raises(AssertionError, match=r"2 connect\(s\) refused"):
        guard.check()


def test_a_host_name_and_an_ipv6_address_outside_loopback_are_refused() -> None:
    with network_guard() as guard:
        with socket.socket(socket.AF_INET) as sock, pytest.raises(NetworkBlocked):
            sock.connect(("api.openai.com", 443))
        with socket.socket(socket.AF_INET6) as sock, pytest.raises(NetworkBlocked):
            sock.connect(("2001:db8::1", 443, 0, 0))
    assert len(guard.blocked) == 2


async def test_asyncio_connections_outside_loopback_fail_and_the_autouse_guard_notes_them(
    no_network: NetworkGuard,
) -> None:
    with pytest.raises(OSError):
        await asyncio.open_connection("192.0.2.1", 443)
    assert no_network.blocked == ["('192.0.2.1', 443)"]
    no_network.blocked.clear()  # this test wanted the refusal; others would fail at teardown


async def test_loopback_connections_work_under_the_guard() -> None:
    server = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    with network_guard() as guard:
        for host in ("127.0.0.1", "localhost"):
            _, writer = await asyncio.open_connection(host, port)
            writer.close()
            await writer.wait_closed()
    server.close()
    await server.wait_closed()
    assert guard.blocked == []


def test_unix_sockets_and_other_threads_follow_the_guard(tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen()
    outcome: list[BaseException | None] = []

    def outside() -> None:
        with socket.socket(socket.AF_INET) as sock:
            try:
                sock.connect(("10.0.0.1", 80))
                outcome.append(None)
            except NetworkBlocked as exc:
                outcome.append(exc)

    with network_guard() as guard, socket.socket(socket.AF_UNIX) as client:
        client.connect(path)
        thread = threading.Thread(target=outside)
        thread.start()
        thread.join()
    listener.close()
    assert isinstance(outcome[0], NetworkBlocked) and len(guard.blocked) == 1


def test_the_guard_restores_the_socket_methods_when_it_ends() -> None:
    before = (socket.socket.connect, socket.socket.connect_ex)
    with network_guard():
        assert socket.socket.connect is not before[0]
    assert (socket.socket.connect, socket.socket.connect_ex) == before


@pytest.mark.parametrize(
    ("address", "local"),
    [
        (("127.0.0.1", 1), True),
        (("127.9.8.7", 1), True),
        (("::1", 1, 0, 0), True),
        (("::ffff:127.0.0.1", 1, 0, 0), True),
        (("localhost", 1), True),
        (("0.0.0.0", 1), False),
        (("10.1.2.3", 1), False),
        (("example.com", 1), False),
        ("/tmp/socket", True),
    ],
)
def test_is_loopback(address: object, local: bool) -> None:
    assert is_loopback(address) is local
