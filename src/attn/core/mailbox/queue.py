"""The in-memory queue of one mailbox: heap, merge index and entity index.

Queued items sit in a heap keyed by ``(priority, seq)``; an entry whose item
left the queue or changed priority goes stale and is skipped on the way out.
Two indexes follow the queued items: the merge index (source type and
task/requirement/channel key → the item new ones merge into, 000 §14) and the
entity index (task or requirement → every queued item about it, 000 §21).
Nothing here writes to the store.

Spec: 000 §14 (merge keys), §21 (entity groups), §22 (deferred items);
DESIGN.md invariant 1.
"""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from attn.clock import Clock
from attn.core.config import AgentConfig
from attn.core.events import EventBus
from attn.core.mailbox.merge import merge_group, supersede_group
from attn.core.models import ItemStatus, MailboxItem
from attn.core.registry import TypeRegistry
from attn.store.base import Store


class MailboxQueue:
    """The state every part of :class:`~attn.core.mailbox.Mailbox` shares, and
    the queue and indexes over it. Set up by ``Mailbox.__init__``."""

    agent_id: str
    _store: Store
    _registry: TypeRegistry
    _clock: Clock
    _bus: EventBus
    _config: AgentConfig
    _heap: list[tuple[int, int, str]]
    _queued: dict[str, MailboxItem]
    _deferred: dict[str, MailboxItem]
    _getters: deque[asyncio.Future[None]]
    #: Inserts between capacity check and commit, counted against capacity.
    _reserved: int
    _type_counts: dict[str, int]
    # (source type, task/requirement/channel key) → the queued item new ones merge into
    _merge_index: dict[tuple[str, object], MailboxItem]
    # superseding group (type, sender, key) → its newest queued item (CORE-76)
    _supersede_index: dict[tuple[str, str, str], MailboxItem]
    # ("task" | "requirement", id) → queued items about it, any type (000 §21)
    _entities: dict[tuple[str, object], dict[str, MailboxItem]]
    #: Clock monotonic time of the latest enqueue (merged or not), for the burst window.
    last_arrival_at: float
    #: Set by :meth:`close`: no more items are accepted.
    closed: bool
    # (item id, (payload JSON, metadata JSON)) of the last built item, so
    # an insert right after build_item does not encode it again.
    _encoded: tuple[str, tuple[str, str]] | None
    _background: set[asyncio.Task[None]]
    on_new_item: Callable[[MailboxItem], None] | None
    #: The id of the item the agent is working on (set by its controller), for
    #: the context every stored decision carries (CORE-11).
    focus_id: Callable[[], str | None]
    #: The item the agent is working on (set by its controller), so a notice
    #: that restates it collapses into it (TIME-11, CORE-76).
    focus_item: Callable[[], MailboxItem | None]
    counters: dict[str, int]

    # ---------------------------------------------------------------- reading

    @property
    def depth(self) -> int:
        """Number of queued items."""
        return len(self._queued)

    @property
    def deferred_count(self) -> int:
        return len(self._deferred)

    def queued_items(self) -> list[MailboxItem]:
        """Queued items in claim order (priority, then commit order). O(n log n)."""
        return sorted(self._queued.values(), key=lambda i: (i.priority, i.seq))

    def deferred_items(self) -> list[MailboxItem]:
        return sorted(self._deferred.values(), key=lambda i: i.seq)

    def find(self, item_id: str) -> MailboxItem | None:
        """The queued or deferred item with that id, or None."""
        return self._queued.get(item_id) or self._deferred.get(item_id)

    def peek(self) -> MailboxItem | None:
        """The item the next dequeue would return, without removing it."""
        heap = self._heap
        while heap:
            priority, _, item_id = heap[0]
            item = self._queued.get(item_id)
            if item is not None and item.priority == priority:
                return item
            heapq.heappop(heap)
        return None

    def queued_types(self) -> dict[str, int]:
        """How many queued items of each source type."""
        return dict(self._type_counts)

    def next_resurface_at(self) -> datetime | None:
        """Earliest ``deferred_until`` among timed deferred items, or None."""
        times = [i.deferred_until for i in self._deferred.values() if i.deferred_until is not None]
        return min(times) if times else None

    # ------------------------------------------------- merge and entity keys

    def merge_target(self, source_type: str, payload: object,
                     idempotency_key: object = None) -> MailboxItem | None:
        """The queued item a new item of this type and payload would merge into, or None.

        Never for execution triggers (either side), for types without a merge
        key, for items with an idempotency key (a retried enqueue must be
        recognisable, so it stays an item of its own) or with dedup off.
        """
        if idempotency_key is not None or not isinstance(payload, dict):
            return None
        key = self._merge_key(source_type, payload)
        return self._merge_index.get(key) if key is not None else None

    def _merge_key(self, source_type: str, payload: dict[str, Any]) -> tuple[str, object] | None:
        return merge_group(self._registry.get(source_type), payload, self._config)

    def _supersede_key(self, item: MailboxItem) -> tuple[str, str, str] | None:
        return supersede_group(self._registry.get(item.source_type), item.payload,
                               item.metadata, self._config)

    def _entity_key(self, item: MailboxItem) -> tuple[str, object] | None:
        spec = self._registry.get(item.source_type)
        if spec is None or spec.user_interaction or item.triggers_execution:
            return None
        for kind, field_name in (("task", "taskId"), ("requirement", "requirementId")):
            value = item.extra(field_name)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
                return (kind, value)
        return None

    @property
    def has_entities(self) -> bool:
        """True while any queued item is about a task or requirement (000 §21)."""
        return bool(self._entities)

    def entity_groups(self) -> list[list[MailboxItem]]:
        """Queued items about one task or requirement, for groups of two or more.

        Each group is in claim order (priority, then commit order). Human chat
        and execution triggers are never in a group (000 §21).
        """
        return [sorted(group.values(), key=lambda i: (i.priority, i.seq))
                for group in self._entities.values() if len(group) > 1]

    def has_merge_key(self, item: MailboxItem) -> bool:
        """True when later mail could merge into ``item`` (dedup key or entity)."""
        return (self._merge_key(item.source_type, item.payload) is not None
                or self._entity_key(item) is not None)

    # ------------------------------------------------------- heap and indexes

    def take(self, item_id: str) -> MailboxItem | None:
        """Remove a queued item from memory (like :meth:`pop_nowait`, for any item)."""
        item = self._queued.get(item_id)
        if item is not None:
            self._unqueue(item)  # its heap entry goes stale and is skipped
        return item

    def _push(self, item: MailboxItem) -> None:
        if item.id not in self._queued:
            counts = self._type_counts
            counts[item.source_type] = counts.get(item.source_type, 0) + 1
            key = self._merge_key(item.source_type, item.payload)
            if key is not None:
                self._merge_index.setdefault(key, item)
            notice = self._supersede_key(item)
            if notice is not None:
                newest = self._supersede_index.get(notice)
                if newest is None or newest.seq < item.seq:
                    self._supersede_index[notice] = item
            entity = self._entity_key(item)
            if entity is not None:
                self._entities.setdefault(entity, {})[item.id] = item
        self._queued[item.id] = item
        heapq.heappush(self._heap, (item.priority, item.seq, item.id))
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)
                break

    def restore(self, items: Iterable[MailboxItem]) -> None:
        """Load stored queued and deferred items into memory (after recovery)."""
        for item in items:
            if item.status == ItemStatus.QUEUED:
                self._push(item)
            elif item.status == ItemStatus.DEFERRED:
                self._deferred[item.id] = item

    def pop_nowait(self) -> MailboxItem | None:
        """Remove and return the head item from memory, or None when empty.

        The item stays ``queued`` in the store; the caller must claim it
        (:meth:`claim_ops`) or put it back (:meth:`unpop`).
        """
        item = self.peek()
        if item is not None:
            heapq.heappop(self._heap)
            self._unqueue(item)
        return item

    def _unqueue(self, item: MailboxItem) -> None:
        if self._queued.pop(item.id, None) is not None:
            if self._merge_index:
                key = self._merge_key(item.source_type, item.payload)
                if key is not None and self._merge_index.get(key) is item:
                    del self._merge_index[key]
            if self._supersede_index:
                notice = self._supersede_key(item)
                if notice is not None and self._supersede_index.get(notice) is item:
                    del self._supersede_index[notice]
            if self._entities:
                entity = self._entity_key(item)
                group = self._entities.get(entity) if entity is not None else None
                if group is not None:
                    group.pop(item.id, None)
                    if not group:
                        del self._entities[entity]  # type: ignore[arg-type]
            counts = self._type_counts
            left = counts[item.source_type] - 1
            if left:
                counts[item.source_type] = left
            else:
                del counts[item.source_type]

    def unpop(self, item: MailboxItem) -> None:
        """Return an item taken by :meth:`pop_nowait` but never claimed."""
        self._push(item)

    def _wake_one(self) -> None:
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)
                return

