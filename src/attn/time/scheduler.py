"""One timer per runtime: a heap of due times, armed on the earliest.

Every time-driven thing of a runtime (each wakeup, each agent's heartbeat)
is an entry of one :class:`Scheduler`. It arms a single clock timer for the
earliest entry; when that fires, the owner pops what is due and the timer is
armed again for the next. No per-agent timers and no polling loop: an idle
runtime with 10,000 heartbeats holds one timer (benchmarks/time_bench.py).

Callers give due times as wall-clock instants (what is stored, so they survive
restarts); the scheduler keeps each as a deadline on the monotonic clock, so
what this process schedules "in 600 s" fires 600 s later whatever the wall
clock does. An entry scheduled with ``wall=True`` (a wakeup asked for at an
absolute time) keeps its wall-clock instant instead. :meth:`Scheduler.check_jump`
notices a jump of the wall clock (its offset from the monotonic clock moved by
more than ``jump_tolerance_s``), moves the wall-anchored deadlines, and
returns the jump, so the owner can move the stored due times of the others
(:meth:`attn.time.clock_jumps.ClockJumps.rebase`). The timer's delay is capped at
``max_delay_s``, so a jump is noticed within that time.

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
        jump_tolerance_s: a change of the wall clock's offset from the
            monotonic clock larger than this counts as a jump (slewing by NTP
            moves it far less).

    Replacing or cancelling an entry is O(1) (lazy deletion from the heap);
    the heap is compacted when stale entries outnumber live ones.
    """

    def __init__(
        self,
        clock: Clock,
        on_due: Callable[[], None],
        *,
        max_delay_s: float = 3600.0,
        jump_tolerance_s: float = 2.0,
    ) -> None:
        self._clock = clock
        self._on_due = on_due
        self._max_delay_s = max_delay_s
        self._jump_tolerance_s = jump_tolerance_s
        #: (monotonic deadline, token, key); entries: key -> (deadline, token, wall).
        self._heap: list[tuple[float, int, Hashable]] = []
        self._entries: dict[Hashable, tuple[float, int, bool]] = {}
        self._order = itertools.count()
        self._timer: TimerHandle | None = None
        self._armed_for: float | None = None
        self._closed = False
        #: wall minus monotonic seconds when last checked (None until first used).
        self._offset_s: float | None = None
        self.fired = 0
        #: Wall-clock jumps noticed, and the last one in seconds (negative: back).
        self.jumps = 0
        self.last_jump_s = 0.0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def _offset(self) -> float:
        """The wall clock's offset from the monotonic clock now, in seconds."""
        return self._clock.now().timestamp() - self._clock.monotonic()

    def _to_wall(self, deadline: float) -> float:
        return deadline + self._offset()

    def due_at(self, key: Hashable) -> float | None:
        """The due time of ``key`` (epoch seconds by the wall clock), or None.

        Converted with the offset of the last :meth:`check_jump`, so it reads
        the same every time between jumps (the two clocks' readings jitter).
        """
        entry = self._entries.get(key)
        if entry is None:
            return None
        if self._offset_s is None:
            self._offset_s = self._offset()
        return entry[0] + self._offset_s

    def schedule(self, key: Hashable, when: datetime | float, *, wall: bool = False) -> None:
        """Schedule ``key`` at ``when`` (an aware datetime or epoch seconds), replacing
        its earlier time. Re-arms the timer if this is now the earliest entry.

        Args:
            key: the entry.
            when: the due instant by the wall clock now.
            wall: keep the wall-clock instant across a jump of the wall clock
                (default: keep the remaining delay, on the monotonic clock).
        """
        at = when.timestamp() if isinstance(when, datetime) else float(when)
        offset = self._offset()
        if self._offset_s is None:
            self._offset_s = offset
        self._push(key, at - offset, wall)
        if len(self._heap) > 64 and len(self._heap) > 2 * len(self._entries):
            self._compact()
        deadline = self._entries[key][0]
        if self._armed_for is None or deadline < self._armed_for:
            self.rearm()

    def _push(self, key: Hashable, deadline: float, wall: bool) -> None:
        token = next(self._order)
        self._entries[key] = (deadline, token, wall)
        heapq.heappush(self._heap, (deadline, token, key))

    def check_jump(self) -> float:
        """Notice a jump of the wall clock since the last check; return it in seconds.

        Returns 0.0 when there was none. On a jump, wall-anchored entries keep
        their wall-clock instant (their deadline moves by minus the jump); the
        others keep their deadline. The timer is not re-armed here.
        """
        offset = self._offset()
        if self._offset_s is None:
            self._offset_s = offset
            return 0.0
        jump_s = offset - self._offset_s
        if abs(jump_s) <= self._jump_tolerance_s:
            return 0.0
        self._offset_s = offset
        self.jumps += 1
        self.last_jump_s = jump_s
        for key, (deadline, _token, wall) in list(self._entries.items()):
            if wall:
                self._push(key, deadline - jump_s, wall)
        return jump_s

    def cancel(self, key: Hashable) -> bool:
        """Forget ``key``; True when it was scheduled. The timer is left armed
        (it finds nothing due and re-arms for the next entry)."""
        return self._entries.pop(key, None) is not None

    def peek(self) -> tuple[float, Hashable] | None:
        """The earliest live entry as ``(epoch seconds by the wall clock now, key)``, or None."""
        heap, entries = self._heap, self._entries
        while heap:
            deadline, token, key = heap[0]
            entry = entries.get(key)
            if entry is not None and entry[:2] == (deadline, token):
                return self._to_wall(deadline), key
            heapq.heappop(heap)
        return None

    def pop_due(self, now: datetime | float) -> list[Hashable]:
        """Remove and return every key due at or before ``now`` (the wall clock's
        reading, normally ``clock.now()``), earliest first."""
        limit = (now.timestamp() if isinstance(now, datetime) else float(now)) - self._offset()
        heap, entries = self._heap, self._entries
        due: list[Hashable] = []
        while heap and heap[0][0] <= limit:
            deadline, token, key = heapq.heappop(heap)
            entry = entries.get(key)
            if entry is not None and entry[:2] == (deadline, token):
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
        deadline = self._entries[head[1]][0]
        delay_s = min(max(0.0, deadline - self._clock.monotonic()), self._max_delay_s)
        self._armed_for = deadline
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
        self._heap = [(at, token, key) for key, (at, token, _wall) in self._entries.items()]
        heapq.heapify(self._heap)
