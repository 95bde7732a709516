"""What a test sees of the fake provider: the requests it received, its streams, and
waits for both that work from any event loop or thread.

Spec: issue 12 point 7; acceptance LLM-04 (the close of an aborted stream is timed).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from attn.testing.fake_provider.script import ReceivedRequest, StreamRecord, WireProtocol
from attn.types import JSON

if TYPE_CHECKING:
    from attn.testing.fake_provider.http import HttpRequest

__all__ = ["WAIT_TIMEOUT_S", "Observations"]

T = TypeVar("T")

#: Seconds the ``wait_*`` methods wait by default.
WAIT_TIMEOUT_S = 10.0


class Observations:
    """The received requests and streams, and waits on them.

    The provider may serve on another thread's loop (``start_in_thread``): the
    lists are guarded by a lock, and a waiter is woken in its own loop.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[ReceivedRequest] = []
        self._streams: list[StreamRecord] = []
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    @property
    def requests(self) -> list[ReceivedRequest]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def accepted(self) -> list[ReceivedRequest]:
        """The requests that passed auth and validation, in order."""
        return [r for r in self.requests if r.accepted]

    @property
    def rejected(self) -> list[ReceivedRequest]:
        """The requests refused (auth, validation, unknown path), in order."""
        return [r for r in self.requests if not r.accepted]

    @property
    def streams(self) -> list[StreamRecord]:
        """Every streamed answer so far, in order (the records update as the streams go on)."""
        with self._lock:
            return list(self._streams)

    async def wait_requests(
        self, n: int, *, timeout_s: float = WAIT_TIMEOUT_S
    ) -> list[ReceivedRequest]:
        """Wait until at least ``n`` requests arrived; returns them all.

        Raises:
            AssertionError: fewer than ``n`` after ``timeout_s`` seconds.
        """
        await self._wait(lambda: len(self._requests) >= n, timeout_s, f"{n} request(s)")
        return self.requests

    async def wait_streaming(self, *, timeout_s: float = WAIT_TIMEOUT_S) -> StreamRecord:
        """Wait until a stream hangs (its ``hang_after`` events sent) with its
        connection still open; returns that stream's record.

        Raises:
            AssertionError: no such stream after ``timeout_s`` seconds.
        """

        def hanging() -> StreamRecord | None:
            return next((s for s in self._streams if s.hanging and s.closed_at is None), None)

        return await self._wait(hanging, timeout_s, "a hanging stream")

    async def wait_closed(
        self, stream: StreamRecord, *, timeout_s: float = WAIT_TIMEOUT_S
    ) -> float:
        """Wait until the connection of ``stream`` closed; returns when it did (``loop.time()``).

        Raises:
            AssertionError: still open after ``timeout_s`` seconds.
        """
        return await self._wait(
            lambda: stream.closed_at, timeout_s, "the stream's connection to close"
        )

    # -- for the server --------------------------------------------------------

    def _received(
        self,
        protocol: WireProtocol | None,
        http: HttpRequest,
        body: JSON | None,
        *,
        status: int,
        rejection: str | None,
    ) -> ReceivedRequest:
        with self._lock:
            index = len(self._requests)
        return ReceivedRequest(
            protocol=protocol,
            path=http.path,
            headers=dict(http.headers),
            body=body,
            raw=http.body,
            accepted=rejection is None,
            status=status,
            rejection=rejection,
            index=index,
        )

    def _keep(self, request: ReceivedRequest) -> ReceivedRequest:
        with self._lock:
            self._requests.append(request)
        self._notify()
        return request

    def _add_stream(self, record: StreamRecord) -> None:
        with self._lock:
            self._streams.append(record)
        self._notify()

    def _notify(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    async def _wait(self, check: Callable[[], T | None], timeout_s: float, what: str) -> T:
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be positive seconds, got {timeout_s!r}")
        entry = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._waiters.append(entry)
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    entry[1].clear()
                    with self._lock:
                        value = check()
                    if value:
                        return value
                    await entry[1].wait()
        except TimeoutError:
            raise AssertionError(
                f"fake provider: timed out after {timeout_s:g} s waiting for {what}"
            ) from None
        finally:
            with self._lock:
                self._waiters.remove(entry)
