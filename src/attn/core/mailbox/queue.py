"""The in-memory queue of one mailbox: heap, merge index and entity index.

Queued items sit in a heap keyed by ``(priority, seq)``; an entry whose item
left the queue or changed priority goes stale and is skipped on the way out.
Three indexes follow the queued items: the merge index (source type and
task/requirement/channel key → the item new ones merge into, 000 §14), the
entity index (task or requirement → every queued item about it, 000 §21) and
the conversation index (the keys its controller's merge rules compare → the
queued items, CORE-71). Timed deferred items sit in a heap by
``deferred_until``, so the loop can resurface due ones every cycle cheaply.
Nothing here writes to the store.

Spec: 000 §14 (merge keys), §21 (entity groups), §22 (deferred items);
DESIGN.md invariant 1.
"""

from __future__ import annotations

import asyncio
import heapq
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from datetime import datetime
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.events import EventBus
from attn.core.mailbox.merge import merge_group, supersede_group
from attn.core.registry import TypeRegistry
from attn.models import ItemStatus, MailboxItem
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
    #: Inserts between the max_queued check and commit, counted against max_queued.
    _reserved: int
    _type_counts: dict[str, int]
    # (source type, task/requirement/channel key) → the queued item new ones merge into
    _merge_index: dict[tuple[str, object], MailboxItem]
    # superseding group (type, sender, key) → its newest queued item (CORE-76)
    _supersede_index: dict[tuple[str, str, str], MailboxItem]
    # ("task" | "requirement", id) → queued items about it, any type (000 §21)
    _entities: dict[tuple[str, object], dict[str, MailboxItem]]
    #: The conversations of a queued item (set by its controller: the keys under
    #: which its merge rules look, CORE-71), and conversation → queued items.
    _conversation_keys: Callable[[MailboxItem], tuple[Hashable, ...]]
    _conversations: dict[Hashable, dict[str, MailboxItem]]
    _keys_of: dict[str, tuple[Hashable, ...]]
    #: (deferred_until, seq, id) of timed deferred items; stale entries are skipped.
    _resurface_heap: list[tuple[datetime, int, str]]
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
        """Earliest ``deferred_until`` among timed deferred items, or None. O(1) amortized."""
        heap = self._resurface_heap
        while heap:
            until, _, item_id = heap[0]
            item = self._deferred.get(item_id)
            if item is not None and item.deferred_until == until:
                return until
            heapq.heappop(heap)
        return None

    def _due(self, now: datetime, *, idle: bool) -> list[MailboxItem]:
        """Remove from the resurface heap and return the deferred items due at
        ``now`` (with ``idle``, also those deferred without a time), oldest first."""
        due: dict[str, MailboxItem] = {}
        while (until := self.next_resurface_at()) is not None and until <= now:
            item = self._deferred[heapq.heappop(self._resurface_heap)[2]]
            due[item.id] = item
        if idle:
            due.update((i.id, i) for i in self._deferred.values() if i.deferred_until is None)
        return sorted(due.values(), key=lambda i: i.seq)

    def _track_deferred(self, item: MailboxItem) -> None:
        self._deferred[item.id] = item
        if item.deferred_until is not None:
            heapq.heappush(self._resurface_heap, (item.deferred_until, item.seq, item.id))

    # ---------------------------------------------------- conversation index

    def set_conversation_keys(self, keys: Callable[[MailboxItem], tuple[Hashable, ...]]) -> None:
        """Index queued items, now and from now on, by ``keys(item)``.

        Args:
            keys: the conversations an item belongs to (hashable keys); the
                attention controller passes its merge rules' keys.
        """
        self._conversation_keys = keys
        self._conversations = {}
        self._keys_of = {}
        for item in self._queued.values():
            self._index_conversations(item)

    def conversation_items(self, keys: Iterable[Hashable]) -> list[MailboxItem]:
        """Queued items in any of these conversations.

        Args:
            keys: conversation keys as returned by the indexing function.

        Returns:
            The items, each once, in commit order (``seq``).
        """
        found: dict[str, MailboxItem] = {}
        for key in keys:
            found.update(self._conversations.get(key, {}))
        return sorted(found.values(), key=lambda i: i.seq)

    def _index_conversations(self, item: MailboxItem) -> None:
        keys = self._conversation_keys(item)
        if keys:
            self._keys_of[item.id] = keys
            for key in keys:
                self._conversations.setdefault(key, {})[item.id] = item

    def _unindex_conversations(self, item: MailboxItem) -> None:
        for key in self._keys_of.pop(item.id, ()):
            group = self._conversations.get(key)
            if group is not None:
                group.pop(item.id, None)
                if not group:
                    del self._conversations[key]

    # ------------------------------------------------- merge and entity keys

    def merge_target(
        self, source_type: str, payload: object, idempotency_key: object = None
    ) -> MailboxItem | None:
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
        return supersede_group(
            self._registry.get(item.source_type), item.payload, item.metadata, self._config
        )

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
        return [
            sorted(group.values(), key=lambda i: (i.priority, i.seq))
            for group in self._entities.values()
            if len(group) > 1
        ]

    def has_merge_key(self, item: MailboxItem) -> bool:
        """True when later mail could merge into ``item`` (dedup key or entity)."""
        return (
            self._merge_key(item.source_type, item.payload) is not None
            or self._entity_key(item) is not None
        )

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
                # The newest queued item of a key is the target: merging into an
                # older one would put the text ahead of a queued item of its own
                # that arrived in between (one without dedup, CORE-71).
                current = self._merge_index.get(key)
                if current is None or current.seq < item.seq:
                    self._merge_index[key] = item
            notice = self._supersede_key(item)
            if notice is not None:
                newest = self._supersede_index.get(notice)
                if newest is None or newest.seq < item.seq:
                    self._supersede_index[notice] = item
            entity = self._entity_key(item)
            if entity is not None:
                self._entities.setdefault(entity, {})[item.id] = item
            self._index_conversations(item)
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
                self._track_deferred(item)

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
            if self._keys_of:
                self._unindex_conversations(item)
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
