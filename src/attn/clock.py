"""Time, injected: everything in attn asks a :class:`Clock` what time it is.

The system clock reads the real time and schedules callbacks on the running
event loop. Tests use :class:`attn.testing.FakeClock`, which only moves when told.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol


class TimerHandle(Protocol):
    """A scheduled callback that can be cancelled before it runs."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The source of time for attn.

    ``now()`` is wall-clock UTC (for ``*_at`` fields); ``monotonic()`` is seconds
    from an arbitrary origin (for durations); ``call_later`` schedules a plain
    callback ``delay_s`` seconds from now on the running loop.
    """

    def now(self) -> datetime: ...

    def monotonic(self) -> float: ...

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle: ...

    async def sleep(self, delay_s: float) -> None: ...


class SystemClock:
    """The real clock: ``datetime.now(UTC)`` and the event loop's timers."""

    __slots__ = ()

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> TimerHandle:
        return asyncio.get_running_loop().call_later(max(0.0, delay_s), callback)

    async def sleep(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)


SYSTEM_CLOCK = SystemClock()

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock", "TimerHandle"]
