"""An enqueue request checked into a mailbox item, and the answer to an enqueue.

:func:`build_item` checks everything an enqueue could be refused for without
changing anything (invariant 10); :class:`~attn.core.mailbox.intake.Intake`
then stores and queues the item it built.

An idempotency key names one enqueue request of one agent, for as long as the
item is stored (attn never deletes items, so across restarts too). A repeat
of the key creates nothing and is answered as a duplicate
(:class:`Enqueued` with ``duplicate`` set) together with the first item's
state: queued, processing, completed, or dropped with its reason. A repeat
is never silently accepted in place of work that will not happen. The
payload of a repeat is not compared: the key alone identifies the request.

Spec: 000 §3 (types and default priorities), §14 (enqueue-time dedup), §17
(the queue bound, max_queued); DESIGN.md invariants 2, 8 and 10.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attn.clock import Clock
from attn.config import AgentConfig
from attn.core.item_type import validate_priority
from attn.core.mailbox.merge import check_supersede_key
from attn.core.mailbox.queue import ReadyQueue
from attn.core.registry import TypeRegistry
from attn.errors import InvalidInput, MailboxFull, PayloadTooLarge
from attn.ids import new_id
from attn.jsontext import dumps
from attn.limits import check_id, check_json, check_unicode
from attn.models import EXECUTION_TYPE, RESULT_TYPE, ItemStatus, MailboxItem

#: Types a full mailbox still takes: a person's chat, and the records that settle
#: work the agent started (a child's RESULT and EXECUTION records, seed 002).
_NEVER_FULL = frozenset({"human_chat", RESULT_TYPE, EXECUTION_TYPE})


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


def build_item(
    source_type: str,
    payload: object,
    priority: object,
    metadata: object,
    idempotency_key: object,
    *,
    agent_id: str,
    registry: TypeRegistry,
    config: AgentConfig,
    clock: Clock,
    queue: ReadyQueue,
    reserved: int,
) -> tuple[MailboxItem, tuple[str, str]]:
    """Validate an enqueue request; return the item it would create, and its JSON.

    Nothing is stored or changed.

    Args:
        source_type, payload, priority, metadata, idempotency_key: the request
            (see :meth:`~attn.core.mailbox.Mailbox.enqueue`).
        agent_id: the mailbox's agent.
        registry: the registered item types.
        config: the agent's limits (max_queued, ``max_payload_bytes``).
        clock: source of ``queued_at``.
        queue: the mailbox's ready queue (its depth, merge and superseding targets).
        reserved: inserts between their max_queued check and commit, counted
            against max_queued.

    Returns:
        The item (status queued, not stored) and its encoded ``(payload, metadata)``.

    Raises:
        UnknownItemType: ``source_type`` is not registered.
        InvalidPriority: ``priority`` is not None or an int in 0..4.
        InvalidJson: payload or metadata breaks the JSON limits of
            :mod:`attn.limits` (nesting, NaN, integers beyond 64 bits).
        InvalidInput: payload or metadata is not a JSON object, required text
            (``payload["content"]``) is missing or blank, or the key is malformed.
        PayloadTooLarge: the encoded payload and metadata exceed the limit.
        MailboxFull: the queue holds ``max_queued`` items (never for human chat,
            a RESULT or an EXECUTION record).
    """
    spec = registry.get_type(source_type)
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
    if size > config.max_payload_bytes:
        raise PayloadTooLarge(
            f"payload and metadata take {size} bytes; the limit is {config.max_payload_bytes} bytes"
        )
    if (
        spec.name not in _NEVER_FULL
        and len(queue) + reserved >= config.max_queued
        and (
            queue.merge_target(spec.name, payload, idempotency_key) is None
            and not queue.supersedes_queued(spec, payload, metadata)
        )
    ):
        raise MailboxFull(
            f"mailbox of agent {agent_id!r} holds {len(queue)} queued items "
            f"(max_queued {config.max_queued}); {spec.name} item rejected"
        )
    item = MailboxItem(
        id=new_id("mbx"),
        agent_id=agent_id,
        source_type=spec.name,
        priority=priority,
        status=ItemStatus.QUEUED,
        payload=dict(payload),
        metadata=dict(metadata),
        queued_at=clock.now(),
        idempotency_key=idempotency_key,
    )
    return item, encoded
