"""One timer per runtime: a heap of due times, armed on the earliest.

Every time-driven thing of a runtime (each wakeup, each agent's heartbeat)
is an entry of one :class:`Scheduler`. It arms a single clock timer for the
earliest entry; when that fires, the owner pops what is due and the timer is
armed again for the next. No per-agent timers and no polling loop: an idle
runtime with 10,000 heartbeats holds one timer (benchmarks/time_bench.py).

Due times are wall-clock instants (UTC seconds since the epoch, as floats), so
they survive restarts; the timer's delay is computed from ``clock.now()`` and
capped at ``max_delay_s`` so a jump of the wall clock is noticed.

Spec: 000 §11.3 (wakeup sweep driven by the next due time).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable
from datetime import datetime

from attn.clock import Clock, TimerHandle


class Scheduler:
    """Keys with due times, and one timer for the earliest.

    Args:
        clock: the runtime's clock.
        on_due: called (synchronously, from the timer) when the earliest entry
            may be due; it should call :meth:`pop_due` and then :meth:`rearm`.
        max_delay_s: longest delay the timer is armed for.

    Replacing or cancelling an entry is O(1) (lazy deletion from the heap);
    the heap is compacted when stale entries outnumber live ones.
    """

    def __init__(self, clock: Clock, on_due: Callable[[], None], *,
                 max_delay_s: float = 3600.0) -> None:
        self._clock = clock
        self._on_due = on_due
        self._max_delay_s = max_delay_s
        self._heap: list[tuple[float, int, Hashable]] = []
        self._entries: dict[Hashable, tuple[float, int]] = {}
        self._order = itertools.count()
        self._timer: TimerHandle | None = None
        self._armed_for: float | None = None
        self._closed = False
        self.fired = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def due_at(self, key: Hashable) -> float | None:
        """The due time of ``key`` (epoch seconds), or None when not scheduled."""
        entry = self._entries.get(key)
        return entry[0] if entry is not None else None

    def schedule(self, key: Hashable, when: datetime | float) -> None:
        """Schedule ``key`` at ``when`` (an aware datetime or epoch seconds), replacing
        its earlier time. Re-arms the timer if this is now the earliest entry."""
        at = when.timestamp() if isinstance(when, datetime) else float(when)
        token = next(self._order)
        self._entries[key] = (at, token)
        heapq.heappush(self._heap, (at, token, key))
        if len(self._heap) > 64 and len(self._heap) > 2 * len(self._entries):
            self._compact()
        if self._armed_for is None or at < self._armed_for:
            self.rearm()

    def cancel(self, key: Hashable) -> bool:
        """Forget ``key``; True when it was scheduled. The timer is left armed
        (it finds nothing due and re-arms for the next entry)."""
        return self._entries.pop(key, None) is not None

    def peek(self) -> tuple[float, Hashable] | None:
        """The earliest live entry as ``(epoch seconds, key)``, or None."""
        heap, entries = self._heap, self._entries
        while heap:
            at, token, key = heap[0]
            if entries.get(key) == (at, token):
                return at, key
            heapq.heappop(heap)
        return None

    def pop_due(self, now: datetime | float) -> list[Hashable]:
        """Remove and return every key due at or before ``now``, earliest first."""
        limit = now.timestamp() if isinstance(now, datetime) else float(now)
        heap, entries = self._heap, self._entries
        due: list[Hashable] = []
        while heap and heap[0][0] <= limit:
            at, token, key = heapq.heappop(heap)
            if entries.get(key) == (at, token):
                del entries[key]
                due.append(key)
        return due

    def rearm(self) -> None:
        """Arm the one timer for the earliest entry (or disarm when there is none)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._armed_for = None
        head = self.peek()
        if head is None or self._closed:
            return
        at = head[0]
        delay_s = min(max(0.0, at - self._clock.now().timestamp()), self._max_delay_s)
        self._armed_for = at
        self._timer = self._clock.call_later(delay_s, self._fire)

    def close(self) -> None:
        """Disarm for good; entries stay readable."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._armed_for = None

    def _fire(self) -> None:
        self._timer = None
        self._armed_for = None
        self.fired += 1
        self._on_due()

    def _compact(self) -> None:
        self._heap = [(at, token, key) for key, (at, token) in self._entries.items()]
        heapq.heapify(self._heap)
