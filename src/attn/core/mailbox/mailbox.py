"""The :class:`Mailbox` of one agent: its parts, its operations and its consumer side.

The mailbox owns one component per concern and offers their operations:

- ``queue``: the :class:`~attn.core.mailbox.queue.ReadyQueue` (heap and indexes);
- ``deferred``: the :class:`~attn.core.mailbox.deferred.DeferredItems`;
- ``transitions``: status changes as write ops, and decisions
  (:class:`~attn.core.mailbox.transitions.Transitions`);
- an :class:`~attn.core.mailbox.intake.Intake` (enqueue) and
  :class:`~attn.core.mailbox.actions.Actions` (reprioritize, defer, drop);

and itself holds the blocking dequeue and the statistics.

Spec: 000 §3, §6.5, §14, §17, §21, §22; DESIGN.md invariants 1, 2, 4, 8, 10.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.events import EventBus
from attn.core.mailbox.actions import Actions
from attn.core.mailbox.deferred import DeferredItems
from attn.core.mailbox.dequeue import dequeue
from attn.core.mailbox.enqueue import Enqueued
from attn.core.mailbox.intake import Intake
from attn.core.mailbox.queue import ReadyQueue
from attn.core.mailbox.transitions import Transitions
from attn.core.registry import TypeRegistry
from attn.errors import InvalidTransition, MailboxFull
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertItem, Store, WriteOp
from attn.types import JSON


class Mailbox:
    """The queue of one agent.

    Args:
        agent_id: the owning agent's name.
        store: where every change is written before callers are answered.
        registry: the type registry used to validate and default items.
        clock: source of ``*_at`` instants.
        bus: the agent's event bus (``mailbox:new-item``, ``attention:decision``…).
        config: the queue bound (``max_queued``) and payload limits.

    Attributes:
        queue: the queued items in claim order, with their indexes.
        deferred: the deferred items.
        transitions: status changes as write ops, decisions, and the counters.
    """

    __slots__ = (
        "_actions",
        "_background",
        "_clock",
        "_intake",
        "_store",
        "agent_id",
        "deferred",
        "queue",
        "transitions",
    )

    def __init__(
        self,
        agent_id: str,
        store: Store,
        registry: TypeRegistry,
        clock: Clock,
        bus: EventBus,
        config: AgentConfig,
    ) -> None:
        self.agent_id = agent_id
        self._store = store
        self._clock = clock
        self.queue = ReadyQueue(registry, config)
        self.deferred = DeferredItems()
        self.transitions = Transitions(agent_id, store, self.queue, self.deferred, clock, bus)
        self._intake = Intake(
            agent_id, store, registry, config, clock, bus, self.queue, self.transitions
        )
        self._actions = Actions(agent_id, registry, self.queue, self.deferred, self.transitions)
        self._background: set[asyncio.Task[None]] = set()

    def set_hooks(
        self,
        *,
        on_new_item: Callable[[MailboxItem], None],
        focus_id: Callable[[], str | None],
        focus_item: Callable[[], MailboxItem | None],
    ) -> None:
        """Connect the agent's attention controller (it calls this once).

        Args:
            on_new_item: called with each item queued by an enqueue.
            focus_id: the id of the item being processed, for the context every
                stored decision carries (CORE-11).
            focus_item: the item being processed, so a notice that restates it
                collapses into it (TIME-11, CORE-76).
        """
        self._intake.on_new_item = on_new_item
        self._intake.focus_item = focus_item
        self.transitions.focus_id = focus_id

    # ---------------------------------------------------------------- reading

    @property
    def depth(self) -> int:
        """Number of queued items."""
        return len(self.queue)

    @property
    def deferred_count(self) -> int:
        """Number of deferred items."""
        return len(self.deferred)

    @property
    def counters(self) -> dict[str, int]:
        """Lifetime counts of enqueues and of each transition (a live dict)."""
        return self.transitions.counters

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called: no more items are accepted."""
        return self._intake.closed

    @property
    def last_arrival_at(self) -> float:
        """Clock monotonic time of the latest enqueue (merged or not), for the burst window."""
        return self._intake.last_arrival_at

    def forget_arrivals(self) -> None:
        """Let the burst window start afresh: the next item is not counted as a burst."""
        self._intake.last_arrival_at = float("-inf")

    def queued_items(self, limit: int | None = None) -> list[MailboxItem]:
        """Queued items in claim order (priority, then commit order), or the first ``limit``."""
        return self.queue.in_claim_order() if limit is None else self.queue.first(limit)

    def deferred_items(self) -> list[MailboxItem]:
        """Deferred items in commit order."""
        return self.deferred.in_order()

    def parked_items(self) -> list[MailboxItem]:
        """Parked items (waiting on a person's answer) in commit order."""
        return sorted(self.transitions.parked.values(), key=lambda i: i.seq)

    def find(self, item_id: str) -> MailboxItem | None:
        """The queued, deferred or parked item with that id, or None."""
        return (
            self.queue.get(item_id)
            or self.deferred.get(item_id)
            or self.transitions.parked.get(item_id)
        )

    def queued_types(self) -> dict[str, int]:
        """How many queued items of each source type."""
        return self.queue.type_counts()

    async def recent_decisions(self, limit: int = 10) -> list[JSON]:
        """The agent's latest decisions, newest first, as JSON-ready dicts."""
        found = await self._store.find_decisions(self.agent_id, None, limit)
        return [d.to_dict() for d in found]

    def statistics(self) -> dict[str, int]:
        """Queue depth, ``deferred_count`` (deferred now), waiting dequeue calls and the
        lifetime counters (``deferred`` among them: how many defers there were)."""
        return {
            "queue_depth": len(self.queue),
            "deferred_count": len(self.deferred),
            "waiting_getters": self.queue.statistics().waiting_getters,
            **self.transitions.counters,
        }

    # ---------------------------------------------------------------- intake

    def build_item(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> MailboxItem:
        """Validate an enqueue request and return the item it would create.

        Nothing is stored or changed.

        Raises:
            UnknownItemType: ``source_type`` is not registered.
            InvalidPriority: ``priority`` is not None or an int in 0..4.
            InvalidJson: payload or metadata breaks the JSON limits of :mod:`attn.limits`.
            InvalidInput: payload or metadata is not a JSON object, required text
                is missing or blank, or the idempotency key is malformed.
            PayloadTooLarge: the encoded payload and metadata exceed the limit.
            MailboxFull: the queue holds ``max_queued`` items (never for human chat).
            UnknownAgent: the mailbox is closed (its agent was removed or its runtime closed).
        """
        return self._intake.build_item(source_type, payload, priority, metadata, idempotency_key)

    async def enqueue(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> MailboxItem:
        """Validate, store and queue one item; return it after commit.

        The item of :meth:`enqueue_result`; a duplicate returns the first item.
        """
        return (
            await self.enqueue_result(source_type, payload, priority, metadata, idempotency_key)
        ).item

    async def enqueue_result(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> Enqueued:
        """Validate, store and queue one item; answer after commit.

        With an ``idempotency_key`` this agent has used before, nothing new is
        stored and the answer is a duplicate carrying the first item as stored,
        even when the mailbox is full now (a retry of an accepted enqueue is not
        refused).

        Raises:
            What :meth:`build_item` raises, and :class:`~attn.errors.StoreError`
            if the write fails.
        """
        try:
            item = self.build_item(source_type, payload, priority, metadata, idempotency_key)
        except MailboxFull:
            if isinstance(idempotency_key, str):
                first = await self._store.get_item_by_key(self.agent_id, idempotency_key)
                if first is not None:
                    return Enqueued(first, duplicate=True)
            raise
        return await self._intake.insert(item)

    async def insert_result(self, item: MailboxItem) -> Enqueued:
        """Store and queue an item made by :meth:`build_item`; answer after commit.

        See :meth:`~attn.core.mailbox.intake.Intake.insert` for merges,
        superseding and duplicates.
        """
        return await self._intake.insert(item)

    async def record_dropped(
        self,
        source_type: str,
        payload: object,
        *,
        reason: str,
        metadata: object = None,
        idempotency_key: object = None,
        dropped_at: datetime | None = None,
    ) -> MailboxItem:
        """Store an item that is never queued: dropped at once (``reason``, at
        ``dropped_at`` or now), with its drop decision, in one transaction.

        For stimuli recorded but not worth attention (a missed wakeup, 000
        §11.3, TIME-06). Arguments as for :meth:`enqueue`; returns the item as
        stored. Raises what :meth:`build_item` raises, and StoreError.
        """
        item = self.build_item(source_type, payload, None, metadata, idempotency_key)
        at = dropped_at if dropped_at is not None else self._clock.now()
        await self._intake.record_dropped(item, reason, at)
        return item

    def stage(self, item: MailboxItem) -> InsertItem:
        """The insert op of a :meth:`build_item` item, to commit in another
        agent's transaction; queue it with :meth:`adopt` once committed."""
        return self._intake.stage(item)

    def adopt(self, result: tuple[MailboxItem, bool], item: MailboxItem) -> bool:
        """Queue a committed staged ``item`` (False: a repeated key, or closed)."""
        return self._intake.adopt(result, item)

    async def take(self, item_id: str, reason: str) -> MailboxItem:
        """Complete a queued item read outside a turn (ItemNotFound if not queued)."""
        return await self._actions.take(item_id, reason)

    def restore(self, items: Iterable[MailboxItem]) -> None:
        """Load stored queued and deferred items into memory (after recovery)."""
        for item in items:
            if item.status == ItemStatus.QUEUED:
                self.queue.push(item)
            elif item.status == ItemStatus.DEFERRED:
                self.deferred.add(item)
            elif item.status == ItemStatus.PARKED:
                self.transitions.parked[item.id] = item

    async def resume(
        self, item: MailboxItem, session: JSON, priority: int, reason: str, ops: list[WriteOp]
    ) -> None:
        """Queue a parked item again, in ``session`` at ``priority`` or better, in one
        transaction with ``ops`` (the answer that resumes it); the loop is woken
        once it is durable (000 §13.2, PPL-06).

        Raises:
            InvalidTransition: ``item`` is not parked. StoreError.
        """
        if self.transitions.parked.get(item.id) is not item:
            raise InvalidTransition(f"item {item.id} of {self.agent_id!r} is not parked")
        writes = [*ops, *self.transitions.unpark_ops(item, session, priority, reason)]
        writes.append(self.transitions.decision_op(item, DecisionType.RESURFACE, reason))
        try:
            await self.transitions.commit(writes)
        except BaseException:
            item.status = ItemStatus.PARKED  # nothing was stored: it stays parked
            self.transitions.parked[item.id] = item
            raise
        self._intake.requeued(item)

    def close(self) -> None:
        """Accept no more items (the agent was removed or its runtime closed)."""
        self._intake.closed = True

    # --------------------------------------------------------------- actions

    async def reprioritize(
        self, item_id: str, priority: object, *, by_agent: bool = False, reason: str = ""
    ) -> MailboxItem:
        """Change a queued or deferred item's priority (0..4); see :meth:`Actions.reprioritize`."""
        return await self._actions.reprioritize(item_id, priority, by_agent=by_agent, reason=reason)

    async def defer(
        self,
        item_id: str,
        until: datetime | None = None,
        *,
        reason: str = "",
        by_agent: bool = False,
    ) -> MailboxItem:
        """Defer a queued item until ``until`` (UTC; None: next idle); see :meth:`Actions.defer`."""
        return await self._actions.defer(item_id, until, reason=reason, by_agent=by_agent)

    async def drop(self, item_id: str, *, reason: str = "", by_agent: bool = False) -> MailboxItem:
        """Drop a queued or deferred item for good; see :meth:`Actions.drop`."""
        return await self._actions.drop(item_id, reason=reason, by_agent=by_agent)

    async def drop_status_updates(self, task_id: str) -> list[MailboxItem]:
        """Drop queued informational task_status_update items of one task (000 §18)."""
        return await self._actions.drop_status_updates(task_id)

    async def commit(self, ops: list[WriteOp]) -> None:
        """Write ``ops`` in one transaction; return after commit."""
        await self.transitions.commit(ops)

    def submit(self, ops: list[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start writing ``ops`` in one transaction; the future resolves after commit."""
        return self.transitions.submit(ops)

    # --------------------------------------------------------------- dequeue

    async def dequeue(self, timeout_s: float | None = None) -> MailboxItem:
        """Wait for the head item, claim it (status processing, committed) and return it.

        Args:
            timeout_s: seconds to wait for an item; None waits forever.

        Raises:
            TimeoutError: no item arrived in time. An item is never lost to a
                timeout or cancellation: it is either returned or left queued.
        """
        return await dequeue(self, self._store, self._clock, timeout_s)

    async def release(self, item: MailboxItem) -> None:
        """Put a claimed item back to queued without counting an attempt."""
        await self.transitions.commit(self.transitions.requeue_ops(item, failed=False))
