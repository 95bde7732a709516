"""Helpers for testing code built on attn: a fake clock and loop settling.

``FakeClock`` only moves when a test calls :meth:`FakeClock.advance`; timers
scheduled through it (backstops, brain sleeps, resurface times) fire in order
as time passes. Use it with :class:`~attn.store.memory.MemoryStore`, whose
writes complete without leaving the event loop.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from attn.store.memory import MemoryStore

__all__ = ["FakeClock", "MemoryStore", "settle"]


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
