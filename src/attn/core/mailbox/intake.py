"""The intake of one mailbox: store and queue a built item, with enqueue-time dedup.

:meth:`Intake.insert` commits the item before the caller is answered
(invariant 2), or merges it into the queued item with the same merge key
(enqueue-time dedup, 000 §14). A superseding notice (a state notice whose
newer copy replaces the older, CORE-76) replaces the older queued one of its
group, or is stored as merged into the processing item it restates: the
agent is not handed the same notice right after the one it is working on.
An idempotency key used before stores nothing: the answer is a duplicate
with the first item as stored.

Spec: 000 §14 (enqueue-time dedup), §17 (the queue bound, max_queued); CORE-76; DESIGN.md
"heartbeat collapse covers a heartbeat that is processing"; invariants 2, 8
(no text is lost: each row keeps its own) and 10.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.events import NEW_ITEM, EventBus
from attn.core.mailbox.enqueue import Enqueued, build_item
from attn.core.mailbox.queue import ReadyQueue
from attn.core.mailbox.transitions import Transitions
from attn.core.registry import TypeRegistry
from attn.errors import UnknownAgent
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertItem, Store, UpdateItem, WriteOp


class Intake:
    """Builds, stores and queues new items of one mailbox.

    Args:
        agent_id: the owning agent's name.
        store: where new items are written.
        registry, config, clock, bus: the mailbox's services and settings.
        queue: the mailbox's ready queue.
        transitions: the mailbox's transitions (merges, decisions, counters).

    Attributes:
        closed: set by :meth:`Mailbox.close`: no more items are accepted.
        last_arrival_at: clock monotonic time of the latest enqueue (merged
            or not), for the burst window.
        on_new_item: called with each item queued (the attention controller's hook).
        focus_item: the item the agent is working on (set by its controller),
            so a notice that restates it collapses into it (TIME-11, CORE-76).
    """

    __slots__ = (
        "_bus",
        "_clock",
        "_config",
        "_encoded",
        "_keys_in_flight",
        "_queue",
        "_registry",
        "_reserved",
        "_store",
        "_transitions",
        "agent_id",
        "closed",
        "focus_item",
        "last_arrival_at",
        "on_new_item",
    )

    def __init__(
        self,
        agent_id: str,
        store: Store,
        registry: TypeRegistry,
        config: AgentConfig,
        clock: Clock,
        bus: EventBus,
        queue: ReadyQueue,
        transitions: Transitions,
    ) -> None:
        self.agent_id = agent_id
        self._store = store
        self._registry = registry
        self._config = config
        self._clock = clock
        self._bus = bus
        self._queue = queue
        self._transitions = transitions
        #: Inserts between the max_queued check and commit, counted against max_queued.
        self._reserved = 0
        # Idempotency keys of keyed items being merged at enqueue (see insert).
        self._keys_in_flight: set[str] = set()
        # (item id, (payload JSON, metadata JSON)) of the last built item, so
        # an insert right after build_item does not encode it again.
        self._encoded: tuple[str, tuple[str, str]] | None = None
        self.closed = False
        self.last_arrival_at = float("-inf")
        self.on_new_item: Callable[[MailboxItem], None] | None = None
        self.focus_item: Callable[[], MailboxItem | None] = _no_focus

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
            What :func:`~attn.core.mailbox.enqueue.build_item` raises, and
            UnknownAgent: the mailbox is closed (its agent was removed or its
            runtime closed).
        """
        if self.closed:
            raise UnknownAgent(
                f"agent {self.agent_id!r} is no longer hosted (removed, or its runtime closed)"
            )
        item, encoded = build_item(
            source_type,
            payload,
            priority,
            metadata,
            idempotency_key,
            agent_id=self.agent_id,
            registry=self._registry,
            config=self._config,
            clock=self._clock,
            queue=self._queue,
            reserved=self._reserved,
        )
        self._encoded = (item.id, encoded)
        return item

    async def insert(self, item: MailboxItem) -> Enqueued:
        """Store and queue an item made by :meth:`build_item`; answer after commit.

        A comment or channel message whose task, requirement or channel has a
        queued item is merged into it instead (000 §14): the answer's item is
        that survivor, holding both texts; the new item is stored as merged
        (with its idempotency key, so a keyed repeat is still a duplicate).
        A superseding notice replaces the older queued one of its group, or is
        stored as merged into the processing item it restates (CORE-76).
        An idempotency key used before stores nothing: the answer is a
        duplicate with the first item as stored.

        Raises:
            StoreError: the write failed (nothing is queued).
        """
        queue = self._queue
        cached = self._encoded
        encoded = cached[1] if cached is not None and cached[0] == item.id else None
        self._encoded = None
        self.last_arrival_at = self._clock.monotonic()
        target = queue.merge_target(item.source_type, item.payload)
        key = item.idempotency_key
        if target is not None and key is None:
            return Enqueued(await self._merge_on_enqueue(item, target, encoded), merged=True)
        if target is not None and key is not None and key not in self._keys_in_flight:
            # A keyed item merges only once its key is known to be new: a repeat
            # finds the merged row it left and is answered as a duplicate.
            self._keys_in_flight.add(key)
            try:
                first = await self._store.get_item_by_key(self.agent_id, key)
                if first is not None:
                    return Enqueued(first, duplicate=True)
                target = queue.merge_target(item.source_type, item.payload)  # after the read
                if target is not None:
                    merged = await self._merge_on_enqueue(item, target, encoded)
                    return Enqueued(merged, merged=True)
            finally:
                self._keys_in_flight.discard(key)
        # Most items supersede nothing: decided once, without the two lookups.
        focus = self._superseded_focus(item) if queue.supersede_key(item) is not None else None
        if focus is not None:
            stored = await self._collapse_into_focus(item, focus, encoded)
            # Anything but the focus is the first item of a repeated idempotency key.
            return Enqueued(stored, duplicate=stored is not focus, merged=stored is focus)
        older = queue.supersede_target(item) if queue.has_superseding else None
        self._reserved += 1
        try:
            results = await self._store.write([InsertItem(item, encoded)])
        finally:
            self._reserved -= 1
        stored, created = results[0]
        if not created:
            return Enqueued(stored, duplicate=True)
        item.seq = stored.seq
        self._transitions.counters["enqueued"] += 1
        queue.push(item)
        if self._bus.active:
            self._transitions.emit(NEW_ITEM, {"item": item.to_dict()})
        if self.on_new_item is not None:
            self.on_new_item(item)
        await self._supersede_older(item, older)
        return Enqueued(item)

    def stage(self, item: MailboxItem) -> InsertItem:
        """The insert op of an item made by :meth:`build_item`, for another agent's
        transaction (a RESULT commits with its child's terminal transition).

        Nothing is merged or superseded; once the op committed, hand its result
        to :meth:`adopt`.
        """
        cached = self._encoded
        encoded = cached[1] if cached is not None and cached[0] == item.id else None
        self._encoded = None
        return InsertItem(item, encoded)

    def adopt(self, result: tuple[MailboxItem, bool], item: MailboxItem) -> bool:
        r"""Queue a committed :meth:`stage`\ d ``item``; ``result`` is its op's result.

        Returns False (nothing queued) for a repeated idempotency key or a closed mailbox.
        """
        stored, created = result
        if not created or self.closed:
            return False
        item.seq = stored.seq
        self.last_arrival_at = self._clock.monotonic()
        self._transitions.counters["enqueued"] += 1
        self._queue.push(item)
        if self._bus.active:
            self._transitions.emit(NEW_ITEM, {"item": item.to_dict()})
        if self.on_new_item is not None:
            self.on_new_item(item)
        return True

    def requeued(self, item: MailboxItem) -> None:
        """Queue an item whose requeue committed (a resumed parked item) and wake the loop."""
        self._queue.push(item)
        self._transitions.item_updated(item)
        if self.on_new_item is not None:
            self.on_new_item(item)

    async def record_dropped(self, item: MailboxItem, reason: str, dropped_at: datetime) -> None:
        """Store ``item`` (from :meth:`build_item`) as dropped, with its drop decision.

        The item and the decision commit in one transaction; nothing is queued.

        Raises:
            StoreError: the write failed.
        """
        self._encoded = None
        item.status = ItemStatus.DROPPED
        item.completed_at = dropped_at
        item.reason = reason
        await self._store.write(
            [InsertItem(item), self._transitions.decision_op(item, DecisionType.DROP, reason)]
        )

    async def _merge_on_enqueue(
        self, item: MailboxItem, target: MailboxItem, encoded: tuple[str, str] | None
    ) -> MailboxItem:
        before = (target.payload, target.priority)
        spec = self._registry.get_type(item.source_type)
        transitions = self._transitions
        ops: list[WriteOp] = transitions.merge_ops(item, target)
        ops[0] = InsertItem(item, encoded)  # the absorbed item's row, stored as merged
        key = f"{spec.merge_key} {item.extra(spec.merge_key or '')!r}"
        ops.append(
            transitions.decision_op(
                item, DecisionType.MERGE, f"enqueue-time dedup: same {key} as queued {target.id}"
            )
        )
        try:
            await self._store.write(ops)
        except BaseException:
            target.payload, target.priority = before
            transitions.counters["merged"] -= 1
            raise
        if self._bus.active:
            transitions.emit(NEW_ITEM, {"item": target.to_dict(), "mergedItemId": item.id})
        return target

    # ------------------------------------------------------------ superseding

    def _superseded_focus(self, item: MailboxItem) -> MailboxItem | None:
        """The processing item ``item`` restates (same superseding group), or None."""
        group = self._queue.supersede_key(item)
        if group is None:
            return None
        focus = self.focus_item()
        if focus is None or focus.status != ItemStatus.PROCESSING:
            return None
        return focus if self._queue.supersede_key(focus) == group else None

    async def _collapse_into_focus(
        self, item: MailboxItem, focus: MailboxItem, encoded: tuple[str, str] | None
    ) -> MailboxItem:
        """Store ``item`` as merged into the processing ``focus``; return what is stored.

        Returns ``focus``, or the first item when ``item`` repeats an
        idempotency key this agent has seen (nothing new is stored then).
        """
        transitions = self._transitions
        item.status = ItemStatus.MERGED
        item.merged_into = focus.id
        item.completed_at = self._clock.now()
        item.reason = f"restates {focus.id}, which is being processed"
        results = await self._store.write([InsertItem(item, encoded)])
        stored, created = results[0]
        if not created:
            return stored  # type: ignore[no-any-return]
        item.seq = stored.seq
        transitions.counters["enqueued"] += 1
        transitions.counters["merged"] += 1
        payload = dict(focus.payload)
        own = payload.get("supersededItemIds")
        payload["supersededItemIds"] = [*(own if isinstance(own, list) else []), item.id]
        focus.payload = payload
        # Through the write-behind queue, not a direct write: the focus's own
        # outcome may be queued there with its older payload, and on PostgreSQL a
        # direct write could commit first and be overwritten by it.
        await transitions.submit(
            [
                UpdateItem(focus.id, {"payload": payload}),
                transitions.decision_op(
                    item,
                    DecisionType.MERGE,
                    f"superseding {item.source_type}: restates {focus.id}, "
                    "which is being processed; not queued behind it",
                ),
            ]
        )
        transitions.item_updated(item)
        if self._bus.active:
            transitions.emit(NEW_ITEM, {"item": focus.to_dict(), "mergedItemId": item.id})
        return focus

    async def _supersede_older(self, item: MailboxItem, older: MailboxItem | None) -> None:
        """After ``item`` was stored and queued: fold ``older`` (its queue's
        superseding target, read before it was queued) into it, if still queued."""
        if older is None or older is item or self._queue.get(older.id) is not older:
            return
        transitions = self._transitions
        # Queued behind the new item's own writes (see _collapse_into_focus).
        await transitions.submit(
            [
                *transitions.supersede_ops(older, item),
                transitions.decision_op(
                    older,
                    DecisionType.MERGE,
                    f"superseded by the newer {item.source_type} {item.id} (same sender and state)",
                ),
            ]
        )


def _no_focus() -> MailboxItem | None:
    return None
