"""The turn slots of one spawn tree, and who gets the next one.

A tree has ``capacity`` slots (default 3). A child's turn takes a slot when
it starts and gives it back when its settlement is durable, in the
transaction that also holds its RESULT; no close call is ever needed. The
root's own turns take no slot. When a slot frees (after every settlement,
committed or failed, and when a reserved or failed start gives one back),
the waiting agents are offered slots oldest waking mail first: each one
offered is *reserved* a slot and its loop is woken, so nobody newer can take
it meanwhile.

Spec: seed 002 (capacity, reoffer after settlement); acceptance A2A-12, A2A-21.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class Waiter(Protocol):
    """An agent that may want a slot (a retained agent's gate)."""

    @property
    def agent_id(self) -> str: ...

    @property
    def path(self) -> str: ...

    def oldest_mark(self) -> int | None:
        """The order number of its oldest waking mail still unread, or None."""

    def wake(self) -> None:
        """Start its loop's next drain (it asks for admission again)."""


@dataclass(slots=True, eq=False)
class Slots:
    """The slots of one tree.

    Attributes:
        tree_id: the root agent's id.
        capacity: how many child turns may run at once.
        holders: agent id → path of each child in a turn (it holds a slot).
        reserved: agent ids offered a slot whose loop has not started the turn yet.
        waiting: the agents that asked for a slot and did not get one.
    """

    tree_id: str
    capacity: int
    holders: dict[str, str] = field(default_factory=dict)
    reserved: dict[str, str] = field(default_factory=dict)
    waiting: dict[str, Waiter] = field(default_factory=dict)
    #: (oldest waking mark, agent id) of each waiting agent as it began to wait; an
    #: entry whose mark is stale is ranked again when it reaches the top.
    _queue: list[tuple[int, str]] = field(default_factory=list)
    #: Called after each change of holders (views, events).
    on_change: Callable[[], None] | None = None

    @property
    def free(self) -> int:
        return max(0, self.capacity - len(self.holders) - len(self.reserved))

    def take(self, waiter: Waiter) -> bool:
        """Give ``waiter`` a slot (its reserved one, or a free one); False: it waits."""
        agent_id = waiter.agent_id
        if agent_id in self.holders:
            return True
        if self.reserved.pop(agent_id, None) is not None or self.free > 0:
            self.waiting.pop(agent_id, None)
            self.holders[agent_id] = waiter.path
            self._changed()
            return True
        if agent_id not in self.waiting:
            mark = waiter.oldest_mark()
            if mark is not None:
                heapq.heappush(self._queue, (mark, agent_id))
        self.waiting[agent_id] = waiter
        return False

    def give_back(self, agent_id: str) -> None:
        """The turn (or the reserved start) of ``agent_id`` is over: offer its slot."""
        held = self.holders.pop(agent_id, None) is not None
        reserved = self.reserved.pop(agent_id, None) is not None
        if held or reserved:
            self._changed()
        self.offer()

    def forget(self, agent_id: str) -> None:
        """``agent_id`` no longer waits (interrupted, stopped or removed)."""
        self.waiting.pop(agent_id, None)
        if self.reserved.pop(agent_id, None) is not None:
            self.offer()

    def offer(self) -> None:
        """Reserve free slots for the waiting agents, oldest waking mail first, and wake
        them. O(log n) per agent offered: the waiting agents are kept in a heap."""
        queue = self._queue
        chosen: list[Waiter] = []
        while queue and self.free > 0:
            mark, agent_id = heapq.heappop(queue)
            waiter = self.waiting.get(agent_id)
            if waiter is None:
                continue  # offered already, or no longer waiting
            current = waiter.oldest_mark()
            if current is None:  # nothing waking any more
                del self.waiting[agent_id]
            elif current != mark:  # its oldest mail was read: ranked by the next one
                heapq.heappush(queue, (current, agent_id))
            else:
                del self.waiting[agent_id]
                self.reserved[agent_id] = waiter.path
                chosen.append(waiter)
        if not self.waiting:
            queue.clear()
        for waiter in chosen:
            waiter.wake()

    def at_capacity_reason(self) -> str:
        """The answer for mail that must wait: the limit and who holds the slots (A2A-21)."""
        holders = ", ".join(sorted(self.holders.values())) or "none"
        reserved = ", ".join(sorted(self.reserved.values()))
        also = f"; reserved for {reserved}" if reserved else ""
        return (
            f"at capacity: {len(self.holders) + len(self.reserved)} of {self.capacity} "
            f"turn slots in use (held by {holders}{also}); it starts when a slot frees"
        )

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


__all__ = ["Slots", "Waiter"]
