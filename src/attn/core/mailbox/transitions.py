"""Mailbox status transitions as write ops, and the decisions that record them.

Each ``*_ops`` method of :class:`Transitions` changes the item, the ready
queue and the deferred items in memory, emits ``mailbox:item-updated`` and
returns the write ops without committing, so the attention controller can
commit several transitions in one transaction; :meth:`Transitions.commit` and
:meth:`Transitions.submit` write them.

Spec: 000 §6.5 (lifecycle), §14 (merge), §22 (resurface); DESIGN.md invariants
4 and 8; CORE-76 (superseding).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from attn.clock import Clock
from attn.core.events import DECISION, ITEM_UPDATED, Event, EventBus
from attn.core.mailbox.deferred import DeferredItems
from attn.core.mailbox.merge import merge_payload
from attn.core.mailbox.queue import ReadyQueue
from attn.ids import new_id
from attn.models import Decision, DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertDecision, Store, UpdateItem, WriteOp
from attn.types import JSON

#: The lifetime counters of one mailbox, in :meth:`Mailbox.statistics` order.
COUNTERS: tuple[str, ...] = ("enqueued", "claimed", "completed", "merged")
COUNTERS += ("dropped", "deferred", "requeued", "parked")


class Transitions:
    """queued → processing → completed | deferred | parked | merged | dropped, and back to queued.

    Args:
        agent_id: the owning agent's name.
        store: where :meth:`commit` and :meth:`submit` write.
        queue: the mailbox's ready queue.
        deferred: the mailbox's deferred items.
        clock: source of ``*_at`` instants.
        bus: the agent's event bus.

    Attributes:
        counters: lifetime counts of each transition (:data:`COUNTERS`).
        parked: the parked items by id (waiting on a person's answer, 000 §13.2).
        on_parked_dropped: called with a parked item a person dropped (its
            approvals are cancelled by whoever parked it).
        focus_id: the id of the item the agent is working on (set by its
            controller through :meth:`Mailbox.follow_focus`), for the context
            every stored decision carries (CORE-11).
    """

    __slots__ = (
        "_bus",
        "_clock",
        "_deferred",
        "_queue",
        "_store",
        "agent_id",
        "counters",
        "focus_id",
        "on_parked_dropped",
        "parked",
    )

    def __init__(
        self,
        agent_id: str,
        store: Store,
        queue: ReadyQueue,
        deferred: DeferredItems,
        clock: Clock,
        bus: EventBus,
    ) -> None:
        self.agent_id = agent_id
        self._store = store
        self._queue = queue
        self._deferred = deferred
        self._clock = clock
        self._bus = bus
        self.counters: dict[str, int] = dict.fromkeys(COUNTERS, 0)
        self.focus_id: Callable[[], str | None] = _no_focus
        self.parked: dict[str, MailboxItem] = {}
        self.on_parked_dropped: Callable[[MailboxItem], None] | None = None

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
                "queueDepth": len(self._queue),
                "queuedTypes": self._queue.type_counts(),
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
            self.emit(DECISION, {"decision": decision.to_dict()})
        return InsertDecision(decision)

    def complete_ops(self, item: MailboxItem, reason: str | None = None) -> list[WriteOp]:
        """Mark a processing item completed (with an optional reason); return its write ops."""
        item.status = ItemStatus.COMPLETED
        item.completed_at = self._clock.now()
        item.reason = reason
        self.counters["completed"] += 1
        self.item_updated(item)
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
        self._deferred.discard(item)
        self.parked.pop(item.id, None)
        if failed:
            item.attempt += 1
        if redelivered is not None:
            item.redelivered = redelivered
        item.status = ItemStatus.QUEUED
        item.deferred_until = None
        item.reason = reason
        self.counters["requeued"] += 1
        self._queue.push(item)
        self.item_updated(item)
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
        self._queue.remove(item)  # its heap entry goes stale and is skipped
        item.status = ItemStatus.DEFERRED
        item.deferred_until = until
        item.reason = reason
        self._deferred.add(item)
        self.counters["deferred"] += 1
        self.item_updated(item)
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

    def park_ops(self, item: MailboxItem, reason: str) -> list[WriteOp]:
        """Park a processing or queued item on a person's answer (000 §13.2).

        A parked item is never picked and never resurfaced by time; only
        :meth:`unpark_ops` (the answer) queues it again, with its session.
        """
        self._queue.remove(item)
        self._deferred.discard(item)
        item.status = ItemStatus.PARKED
        item.deferred_until = None
        item.reason = reason
        self.parked[item.id] = item
        self.counters["parked"] += 1
        self.item_updated(item)
        return [
            UpdateItem(
                item.id,
                {
                    "status": item.status,
                    "deferred_until": None,
                    "session": item.session,
                    "reason": reason,
                    "payload": item.payload,
                },
            )
        ]

    def unpark_ops(
        self, item: MailboxItem, session: JSON, priority: int, reason: str
    ) -> list[WriteOp]:
        """The write ops that queue a parked item again, to resume in ``session`` at
        ``priority`` or better; :meth:`Mailbox.resume` queues it once they commit."""
        self.parked.pop(item.id, None)
        item.status = ItemStatus.QUEUED
        item.session = session
        item.priority = min(item.priority, priority)
        item.reason = reason
        self.counters["requeued"] += 1
        values = {"status": item.status, "priority": item.priority, "session": session}
        values["reason"] = reason
        return [UpdateItem(item.id, values, only_if_status=(ItemStatus.PARKED,))]

    def drop_ops(self, item: MailboxItem, reason: str) -> list[WriteOp]:
        """Drop an item for good (queued, deferred or processing); return its write ops."""
        self._queue.remove(item)
        self._deferred.discard(item)
        if self.parked.pop(item.id, None) is not None and self.on_parked_dropped is not None:
            self.on_parked_dropped(item)
        item.status = ItemStatus.DROPPED
        item.completed_at = self._clock.now()
        item.reason = reason
        self.counters["dropped"] += 1
        self.item_updated(item)
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
        self._queue.remove(item)
        self._deferred.discard(item)
        merge_payload(into, item, labelled=labelled)
        if item.priority < into.priority:
            into.priority = item.priority
            self._queue.reprioritized(into)
        item.status = ItemStatus.MERGED
        item.merged_into = into.id
        item.completed_at = self._clock.now()
        self.counters["merged"] += 1
        self.item_updated(item)
        self.item_updated(into)
        return [
            UpdateItem(
                item.id,
                {"status": item.status, "merged_into": into.id, "completed_at": item.completed_at},
            ),
            UpdateItem(into.id, {"payload": into.payload, "priority": into.priority}),
        ]

    def supersede_ops(self, older: MailboxItem, newer: MailboxItem) -> list[WriteOp]:
        """Store ``older`` as merged into ``newer``; ``newer`` keeps its own text (CORE-76).

        ``newer`` records ``older``'s id (and those it superseded) in
        ``payload["supersededItemIds"]`` and takes the better priority.
        """
        self._queue.remove(older)
        payload = dict(newer.payload)
        previous = older.payload.get("supersededItemIds")
        ids = [*(previous if isinstance(previous, list) else []), older.id]
        own = payload.get("supersededItemIds")
        payload["supersededItemIds"] = [*(own if isinstance(own, list) else []), *ids]
        newer.payload = payload
        if older.priority < newer.priority:
            newer.priority = older.priority
            self._queue.reprioritized(newer)
        older.status = ItemStatus.MERGED
        older.merged_into = newer.id
        older.completed_at = self._clock.now()
        older.reason = f"superseded by {newer.id}"
        self.counters["merged"] += 1
        self.item_updated(older)
        self.item_updated(newer)
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
        for item in self._deferred.pop_due(now, idle=idle):
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
            self._deferred.add(item)
        return ops

    async def commit(self, ops: list[WriteOp]) -> None:
        """Write ``ops`` in one transaction; return after commit."""
        if ops:
            await self._store.write(ops)

    def submit(self, ops: list[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start writing ``ops`` in one transaction; the future resolves after commit."""
        return self._store.submit(ops)

    # ---------------------------------------------------------------- events

    def item_updated(self, item: MailboxItem) -> None:
        """Emit ``mailbox:item-updated`` for ``item`` (when anyone listens)."""
        if self._bus.active:
            self.emit(ITEM_UPDATED, {"item": item.to_dict()})

    def emit(self, event_type: str, data: dict[str, Any]) -> None:
        """Emit one event of this agent on its bus, stamped now."""
        self._bus.emit(Event(event_type, self.agent_id, data, self._clock.now()))


def _no_focus() -> str | None:
    return None
