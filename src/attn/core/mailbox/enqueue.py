"""The enqueue path: validate a request into a mailbox item, then store and queue it.

:meth:`MailboxEnqueue.build_item` checks everything an enqueue could be refused
for without changing anything (invariant 10); :meth:`MailboxEnqueue.insert`
commits the item, or merges it into the queued item with the same merge key
(enqueue-time dedup), before the caller is answered (invariant 2).

An idempotency key names one enqueue request of one agent, for as long as the
item is stored (attn never deletes items, so across restarts too). A repeat
of the key creates nothing and is answered as a duplicate
(:class:`Enqueued` with ``duplicate`` set) together with the first item's
state: queued, processing, completed, or dropped with its reason. A repeat
is never silently accepted in place of work that will not happen. The
payload of a repeat is not compared: the key alone identifies the request.

Spec: 000 §3 (types and default priorities), §14 (enqueue-time dedup), §17
(capacity); DESIGN.md invariants 2, 8 and 10.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attn.core.events import NEW_ITEM
from attn.core.item_type import validate_priority
from attn.core.mailbox.merge import check_supersede_key
from attn.core.mailbox.supersede import MailboxSupersede
from attn.errors import InvalidInput, MailboxFull, PayloadTooLarge, UnknownAgent
from attn.ids import new_id
from attn.jsontext import dumps
from attn.limits import check_id, check_json, check_unicode
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import InsertItem, WriteOp


@dataclass(frozen=True, slots=True)
class Enqueued:
    """The answer to one enqueue: the item, and whether the request was a repeat.

    Attributes:
        item: the new item (status queued), the queued item it was merged into
            (enqueue-time dedup), or, for a duplicate, the first item enqueued
            with the same idempotency key as it is stored now.
        duplicate: True when the idempotency key was used before by this
            agent: nothing new was stored, and ``item`` says what became of the
            first request (``status``, ``reason``).
        merged: True when the new item was stored as merged into ``item``, an
            item already queued or processing (enqueue-time dedup, a superseding
            notice restating the focus): ``id`` is then the survivor's.
    """

    item: MailboxItem
    duplicate: bool = False
    merged: bool = False

    @property
    def id(self) -> str:
        """The item's id."""
        return self.item.id

    @property
    def status(self) -> ItemStatus:
        """The item's status when the answer was made."""
        return self.item.status

    def to_dict(self) -> dict[str, Any]:
        """The HTTP answer (000 §5): ``{id, duplicate, merged, status, reason}``."""
        return {
            "id": self.item.id,
            "duplicate": self.duplicate,
            "merged": self.merged,
            "status": str(self.item.status),
            "reason": self.item.reason,
        }


class MailboxEnqueue(MailboxSupersede):
    """Enqueue validation, insert and enqueue-time dedup of one mailbox."""

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
            InvalidJson: payload or metadata breaks the JSON limits of
                :mod:`attn.limits` (nesting, NaN, integers beyond 64 bits).
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
            priority = (
                spec.user_priority
                if by_user and spec.user_priority is not None
                else (spec.default_priority)
            )
        priority = validate_priority(priority)
        check_supersede_key(payload)
        if idempotency_key is not None:
            idempotency_key = check_id(idempotency_key, "idempotency key")
        check_json(payload, "payload")
        check_json(metadata, "metadata")
        try:
            encoded = (dumps(payload), dumps(metadata))
        except (TypeError, ValueError, RecursionError) as exc:
            raise InvalidInput(f"payload and metadata must be JSON-serializable: {exc}") from exc
        check_unicode(encoded[0], "payload")
        check_unicode(encoded[1], "metadata")
        size = len(encoded[0]) + len(encoded[1])
        if size > self._config.max_payload_bytes:
            raise PayloadTooLarge(
                f"payload and metadata take {size} bytes; the limit is "
                f"{self._config.max_payload_bytes} bytes"
            )
        if (
            spec.name != "human_chat"
            and self.depth + self._reserved >= self._config.capacity
            and (
                self.merge_target(spec.name, payload, idempotency_key) is None
                and not self.supersedes_queued(spec, payload, metadata)
            )
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
        return await self.insert_result(item)

    async def insert(self, item: MailboxItem) -> MailboxItem:
        """Store and queue an item made by :meth:`build_item`; return it after commit.

        The item of :meth:`insert_result`.
        """
        return (await self.insert_result(item)).item

    async def insert_result(self, item: MailboxItem) -> Enqueued:
        """Store and queue an item made by :meth:`build_item`; answer after commit.

        A comment or channel message whose task, requirement or channel has a
        queued item is merged into it instead (000 §14): the answer's item is
        that survivor, holding both texts; the new item is stored as merged.
        A superseding notice replaces the older queued one of its group, or is
        stored as merged into the processing item it restates (CORE-76).
        An idempotency key used before stores nothing: the answer is a
        duplicate with the first item as stored.
        """
        cached = self._encoded
        encoded = cached[1] if cached is not None and cached[0] == item.id else None
        self._encoded = None
        self.last_arrival_at = self._clock.monotonic()
        target = self.merge_target(item.source_type, item.payload, item.idempotency_key)
        if target is not None:
            return Enqueued(await self._merge_on_enqueue(item, target, encoded), merged=True)
        # Most items supersede nothing: decided once, without the two lookups.
        focus = self.superseded_focus(item) if self._supersede_key(item) is not None else None
        if focus is not None:
            stored = await self.collapse_into_focus(item, focus, encoded)
            # Anything but the focus is the first item of a repeated idempotency key.
            return Enqueued(stored, duplicate=stored is not focus, merged=stored is focus)
        older = self.supersede_target(item) if self._supersede_index else None
        self._reserved += 1
        try:
            results = await self._store.write([InsertItem(item, encoded)])
        finally:
            self._reserved -= 1
        stored, created = results[0]
        if not created:
            return Enqueued(stored, duplicate=True)
        item.seq = stored.seq
        self.counters["enqueued"] += 1
        self._push(item)
        if self._bus.active:
            self._emit(NEW_ITEM, {"item": item.to_dict()})
        if self.on_new_item is not None:
            self.on_new_item(item)
        await self.supersede_older(item, older)
        return Enqueued(item)

    async def _merge_on_enqueue(
        self, item: MailboxItem, target: MailboxItem, encoded: tuple[str, str] | None
    ) -> MailboxItem:
        before = (target.payload, target.priority)
        spec = self._registry.get_type(item.source_type)
        ops: list[WriteOp] = self.merge_ops(item, target)
        ops[0] = InsertItem(item, encoded)  # the absorbed item's row, stored as merged
        key = f"{spec.merge_key} {item.extra(spec.merge_key or '')!r}"
        ops.append(
            self.decision_op(
                item, DecisionType.MERGE, f"enqueue-time dedup: same {key} as queued {target.id}"
            )
        )
        try:
            await self._store.write(ops)
        except BaseException:
            target.payload, target.priority = before
            self.counters["merged"] -= 1
            raise
        if self._bus.active:
            self._emit(NEW_ITEM, {"item": target.to_dict(), "mergedItemId": item.id})
        return target
