"""One agent's mailbox: a durable priority queue with FIFO order inside a priority.

The queue lives in memory (a heap keyed by ``(priority, seq)``) and every
change is written through the :class:`~attn.store.base.Store` before callers
are answered. ``seq`` is assigned at commit, so FIFO follows commit order.

Transitions come in two forms: ``*_ops`` methods change memory and return the
write ops without committing (the attention controller commits several in one
transaction); the public coroutines commit at once.

Spec: 000 §3 (types), §6.5 (lifecycle), §14 (merge text rules), §22 (resurface);
DESIGN.md invariants 1, 2, 4, 8, 10.
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
from attn.core.events import DECISION, ITEM_UPDATED, NEW_ITEM, Event, EventBus
from attn.core.models import (
    JSON,
    Decision,
    DecisionType,
    ItemStatus,
    MailboxItem,
)
from attn.core.registry import TypeRegistry, validate_priority
from attn.errors import (
    InvalidInput,
    InvalidTransition,
    ItemNotFound,
    MailboxFull,
    PayloadTooLarge,
    ProtectedItem,
    UnknownAgent,
)
from attn.ids import new_id
from attn.jsontext import dumps
from attn.store.base import InsertDecision, InsertItem, Store, UpdateItem, WriteOp

MERGE_SEPARATOR = "\n\n---\n\n"
_MAX_KEY_LEN = 200


class Mailbox:
    """The queue of one agent.

    Args:
        agent_id: the owning agent's name.
        store: where every change is written before callers are answered.
        registry: the type registry used to validate and default items.
        clock: source of ``*_at`` instants.
        bus: the agent's event bus (``mailbox:new-item``, ``attention:decision``…).
        config: capacity and payload limits.
    """

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
        self._registry = registry
        self._clock = clock
        self._bus = bus
        self._config = config
        self._heap: list[tuple[int, int, str]] = []
        self._queued: dict[str, MailboxItem] = {}
        self._deferred: dict[str, MailboxItem] = {}
        self._getters: deque[asyncio.Future[None]] = deque()
        self._reserved = 0
        self._type_counts: dict[str, int] = {}
        # (source type, task/requirement/channel key) → the queued item new ones merge into
        self._merge_index: dict[tuple[str, object], MailboxItem] = {}
        # ("task" | "requirement", id) → queued items about it, any type (000 §21)
        self._entities: dict[tuple[str, object], dict[str, MailboxItem]] = {}
        #: Clock monotonic time of the latest enqueue (merged or not), for the burst window.
        self.last_arrival_at = float("-inf")
        #: Set by :meth:`close`: no more items are accepted.
        self.closed = False
        # (item id, (payload JSON, metadata JSON)) of the last built item, so
        # an insert right after build_item does not encode it again.
        self._encoded: tuple[str, tuple[str, str]] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.on_new_item: Callable[[MailboxItem], None] | None = None
        #: The id of the item the agent is working on (set by its controller), for
        #: the context every stored decision carries (CORE-11).
        self.focus_id: Callable[[], str | None] = lambda: None
        self.counters: dict[str, int] = dict.fromkeys(
            ("enqueued", "claimed", "completed", "merged", "dropped", "deferred", "requeued"), 0
        )

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

    async def recent_decisions(self, limit: int = 10) -> list[JSON]:
        """The agent's latest decisions, newest first, as JSON-ready dicts."""
        found = await self._store.find_decisions(self.agent_id, None, limit)
        return [d.to_dict() for d in found]

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

    def statistics(self) -> dict[str, int]:
        """Depth, deferred count and lifetime counters of this mailbox."""
        return {"depth": self.depth, "deferred": len(self._deferred),
                "waiting_getters": len(self._getters), **self.counters}

    # --------------------------------------------------------------- enqueue

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
            InvalidInput: payload or metadata is not a JSON object, required text
                (``payload["content"]``) is missing or blank, or the key is malformed.
            PayloadTooLarge: the encoded payload and metadata exceed the limit.
            MailboxFull: the queue is at capacity (never for human chat).
            UnknownAgent: the mailbox is closed (its agent was removed or its runtime closed).
        """
        if self.closed:
            raise UnknownAgent(
                f"agent {self.agent_id!r} is no longer hosted (removed, or its runtime closed)"
            )
        spec = self._registry.get_type(source_type)
        if not isinstance(payload, dict):
            raise InvalidInput(f"payload must be a JSON object, got {type(payload).__name__}")
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict):
            raise InvalidInput(f"metadata must be a JSON object, got {type(metadata).__name__}")
        if spec.requires_text:
            content = payload.get("content")
            if not isinstance(content, str) or not content.strip():
                raise InvalidInput(
                    f"{spec.name} needs non-empty text in payload.content, got {content!r}"
                )
        if priority is None:
            by_user = metadata.get("senderRole") == "user"
            priority = spec.user_priority if by_user and spec.user_priority is not None else (
                spec.default_priority
            )
        priority = validate_priority(priority)
        if idempotency_key is not None and (
            not isinstance(idempotency_key, str)
            or not idempotency_key.strip()
            or len(idempotency_key) > _MAX_KEY_LEN
            or "\x00" in idempotency_key
        ):
            raise InvalidInput(
                f"idempotency key must be a non-blank string of at most {_MAX_KEY_LEN} characters"
                " without NUL"
            )
        try:
            encoded = (dumps(payload), dumps(metadata))
        except (TypeError, ValueError, RecursionError) as exc:
            raise InvalidInput(f"payload and metadata must be JSON-serializable: {exc}") from exc
        for text in (*encoded, idempotency_key or ""):
            _require_unicode(text)
        size = len(encoded[0]) + len(encoded[1])
        if size > self._config.max_payload_bytes:
            raise PayloadTooLarge(
                f"payload and metadata take {size} bytes; the limit is "
                f"{self._config.max_payload_bytes} bytes"
            )
        if spec.name != "human_chat" and self.depth + self._reserved >= self._config.capacity and (
            self.merge_target(spec.name, payload, idempotency_key) is None
        ):
            raise MailboxFull(
                f"mailbox of agent {self.agent_id!r} holds {self.depth} queued items "
                f"(capacity {self._config.capacity}); {spec.name} item rejected"
            )
        item = MailboxItem(
            id=new_id("mbx"),
            agent_id=self.agent_id,
            source_type=spec.name,
            priority=priority,
            status=ItemStatus.QUEUED,
            payload=dict(payload),
            metadata=dict(metadata),
            queued_at=self._clock.now(),
            idempotency_key=idempotency_key,
        )
        self._encoded = (item.id, encoded)
        return item

    async def enqueue(
        self,
        source_type: str,
        payload: object,
        priority: object = None,
        metadata: object = None,
        idempotency_key: object = None,
    ) -> MailboxItem:
        """Validate, store and queue one item; return it after commit.

        With an ``idempotency_key`` this agent has seen before, nothing new is
        stored and the first item is returned, even when the mailbox is full
        now (a retry of an accepted enqueue is not refused). Raises what
        :meth:`build_item` raises, and :class:`~attn.errors.StoreError` if the
        write fails.
        """
        try:
            item = self.build_item(source_type, payload, priority, metadata, idempotency_key)
        except MailboxFull:
            if isinstance(idempotency_key, str):
                first = await self._store.get_item_by_key(self.agent_id, idempotency_key)
                if first is not None:
                    return first
            raise
        return await self.insert(item)

    async def insert(self, item: MailboxItem) -> MailboxItem:
        """Store and queue an item made by :meth:`build_item`; return it after commit.

        A comment or channel message whose task, requirement or channel has a
        queued item is merged into it instead (000 §14): the returned item is
        that survivor, holding both texts; the new item is stored as merged.
        """
        cached = self._encoded
        encoded = cached[1] if cached is not None and cached[0] == item.id else None
        self._encoded = None
        self.last_arrival_at = self._clock.monotonic()
        target = self.merge_target(item.source_type, item.payload, item.idempotency_key)
        if target is not None:
            return await self._merge_on_enqueue(item, target, encoded)
        self._reserved += 1
        try:
            results = await self._store.write([InsertItem(item, encoded)])
        finally:
            self._reserved -= 1
        stored, created = results[0]
        if not created:
            return stored  # type: ignore[no-any-return]
        item.seq = stored.seq
        self.counters["enqueued"] += 1
        self._push(item)
        if self._bus.active:
            self._emit(NEW_ITEM, {"item": item.to_dict()})
        if self.on_new_item is not None:
            self.on_new_item(item)
        return item

    def merge_target(self, source_type: str, payload: object,
                     idempotency_key: object = None) -> MailboxItem | None:
        """The queued item a new item of this type and payload would merge into, or None.

        Never for execution triggers (either side), for types without a merge
        key, for items with an idempotency key (a retried enqueue must be
        recognisable, so it stays an item of its own) or with dedup off.
        """
        if not self._config.dedup or idempotency_key is not None or not isinstance(payload, dict):
            return None
        key = self._merge_key(source_type, payload)
        return self._merge_index.get(key) if key is not None else None

    def _merge_key(self, source_type: str, payload: dict[str, Any]) -> tuple[str, object] | None:
        spec = self._registry.get(source_type)
        if spec is None or spec.merge_key is None:
            return None
        extra = payload.get("extra")
        flags = extra if isinstance(extra, dict) else {}
        if payload.get("triggerExecution") or flags.get("triggerExecution"):
            return None
        value = payload.get(spec.merge_key, flags.get(spec.merge_key))
        if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
            return None
        return (source_type, value)

    def _entity_key(self, item: MailboxItem) -> tuple[str, object] | None:
        spec = self._registry.get(item.source_type)
        if spec is None or spec.user_interaction or item.triggers_execution:
            return None
        for kind, field_name in (("task", "taskId"), ("requirement", "requirementId")):
            value = item.extra(field_name)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
                return (kind, value)
        return None

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

    def take(self, item_id: str) -> MailboxItem | None:
        """Remove a queued item from memory (like :meth:`pop_nowait`, for any item)."""
        item = self._queued.get(item_id)
        if item is not None:
            self._unqueue(item)  # its heap entry goes stale and is skipped
        return item

    async def _merge_on_enqueue(self, item: MailboxItem, target: MailboxItem,
                                encoded: tuple[str, str] | None) -> MailboxItem:
        before = (target.payload, target.priority)
        spec = self._registry.get_type(item.source_type)
        ops: list[WriteOp] = self.merge_ops(item, target)
        ops[0] = InsertItem(item, encoded)  # the absorbed item's row, stored as merged
        key = f"{spec.merge_key} {item.extra(spec.merge_key or '')!r}"
        ops.append(self.decision_op(item, DecisionType.MERGE,
                                    f"enqueue-time dedup: same {key} as queued {target.id}"))
        try:
            await self._store.write(ops)
        except BaseException:
            target.payload, target.priority = before
            self.counters["merged"] -= 1
            raise
        if self._bus.active:
            self._emit(NEW_ITEM, {"item": target.to_dict(), "mergedItemId": item.id})
        return target

    def _push(self, item: MailboxItem) -> None:
        if item.id not in self._queued:
            counts = self._type_counts
            counts[item.source_type] = counts.get(item.source_type, 0) + 1
            key = self._merge_key(item.source_type, item.payload)
            if key is not None:
                self._merge_index.setdefault(key, item)
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

    # --------------------------------------------------------------- dequeue

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

    def queued_types(self) -> dict[str, int]:
        """How many queued items of each source type."""
        return dict(self._type_counts)

    def unpop(self, item: MailboxItem) -> None:
        """Return an item taken by :meth:`pop_nowait` but never claimed."""
        self._push(item)

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

    async def dequeue(self, timeout_s: float | None = None) -> MailboxItem:
        """Wait for the head item, claim it (status processing, committed) and return it.

        Args:
            timeout_s: seconds to wait for an item; None waits forever.

        Raises:
            TimeoutError: no item arrived in time. An item is never lost to a
                timeout or cancellation: it is either returned or left queued.
        """
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else self._clock.monotonic() + timeout_s
        while (item := self.pop_nowait()) is None:
            getter: asyncio.Future[None] = loop.create_future()
            self._getters.append(getter)
            handle = None
            if deadline is not None:
                remaining = deadline - self._clock.monotonic()
                if remaining <= 0:
                    self._getters.remove(getter)
                    raise TimeoutError(f"no item for agent {self.agent_id!r} in {timeout_s} s")
                handle = self._clock.call_later(remaining, _timeout_setter(getter))
            try:
                await getter
            except BaseException:
                getter.cancel()
                if getter in self._getters:
                    self._getters.remove(getter)
                elif self._queued and self._getters:
                    # We were woken but will not take the item: pass the wake on.
                    self._wake_one()
                raise
            finally:
                if handle is not None:
                    handle.cancel()
        write = asyncio.ensure_future(self._store.write(self.claim_ops(item, self._clock.now())))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            write.add_done_callback(lambda _w: self._spawn(self.release(item)))
            raise
        return item

    def _wake_one(self) -> None:
        while self._getters:
            getter = self._getters.popleft()
            if not getter.done():
                getter.set_result(None)
                return

    def _spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            coro, name=f"attn:{self.agent_id}:mailbox"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def release(self, item: MailboxItem) -> None:
        """Put a claimed item back to queued without counting an attempt."""
        await self.commit(self.requeue_ops(item, failed=False))

    # ------------------------------------------------------------ transitions

    def decision_op(
        self,
        item: MailboxItem,
        decision_type: DecisionType,
        reasoning: str,
        context: JSON | None = None,
        outcome: str | None = None,
    ) -> InsertDecision:
        """Record a decision about ``item`` (and emit ``attention:decision``).

        ``context`` always holds ``currentFocus`` (item id or None), ``queueDepth``
        and ``queuedTypes`` (type -> count) as of now; the caller's keys win.
        """
        if context is None or "queueDepth" not in context:
            context = {"currentFocus": self.focus_id(), "queueDepth": self.depth,
                       "queuedTypes": self.queued_types(), **(context or {})}
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
        return [UpdateItem(item.id, {"status": item.status, "completed_at": item.completed_at,
                                     "reason": reason, "payload": item.payload})]

    def requeue_ops(self, item: MailboxItem, *, failed: bool, reason: str | None = None,
                    redelivered: bool | None = None) -> list[WriteOp]:
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
        return [UpdateItem(item.id, {"status": item.status, "attempt": item.attempt,
                                     "redelivered": item.redelivered, "deferred_until": None,
                                     "session": item.session, "reason": reason,
                                     "payload": item.payload})]

    def defer_ops(self, item: MailboxItem, until: datetime | None, reason: str) -> list[WriteOp]:
        """Defer a queued or processing item until ``until`` (None: next idle)."""
        self._unqueue(item)  # its heap entry goes stale and is skipped
        item.status = ItemStatus.DEFERRED
        item.deferred_until = until
        item.reason = reason
        self._deferred[item.id] = item
        self.counters["deferred"] += 1
        self._updated(item)
        return [UpdateItem(item.id, {"status": item.status, "deferred_until": until,
                                     "session": item.session, "reason": reason,
                                     "payload": item.payload})]

    def drop_ops(self, item: MailboxItem, reason: str) -> list[WriteOp]:
        self._unqueue(item)
        self._deferred.pop(item.id, None)
        item.status = ItemStatus.DROPPED
        item.completed_at = self._clock.now()
        item.reason = reason
        self.counters["dropped"] += 1
        self._updated(item)
        return [UpdateItem(item.id, {"status": item.status, "completed_at": item.completed_at,
                                     "reason": reason})]

    def merge_ops(self, item: MailboxItem, into: MailboxItem, *,
                  labelled: bool = False) -> list[WriteOp]:
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
            UpdateItem(item.id, {"status": item.status, "merged_into": into.id,
                                 "completed_at": item.completed_at}),
            UpdateItem(into.id, {"payload": into.payload, "priority": into.priority}),
        ]

    def resurface_due_ops(self, now: datetime) -> list[WriteOp]:
        """Queue every deferred item whose time has come (or that has none). 000 §22."""
        ops: list[WriteOp] = []
        for item in [i for i in self._deferred.values()
                     if i.deferred_until is None or i.deferred_until <= now]:
            ops.extend(self.requeue_ops(item, failed=False))
            ops.append(self.decision_op(item, DecisionType.RESURFACE,
                                        "Deferred item resurfaced while idle"))
        return ops

    def next_resurface_at(self) -> datetime | None:
        """Earliest ``deferred_until`` among timed deferred items, or None."""
        times = [i.deferred_until for i in self._deferred.values() if i.deferred_until is not None]
        return min(times) if times else None

    async def commit(self, ops: list[WriteOp]) -> None:
        """Write ``ops`` in one transaction; return after commit."""
        if ops:
            await self._store.write(ops)

    def submit(self, ops: list[WriteOp]) -> asyncio.Future[list[Any]]:
        """Start writing ``ops`` in one transaction; the future resolves after commit."""
        return self._store.submit(ops)

    # ------------------------------------------------------- agent-facing API

    def _require(self, item_id: object) -> MailboxItem:
        item = self.find(item_id) if isinstance(item_id, str) else None
        if item is None:
            raise ItemNotFound(
                f"agent {self.agent_id!r} has no queued or deferred item {item_id!r}"
            )
        return item

    def _guard_protected(self, item: MailboxItem, action: str, by_agent: bool) -> None:
        if by_agent and self._registry.get_type(item.source_type).protected:
            raise ProtectedItem(f"{item.source_type} item {item.id} cannot be {action} by an agent")

    async def reprioritize(self, item_id: str, priority: object, *, by_agent: bool = False,
                           reason: str = "") -> MailboxItem:
        """Change a queued or deferred item's priority (0..4).

        Raises:
            InvalidPriority: priority outside 0..4 (nothing changes).
            ItemNotFound: no queued or deferred item with that id.
            ProtectedItem: ``by_agent`` and the item is human chat.
        """
        new_priority = validate_priority(priority)
        item = self._require(item_id)
        self._guard_protected(item, "reprioritized", by_agent)
        old = item.priority
        item.priority = new_priority
        if item.id in self._queued:
            heapq.heappush(self._heap, (item.priority, item.seq, item.id))
        self._updated(item)
        await self.commit([
            UpdateItem(item.id, {"priority": new_priority}),
            self.decision_op(item, DecisionType.PRIORITIZE,
                             reason or f"priority {old} -> {new_priority}"),
        ])
        return item

    async def defer(self, item_id: str, until: datetime | None = None, *, reason: str = "",
                    by_agent: bool = False) -> MailboxItem:
        """Defer a queued item until ``until`` (UTC; None: next idle cycle).

        Raises:
            ItemNotFound, ProtectedItem, InvalidInput (naive datetime).
        """
        if until is not None and (not isinstance(until, datetime) or until.tzinfo is None):
            raise InvalidInput(f"defer until must be a timezone-aware datetime, got {until!r}")
        item = self._require(item_id)
        if item.status != ItemStatus.QUEUED:
            raise InvalidTransition(f"item {item.id} is {item.status}, only queued items defer")
        self._guard_protected(item, "deferred", by_agent)
        reason = reason or "deferred"
        ops = self.defer_ops(item, until, reason)
        ops.append(self.decision_op(item, DecisionType.DEFER, reason))
        await self.commit(ops)
        return item

    async def drop(self, item_id: str, *, reason: str = "", by_agent: bool = False) -> MailboxItem:
        """Drop a queued or deferred item for good.

        Raises:
            ItemNotFound, ProtectedItem.
        """
        item = self._require(item_id)
        self._guard_protected(item, "dropped", by_agent)
        reason = reason or "dropped"
        ops = self.drop_ops(item, reason)
        ops.append(self.decision_op(item, DecisionType.DROP, reason))
        await self.commit(ops)
        return item

    async def drop_status_updates(self, task_id: str) -> list[MailboxItem]:
        """Drop queued informational task_status_update items of one task (000 §18)."""
        doomed = [
            i for i in self._queued.values()
            if i.source_type == "task_status_update" and not i.triggers_execution
            and i.extra("taskId") == task_id
        ]
        ops: list[WriteOp] = []
        for item in doomed:
            ops.extend(self.drop_ops(item, f"stale status update: task {task_id} retried"))
            ops.append(self.decision_op(item, DecisionType.DROP, "retry cleanup (000 §18)"))
        await self.commit(ops)
        return doomed

    # ---------------------------------------------------------------- events

    def _updated(self, item: MailboxItem) -> None:
        if self._bus.active:
            self._emit(ITEM_UPDATED, {"item": item.to_dict()})

    def _emit(self, event_type: str, data: dict[str, Any]) -> None:
        self._bus.emit(Event(event_type, self.agent_id, data, self._clock.now()))


def _require_unicode(text: str) -> None:
    """Reject text that cannot be stored as UTF-8 (lone surrogates)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"text must be valid Unicode; found {exc.object[exc.start:exc.end]!r} "
                f"(a lone surrogate) at position {exc.start}") from None


def _timeout_setter(getter: asyncio.Future[None]) -> Callable[[], None]:
    def expire() -> None:
        if not getter.done():
            getter.set_exception(TimeoutError())

    return expire


def merge_payload(into: MailboxItem, item: MailboxItem, *, labelled: bool = False) -> None:
    """Append ``item``'s text and sender to ``into``'s payload (000 §14).

    Content is joined with ``---`` separators, the summary gains ``(+N)``, and
    ``payload["messages"]`` lists every sender's message in arrival order, each
    with the fields of its own payload (attachments, mentions…), so nothing is
    lost. ``into.payload`` is replaced by a new dict, never changed in place.
    """
    payload = dict(into.payload)
    messages = payload.get("messages")
    if not isinstance(messages, list):
        messages = [_message_of(into)]
    payload["messages"] = [*messages, _message_of(item)]
    text = item.content or item.summary
    if labelled:
        text = f"[{item.source_type}] {text}"
    parts = [p for p in (into.content or (into.summary if labelled else ""), text) if p]
    payload["content"] = MERGE_SEPARATOR.join(parts)
    base = payload.get("baseSummary") or into.summary
    payload["baseSummary"] = base
    payload["summary"] = f"{base} (+{len(payload['messages']) - 1})"
    absorbed = payload.get("mergedItemIds")
    payload["mergedItemIds"] = [*(absorbed if isinstance(absorbed, list) else []), item.id]
    into.payload = payload


_OWN_KEYS = frozenset({"content", "summary", "messages", "baseSummary", "mergedItemIds"})


def _message_of(item: MailboxItem) -> JSON:
    meta = item.metadata
    message: JSON = {
        "itemId": item.id,
        "sourceType": item.source_type,
        "senderId": meta.get("senderId"),
        "senderName": meta.get("senderName") or meta.get("senderId") or "unknown",
        "content": item.content,
        "timestamp": item.queued_at.isoformat(),
    }
    fields = {k: v for k, v in item.payload.items() if k not in _OWN_KEYS}
    if fields:
        message["payload"] = fields
    return message
