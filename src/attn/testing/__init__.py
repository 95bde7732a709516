"""Helpers for testing code built on attn: a fake clock, loop settling, waiting, a fake
model provider and a network guard.

``FakeClock`` only moves when a test calls :meth:`FakeClock.advance`; timers
scheduled through it (backstops, brain sleeps, resurface times) fire in order
as time passes. Use it with :class:`~attn.store.memory.MemoryStore`, whose
writes complete without leaving the event loop.

Where the work happens outside the event loop (a database server, a writer
thread, a server in another thread), :func:`eventually` polls an observable
condition until it holds, instead of sleeping for a fixed time.

:class:`FakeProvider` is a loopback server speaking OpenAI Chat Completions and
Anthropic Messages from a script (see :mod:`attn.testing.fake_provider`), and
:func:`network_guard` refuses every connect outside loopback.
"""

from __future__ import annotations

import asyncio
import heapq
import inspect
import itertools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from attn.store.memory import MemoryStore
from attn.testing.fake_provider import (
    FakeProvider,
    FakeToolCall,
    Fault,
    ReceivedRequest,
    StreamRecord,
    Turn,
)
from attn.testing.network import NetworkBlocked, NetworkGuard, network_guard

__all__ = [
    "FakeClock",
    "FakeProvider",
    "FakeToolCall",
    "Fault",
    "MemoryStore",
    "NetworkBlocked",
    "NetworkGuard",
    "ReceivedRequest",
    "StreamRecord",
    "Turn",
    "eventually",
    "network_guard",
    "settle",
]

T = TypeVar("T")

#: Seconds :func:`eventually` waits by default.
EVENTUALLY_TIMEOUT_S = 10.0
#: Seconds between two checks of :func:`eventually` by default.
EVENTUALLY_INTERVAL_S = 0.005


async def eventually(
    predicate: Callable[[], T | Awaitable[T]],
    *,
    timeout_s: float = EVENTUALLY_TIMEOUT_S,
    interval_s: float = EVENTUALLY_INTERVAL_S,
    what: str = "",
) -> T:
    """Check ``predicate`` until it returns a true value, and return that value.

    The predicate may be a plain function or a coroutine function; it is
    called at once, then every ``interval_s`` seconds of loop (real) time.
    Use it for conditions another thread or process makes true; under a
    :class:`FakeClock`, :func:`settle` and :meth:`FakeClock.advance` say when
    the loop is done instead.

    Args:
        predicate: the condition to wait for; called with no arguments.
        timeout_s: seconds to wait in all, checks included; must be positive.
        interval_s: seconds between checks; 0 lets every other ready task run once.
        what: what the condition means, for the failure message (default: the
            predicate's name).

    Returns:
        The predicate's first true value.

    Raises:
        AssertionError: the condition still does not hold after ``timeout_s``
            (a check that is still running then is cancelled).
        ValueError: ``timeout_s`` is not positive or ``interval_s`` is negative.
    """
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be positive seconds, got {timeout_s!r}")
    if not interval_s >= 0:
        raise ValueError(f"interval_s must be zero or more seconds, got {interval_s!r}")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    checks = 0
    scope = asyncio.timeout_at(deadline)
    try:
        async with scope:
            while True:
                checks += 1
                result = predicate()
                value: T = await result if inspect.isawaitable(result) else result
                if value:
                    return value
                await asyncio.sleep(interval_s)
    except TimeoutError:
        if not scope.expired():  # the predicate's own TimeoutError
            raise
    name = what or getattr(predicate, "__qualname__", repr(predicate))
    raise AssertionError(
        f"timed out after {timeout_s:g} s waiting until {name} "
        f"({checks} check(s), every {interval_s:g} s)"
    )


async def settle(max_rounds: int = 10_000) -> None:
    """Let every ready task run until the event loop has nothing ready.

    Returns when no callback is ready (tasks waiting on timers, futures or
    other threads stay blocked). Bounded by ``max_rounds`` loop turns.
    """
    loop = asyncio.get_running_loop()
    ready = getattr(loop, "_ready", None)
    for _ in range(max_rounds):
        await asyncio.sleep(0)
        if ready is not None and not ready:
            await asyncio.sleep(0)
            if not ready:
                return


class _Timer:
    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A clock that moves only when told.

    Args:
        start: the initial wall-clock instant (UTC).
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._offset_s = 0.0
        self._timers: list[tuple[float, int, _Timer]] = []
        self._order = itertools.count()

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._offset_s)

    def monotonic(self) -> float:
        return self._offset_s

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(callback)
        heapq.heappush(self._timers, (self._offset_s + max(0.0, delay_s), next(self._order), timer))
        return timer

    async def sleep(self, delay_s: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not future.done():
                future.set_result(None)

        timer = self.call_later(delay_s, wake)
        try:
            await future
        finally:
            timer.cancel()

    def jump(self, delta_s: float) -> None:
        """Step the wall clock by ``delta_s`` seconds (back when negative), as NTP or a
        person setting the date does: :meth:`monotonic` and the timers do not move."""
        self._start += timedelta(seconds=delta_s)

    def pending(self) -> int:
        """Number of scheduled, not cancelled timers."""
        return sum(1 for _, _, t in self._timers if not t.cancelled)

    async def advance(self, delta_s: float) -> None:
        """Move time forward by ``delta_s`` seconds, firing due timers in order
        and letting the loop settle after each."""
        if delta_s < 0:
            raise ValueError(f"time only moves forward, got {delta_s} s")
        target = self._offset_s + delta_s
        await settle()
        while self._timers and self._timers[0][0] <= target:
            due, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._offset_s = max(self._offset_s, due)
            timer.callback()
            await settle()
        self._offset_s = target
        await settle()
