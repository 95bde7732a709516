"""Read deadlines for HTTP connections: a client must send its request in bounded time.

uvicorn bounds only the idle time between two requests (``timeout_keep_alive``):
a connection that sends half a request line, half its headers or half its
body is kept open for ever (measured: 100 half-sent bodies still open after
40 s), so a few hundred slow clients hold every file descriptor of the server.
:func:`timed_protocol` wraps uvicorn's HTTP protocol class with two deadlines:

- ``header_timeout_s``: from the connection's first byte of a request (or its
  opening) until the request's headers are complete;
- ``body_timeout_s``: from the end of the headers until the body is complete.

A request line and headers longer than ``MAX_HEAD_BYTES`` get ``431`` with
``headers_too_large`` and the connection is closed: httptools has no limit of
its own and joins a header that arrives in pieces by copying it whole for each
piece, so one client streaming an endless header held the event loop for
hundreds of milliseconds per read (measured: /health took 230 ms at the median).

When one passes, a request that has no answer yet gets ``408`` with the error
body ``request_timeout`` and ``Connection: close``, and the connection is
closed. Waiting for a reply (a long chat, a stream) is not reading: once the
request is in, no deadline applies; WebSockets are not affected after the
upgrade.

Spec: issue 10 C6; acceptance SRV-06 (bad input never holds the server).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from attn.jsontext import dumps_bytes
from attn.server.errors import HEADERS_TOO_LARGE, REQUEST_TIMEOUT, error_body

#: Default seconds a client may take to send a request's line and headers.
DEFAULT_HEADER_TIMEOUT_S = 10.0
#: Default seconds a client may take to send a request's body after its headers.
DEFAULT_BODY_TIMEOUT_S = 30.0
#: Largest deadline accepted, in seconds (one hour).
MAX_READ_TIMEOUT_S = 3600.0
#: Most bytes of one request's line and headers (h11, uvicorn's other parser, allows 16 KiB).
MAX_HEAD_BYTES = 65_536


def _closing_response(status: bytes, code: str, message: str) -> bytes:
    body = dumps_bytes(error_body(code, message))
    head = (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
        b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    return head + body


def _timeout_response(what: str, seconds: float) -> bytes:
    message = f"the {what} did not arrive within {seconds:g} s; the connection is closed"
    return _closing_response(b"408 Request Timeout", REQUEST_TIMEOUT, message)


_HEAD_TOO_LARGE = _closing_response(
    b"431 Request Header Fields Too Large",
    HEADERS_TOO_LARGE,
    f"the request line and headers are longer than {MAX_HEAD_BYTES:,} bytes; "
    "the connection is closed",
)


def timed_protocol(
    header_timeout_s: float = DEFAULT_HEADER_TIMEOUT_S,
    body_timeout_s: float = DEFAULT_BODY_TIMEOUT_S,
    base: type[asyncio.Protocol] = AutoHTTPProtocol,
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class ``base`` with read deadlines (pass it as ``http=``).

    Args:
        header_timeout_s: seconds from a request's first byte (or the
            connection's opening) to the end of its headers; > 0.
        body_timeout_s: seconds from the end of the headers to the end of the body; > 0.
        base: the uvicorn protocol class to extend (httptools when installed, else h11).

    Returns:
        A subclass of ``base`` for ``uvicorn.Config(http=...)``.

    Raises:
        ValueError: a deadline is not a number in (0, 3600].
    """
    for name, value in (("header_timeout_s", header_timeout_s), ("body_timeout_s", body_timeout_s)):
        if not 0 < value <= MAX_READ_TIMEOUT_S:
            raise ValueError(f"{name} must be in (0, {MAX_READ_TIMEOUT_S:g}] seconds, got {value}")

    class TimedProtocol(base):  # type: ignore[valid-type, misc]
        """``base`` with :func:`timed_protocol`'s deadlines."""

        _deadline: asyncio.TimerHandle | None = None
        _watched: Any = None  # the request cycle whose body is awaited
        _head_bytes = 0  # bytes received while waiting for the current request's headers

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            self._arm("request headers", header_timeout_s)

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            waiting = before is None or before.response_complete
            if self._deadline is None and waiting:
                self._arm("request headers", header_timeout_s)
            if waiting:
                self._head_bytes += len(data)
            super().data_received(data)
            cycle = self.cycle
            if cycle is not before and cycle is not None:
                self._disarm()  # the headers are complete
                self._head_bytes = 0
                if cycle.more_body:
                    self._arm("request body", body_timeout_s)
                    self._watched = cycle
            elif self._watched is not None and not self._watched.more_body:
                self._disarm()
            elif waiting and self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                self._disarm()
                self.transport.write(_HEAD_TOO_LARGE)
                self.transport.close()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            self._disarm()
            super().handle_websocket_upgrade(*args)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self, what: str, seconds: float) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._expired, what, seconds)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._watched = None

        def _expired(self, what: str, seconds: float) -> None:
            self._deadline = None
            cycle, self._watched = self._watched, None
            transport = self.transport
            if transport.is_closing():
                return
            if what == "request body" and (cycle is None or not cycle.more_body):
                return  # the body arrived meanwhile
            answered = cycle is not None and cycle.response_started
            if not answered:
                transport.write(_timeout_response(what, seconds))
            if cycle is not None:
                cycle.keep_alive = False
            transport.close()

    TimedProtocol.__name__ = TimedProtocol.__qualname__ = f"Timed{base.__name__}"
    return TimedProtocol


__all__ = [
    "DEFAULT_BODY_TIMEOUT_S",
    "DEFAULT_HEADER_TIMEOUT_S",
    "MAX_HEAD_BYTES",
    "MAX_READ_TIMEOUT_S",
    "timed_protocol",
]
