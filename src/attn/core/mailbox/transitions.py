"""Mailbox status transitions as write ops, and the decisions that record them.

Each ``*_ops`` method changes the item and the queue in memory, emits
``mailbox:item-updated`` and returns the write ops without committing, so the
attention controller can commit several transitions in one transaction;
:meth:`MailboxTransitions.commit` and :meth:`MailboxTransitions.submit` write them.

Spec: 000 §6.5 (lifecycle), §14 (merge), §22 (resurface); DESIGN.md invariants
4 and 8.
"""

from __future__ import annotations

import asyncio
import heapq
from datetime import datetime
from typing import Any

from attn.core.events import DECISION, ITEM_UPDATED, Event
from attn.core.mailbox.merge import merge_payload
from attn.core.mailbox.queue import MailboxQueue
from attn.ids import new_id
from attn.models import Decision, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertDecision, UpdateItem, WriteOp
from attn.types import JSON


class MailboxTransitions(MailboxQueue):
    """queued → processing → completed | deferred | merged | dropped, and back to queued."""

    def claim_ops(self, item: MailboxItem, now: datetime) -> list[WriteOp]:
        """Mark a popped item processing; return its write ops."""
        item.status = ItemStatus.PROCESSING
        item.started_at = now
        self.counters["claimed"] += 1
        return [
            UpdateItem(
                item.id,
                {"status": ItemStatus.PROCESSING, "started_at": now, "attempt": item.attempt},
                only_if_status=(ItemStatus.QUEUED,),
            )
        ]

    def decision_op(
        self,
        item: MailboxItem,
        decision_type: DecisionType,
        reasoning: str,
        context: JSON | None = None,
        outcome: str | None = None,
    ) -> InsertDecision:
        """Record a decision about ``item`` (and emit ``attention:decision``).

        ``context`` always holds ``currentFocusId`` (item id or None), ``queueDepth``
        and ``queuedTypes`` (type -> count) as of now; the caller's keys win.
        """
        if context is None or "queueDepth" not in context:
            context = {
                "currentFocusId": self.focus_id(),
                "queueDepth": self.depth,
                "queuedTypes": self.queued_types(),
                **(context or {}),
            }
        decision = Decision(
            id=new_id("dec"),
            agent_id=self.agent_id,
            decision_type=decision_type,
            item_id=item.id,
            reasoning=reasoning,
            created_at=self._clock.now(),
            context=context,
            outcome=outcome,
        )
        if self._bus.active:
            self._emit(DECISION, {"decision": decision.to_dict()})
        return InsertDecision(decision)

    def complete_ops(self, item: MailboxItem, reason: str | None = None) -> list[WriteOp]:
        item.status = ItemStatus.COMPLETED
        item.completed_at = self._clock.now()
        item.reason = reason
        self.counters["completed"] += 1
        self._updated(item)
        return [
            UpdateItem(
                item.id,
                {
                    "status": item.status,
                    "completed_at": item.completed_at,
                    "reason": reason,
                    "payload": item.payload,
                },
            )
        ]

    def requeue_ops(
        self,
        item: MailboxItem,
        *,
        failed: bool,
        reason: str | None = None,
        redelivered: bool | None = None,
    ) -> list[WriteOp]:
        """Queue an item again; ``failed`` counts an attempt."""
        self._deferred.pop(item.id, None)
        if failed:
            item.attempt += 1
        if redelivered is not None:
            item.redelivered = redelivered
        item.status = ItemStatus.QUEUED
        item.deferred_until = None
        item.reason = reason
        self.counters["requeued"] += 1
        self._push(item)
        self._updated(item)
        return [
            UpdateItem(
                item.id,
                {
                    "status": item.status,
                    "attempt": item.attempt,
                    "redelivered": item.redelivered,
                    "deferred_until": None,
                    "session": item.session,
                    "reason": reason,
                    "payload": item.payload,
                },
            )
        ]

    def defer_ops(self, item: MailboxItem, until: datetime | None, reason: str) -> list[WriteOp]:
        """Defer a queued or processing item until ``until`` (None: next idle)."""
        self._unqueue(item)  # its heap entry goes stale and is skipped
        item.status = ItemStatus.DEFERRED
        item.deferred_until = until
        item.reason = reason
        self._track_deferred(item)
        self.counters["deferred"] += 1
        self._updated(item)
        return [
            UpdateItem(
                item.id,
                {
                    "status": item.status,
                    "deferred_until": until,
                    "session": item.session,
                    "reason": reason,
                    "payload": item.payload,
                },
            )
        ]

    def drop_ops(self, item: MailboxItem, reason: str) -> list[WriteOp]:
        self._unqueue(item)
        self._deferred.pop(item.id, None)
        item.status = ItemStatus.DROPPED
        item.completed_at = self._clock.now()
        item.reason = reason
        self.counters["dropped"] += 1
        self._updated(item)
        return [
            UpdateItem(
                item.id,
                {"status": item.status, "completed_at": item.completed_at, "reason": reason},
            )
        ]

    def merge_ops(
        self, item: MailboxItem, into: MailboxItem, *, labelled: bool = False
    ) -> list[WriteOp]:
        """Absorb ``item`` into ``into``: every text and sender is kept (invariant 8).

        ``labelled`` prefixes the absorbed text with its type (cross-type
        consolidation, 000 §21).
        """
        self._unqueue(item)
        self._deferred.pop(item.id, None)
        merge_payload(into, item, labelled=labelled)
        if item.priority < into.priority:
            into.priority = item.priority
            if into.id in self._queued:
                heapq.heappush(self._heap, (into.priority, into.seq, into.id))
        item.status = ItemStatus.MERGED
        item.merged_into = into.id
        item.completed_at = self._clock.now()
        self.counters["merged"] += 1
        self._updated(item)
        self._updated(into)
        return [
            UpdateItem(
                item.id,
                {"status": item.status, "merged_into": into.id, "completed_at": item.completed_at},
            ),
            UpdateItem(into.id, {"payload": into.payload, "priority": into.priority}),
        ]

    def resurface_due_ops(
        self, now: datetime, *, idle: bool = True, hold: frozenset[str] = frozenset()
    ) -> list[WriteOp]:
        """Queue every deferred item whose time has come (000 §22, CORE-72).

        Each goes back to its original place: its priority and commit order.

        Args:
            now: the current instant (UTC).
            idle: also resurface items deferred without a time ("next idle");
                the attention loop passes True only when its queue is empty.
            hold: ids of items that stay deferred for now (preempted work whose
                preempting item has not been picked yet); they stay due.
        """
        ops: list[WriteOp] = []
        kept: list[MailboxItem] = []
        for item in self._due(now, idle=idle):
            if item.id in hold:
                kept.append(item)
                continue
            timed = item.deferred_until is not None
            ops.extend(self.requeue_ops(item, failed=False))
            ops.append(
                self.decision_op(
                    item,
                    DecisionType.RESURFACE,
                    "Deferred item resurfaced: its time came"
                    if timed
                    else "Deferred item resurfaced while idle",
                )
            )
        for item in kept:
            self._track_deferred(item)
        return ops

    async def commit(self, ops: list[WriteOp]) -> None:
        """Write ``ops`` in one transaction; return after commit."""
        if ops:
            await self._store.write(ops)

    def submit(self, ops: list[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start writing ``ops`` in one transaction; the future resolves after commit."""
        return self._store.submit(ops)

    # ---------------------------------------------------------------- events

    def _updated(self, item: MailboxItem) -> None:
        if self._bus.active:
            self._emit(ITEM_UPDATED, {"item": item.to_dict()})

    def _emit(self, event_type: str, data: dict[str, Any]) -> None:
        self._bus.emit(Event(event_type, self.agent_id, data, self._clock.now()))
