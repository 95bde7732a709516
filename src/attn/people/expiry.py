"""When approvals expire: one timer, at the earliest expiry of the pending ones.

Spec: 000 §13.2 (attn adds expiry: nothing waits forever unless asked to);
acceptance PPL-04, PPL-08.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from datetime import datetime

from attn.clock import Clock, TimerHandle


class Expiries:
    """Pending approvals by expiry; ``on_due(ids)`` is called when some are due.

    Args:
        clock: the runtime's clock (its timer).
        on_due: called with the ids due, oldest expiry first (already closed
            ones among them are for the callee to skip).
    """

    def __init__(self, clock: Clock, on_due: Callable[[list[str]], None]) -> None:
        self._clock = clock
        self._on_due = on_due
        self._heap: list[tuple[datetime, str]] = []
        self._timer: TimerHandle | None = None
        self._timer_at: datetime | None = None

    def add(self, approval_id: str, expires_at: datetime | None) -> None:
        if expires_at is None:
            return
        heapq.heappush(self._heap, (expires_at, approval_id))
        self._arm()

    def _arm(self) -> None:
        if not self._heap:
            return
        at = self._heap[0][0]
        if self._timer is not None and self._timer_at is not None and self._timer_at <= at:
            return
        if self._timer is not None:
            self._timer.cancel()
        delay = max(0.0, (at - self._clock.now()).total_seconds())
        self._timer_at = at
        self._timer = self._clock.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._timer_at = None
        now = self._clock.now()
        due: list[str] = []
        while self._heap and self._heap[0][0] <= now:
            due.append(heapq.heappop(self._heap)[1])
        self._arm()
        if due:
            self._on_due(due)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._timer_at = None


__all__ = ["Expiries"]
