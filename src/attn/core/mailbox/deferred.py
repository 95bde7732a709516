"""The deferred items of one mailbox, and when each is due to resurface.

Timed deferred items also sit in a heap by ``deferred_until``, so the
attention loop can find due ones every cycle cheaply; items deferred without
a time ("next idle") are due whenever the loop is idle. Nothing here writes
to the store.

Spec: 000 §22 (deferred items, resurface); acceptance CORE-72.
"""

from __future__ import annotations

import heapq
from datetime import datetime

from attn.models import MailboxItem


class DeferredItems:
    """Deferred items by id, and the resurface heap of the timed ones."""

    __slots__ = (
        "_heap",
        "_items",
    )

    def __init__(self) -> None:
        self._items: dict[str, MailboxItem] = {}
        #: (deferred_until, seq, id) of timed deferred items; stale entries are skipped.
        self._heap: list[tuple[datetime, int, str]] = []

    def __len__(self) -> int:
        return len(self._items)

    def get(self, item_id: str) -> MailboxItem | None:
        """The deferred item with that id, or None."""
        return self._items.get(item_id)

    def in_order(self) -> list[MailboxItem]:
        """Deferred items in commit order (``seq``)."""
        return sorted(self._items.values(), key=lambda i: i.seq)

    def add(self, item: MailboxItem) -> None:
        """Track ``item`` (status deferred) until :meth:`discard` or :meth:`pop_due`."""
        self._items[item.id] = item
        if item.deferred_until is not None:
            heapq.heappush(self._heap, (item.deferred_until, item.seq, item.id))

    def discard(self, item: MailboxItem) -> None:
        """Stop tracking ``item`` (its heap entry goes stale); nothing when not deferred."""
        self._items.pop(item.id, None)

    def next_resurface_at(self) -> datetime | None:
        """Earliest ``deferred_until`` among timed deferred items, or None. O(1) amortized."""
        heap = self._heap
        while heap:
            until, _, item_id = heap[0]
            item = self._items.get(item_id)
            if item is not None and item.deferred_until == until:
                return until
            heapq.heappop(heap)
        return None

    def pop_due(self, now: datetime, *, idle: bool) -> list[MailboxItem]:
        """The deferred items due at ``now``, oldest first, taken off the resurface heap.

        They stay tracked (the caller requeues them, or :meth:`add` them back).

        Args:
            now: the current instant (UTC).
            idle: also return items deferred without a time ("next idle").
        """
        due: dict[str, MailboxItem] = {}
        while (until := self.next_resurface_at()) is not None and until <= now:
            item = self._items[heapq.heappop(self._heap)[2]]
            due[item.id] = item
        if idle:
            due.update((i.id, i) for i in self._items.values() if i.deferred_until is None)
        return sorted(due.values(), key=lambda i: i.seq)
