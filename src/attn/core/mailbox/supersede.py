"""Superseding notices: a newer notice that restates a state replaces the older one.

A worker's "I am idle" ping or a status heartbeat says nothing the next one
will not say again. When a superseding item (:func:`~attn.core.mailbox.merge.supersede_group`)
is enqueued:

* an older queued item of its group is stored as merged into the new one
  (its row keeps its text; the new item lists it in ``supersededItemIds``
  and takes the better priority);
* if the item being processed belongs to the group, the new item is stored as
  merged into it and never queued: it restates what is being handled now
  (a heartbeat is never queued behind a processing heartbeat, TIME-11); the
  processing item lists it in ``supersededItemIds``.

Both are recorded as merge decisions. ``dedup = false`` turns this off, like
every other enqueue-time merge.

Spec: CORE-76, TIME-11; DESIGN.md "heartbeat collapse covers a heartbeat that
is processing"; invariant 8 (no text is lost: each row keeps its own).
"""

from __future__ import annotations

import heapq
from typing import Any

from attn.core.events import NEW_ITEM
from attn.core.item_type import ItemType
from attn.core.mailbox.merge import supersede_group
from attn.core.mailbox.transitions import MailboxTransitions
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertItem, UpdateItem, WriteOp


class MailboxSupersede(MailboxTransitions):
    """Enqueue-time superseding of state notices (CORE-76)."""

    def superseded_focus(self, item: MailboxItem) -> MailboxItem | None:
        """The processing item ``item`` restates (same superseding group), or None."""
        group = self._supersede_key(item)
        if group is None:
            return None
        focus = self.focus_item()
        if focus is None or focus.status != ItemStatus.PROCESSING:
            return None
        return focus if self._supersede_key(focus) == group else None

    async def collapse_into_focus(
        self, item: MailboxItem, focus: MailboxItem, encoded: tuple[str, str] | None
    ) -> MailboxItem:
        """Store ``item`` as merged into the processing ``focus``; return what is stored.

        Returns ``focus``, or the first item when ``item`` repeats an
        idempotency key this agent has seen (nothing new is stored then).
        """
        item.status = ItemStatus.MERGED
        item.merged_into = focus.id
        item.completed_at = self._clock.now()
        item.reason = f"restates {focus.id}, which is being processed"
        results = await self._store.write([InsertItem(item, encoded)])
        stored, created = results[0]
        if not created:
            return stored  # type: ignore[no-any-return]
        item.seq = stored.seq
        self.counters["enqueued"] += 1
        self.counters["merged"] += 1
        payload = dict(focus.payload)
        own = payload.get("supersededItemIds")
        payload["supersededItemIds"] = [*(own if isinstance(own, list) else []), item.id]
        focus.payload = payload
        # Through the write-behind queue, not a direct write: the focus's own
        # outcome may be queued there with its older payload, and on PostgreSQL a
        # direct write could commit first and be overwritten by it.
        await self.submit(
            [
                UpdateItem(focus.id, {"payload": payload}),
                self.decision_op(
                    item,
                    DecisionType.MERGE,
                    f"superseding {item.source_type}: restates {focus.id}, "
                    "which is being processed; not queued behind it",
                ),
            ]
        )
        self._updated(item)
        if self._bus.active:
            self._emit(NEW_ITEM, {"item": focus.to_dict(), "mergedItemId": item.id})
        return focus

    def supersedes_queued(
        self, spec: ItemType, payload: dict[str, Any], metadata: dict[str, Any]
    ) -> bool:
        """True when a new item like this would replace a queued one (so it adds no depth)."""
        group = supersede_group(spec, payload, metadata, self._config)
        return group is not None and group in self._supersede_index

    def supersede_target(self, item: MailboxItem) -> MailboxItem | None:
        """The queued item a new ``item`` would supersede, or None (read before it is queued)."""
        group = self._supersede_key(item)
        return self._supersede_index.get(group) if group is not None else None

    async def supersede_older(self, item: MailboxItem, older: MailboxItem | None) -> None:
        """After ``item`` was stored and queued: fold ``older`` (from
        :meth:`supersede_target`) into it, if it is still queued."""
        if older is None or older is item or self._queued.get(older.id) is not older:
            return
        # Queued behind the new item's own writes (see collapse_into_focus).
        await self.submit(
            [
                *self.supersede_ops(older, item),
                self.decision_op(
                    older,
                    DecisionType.MERGE,
                    f"superseded by the newer {item.source_type} {item.id} (same sender and state)",
                ),
            ]
        )

    def supersede_ops(self, older: MailboxItem, newer: MailboxItem) -> list[WriteOp]:
        """Store ``older`` as merged into ``newer``; ``newer`` keeps its own text.

        ``newer`` records ``older``'s id (and those it superseded) in
        ``payload["supersededItemIds"]`` and takes the better priority.
        """
        self._unqueue(older)
        payload = dict(newer.payload)
        previous = older.payload.get("supersededItemIds")
        ids = [*(previous if isinstance(previous, list) else []), older.id]
        own = payload.get("supersededItemIds")
        payload["supersededItemIds"] = [*(own if isinstance(own, list) else []), *ids]
        newer.payload = payload
        if older.priority < newer.priority:
            newer.priority = older.priority
            if newer.id in self._queued:
                heapq.heappush(self._heap, (newer.priority, newer.seq, newer.id))
        older.status = ItemStatus.MERGED
        older.merged_into = newer.id
        older.completed_at = self._clock.now()
        older.reason = f"superseded by {newer.id}"
        self.counters["merged"] += 1
        self._updated(older)
        self._updated(newer)
        return [
            UpdateItem(
                older.id,
                {
                    "status": older.status,
                    "merged_into": newer.id,
                    "completed_at": older.completed_at,
                    "reason": older.reason,
                },
            ),
            UpdateItem(newer.id, {"payload": newer.payload, "priority": newer.priority}),
        ]
