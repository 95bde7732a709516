"""The write ops of the store port: what :meth:`attn.store.base.Store.write` applies.

Each op is a frozen dataclass; its docstring says what it does and what its
result is. :func:`attn.store._checks.check_write` checks them before any
backend applies them. Re-exported by :mod:`attn.store.base`, the port.

Spec: 000 §6 (tables), §11.3 (pending callbacks, settings), §8 (memories).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attn.models import (
    Activity,
    Channel,
    ChannelMessage,
    Decision,
    Delegation,
    Delivery,
    ItemStatus,
    MailboxItem,
    Memory,
    TreeAgent,
)
from attn.models.people import Approval, Notification, SessionMessage

if TYPE_CHECKING:
    from attn.models import ActivityLog, PendingCallback

#: Columns of ``mailbox_items`` that :class:`UpdateItem` may set.
ITEM_UPDATE_FIELDS = frozenset(
    {
        "priority",
        "status",
        "payload",
        "metadata",
        "started_at",
        "completed_at",
        "deferred_until",
        "merged_into",
        "attempt",
        "redelivered",
        "session",
        "reason",
    }
)
ACTIVITY_UPDATE_FIELDS = frozenset({"ended_at", "total_tokens", "total_tools", "success", "label"})
#: Columns of ``pending_callbacks`` that :class:`UpdateCallback` may set.
CALLBACK_UPDATE_FIELDS = frozenset({"due_at", "status", "claimed_by", "claimed_at", "data"})
#: Columns of ``approvals`` that :class:`UpdateApproval` may set.
APPROVAL_UPDATE_FIELDS = frozenset(
    {
        "state",
        "selected_option",
        "comment",
        "answered_by",
        "answered_at",
        "notification_id",
        "context",
    }
)


@dataclass(frozen=True, slots=True)
class InsertItem:
    """Insert a new item; the store assigns ``seq``.

    With an ``idempotency_key`` already used by the same agent nothing is
    inserted and the result is the existing item instead.
    Result: ``(item, created)``, the stored item (with ``seq``) and whether it is new.

    ``encoded``: the item's payload and metadata already encoded by
    :func:`attn.jsontext.dumps` from values already checked against
    :mod:`attn.limits` (the mailbox does both at enqueue), so the store checks
    them no further (an optimisation; stores may ignore it).
    """

    item: MailboxItem
    encoded: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class UpdateItem:
    """Set columns of one item.

    ``only_if_status``: apply only when the stored status is one of these
    (a guarded transition). Result: True when a row changed.
    """

    item_id: str
    values: dict[str, Any]
    only_if_status: tuple[ItemStatus, ...] | None = None


@dataclass(frozen=True, slots=True)
class InsertDecision:
    """Record a decision. Result: None."""

    decision: Decision


@dataclass(frozen=True, slots=True)
class InsertActivity:
    """Record the start of an activity. Result: None."""

    activity: Activity


@dataclass(frozen=True, slots=True)
class UpdateActivity:
    """Set columns of one activity. Result: True when a row changed."""

    activity_id: str
    values: dict[str, Any]


@dataclass(frozen=True, slots=True)
class InsertLogs:
    """Append activity log entries. Result: None."""

    logs: tuple[ActivityLog, ...]


@dataclass(frozen=True, slots=True)
class InsertCallback:
    """Persist a new pending callback (000 §11.3). Result: None.

    A callback id that already exists is a :class:`~attn.errors.StoreError`.
    """

    callback: PendingCallback


@dataclass(frozen=True, slots=True)
class UpdateCallback:
    """Set columns (:data:`CALLBACK_UPDATE_FIELDS`) of one agent's callback.

    ``only_if_status``: apply only when the stored status is one of these
    (``"pending"``, ``"claimed"``, ``"resolved"``). ``only_if_due_at``: apply
    only when the stored ``due_at`` is this instant (a compare-and-set, so two
    runtimes moving one due time move it once). Result: True when a row changed.
    """

    callback_id: str
    agent_id: str
    values: dict[str, Any]
    only_if_status: tuple[str, ...] | None = None
    only_if_due_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DeleteCallback:
    """Remove one agent's callback. Result: True when a row was removed.

    ``only_if_status``: remove only when the stored status is one of these.
    """

    callback_id: str
    agent_id: str
    only_if_status: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class PutAgentSetting:
    """Insert or replace one per-agent setting (a JSON value). Result: None."""

    agent_id: str
    name: str
    value: Any
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SaveMemory:
    """Save one long-term memory entry of ``memory.agent_id`` (000 §8).

    With a ``key`` the agent already has an entry under, that entry's
    ``content`` and ``updated_at`` are replaced (its id and ``created_at``
    stay); otherwise ``memory`` is inserted, unless the agent already keeps
    :data:`~attn.models.MAX_MEMORIES_PER_AGENT` entries: then nothing is
    written. Result: the stored :class:`~attn.models.Memory`, or None when
    the agent's memory is full. A repeated id is a
    :class:`~attn.errors.StoreError`.
    """

    memory: Memory


@dataclass(frozen=True, slots=True)
class DeleteMemory:
    """Remove one of the agent's memory entries. Result: True when one was removed."""

    agent_id: str
    memory_id: str


@dataclass(frozen=True, slots=True)
class PutChannel:
    """Store a channel, or replace the ``name`` and ``members`` of the one with its key.

    ``created_at`` and ``created_by`` of a stored channel stay. Result: the
    stored :class:`~attn.models.Channel`.
    """

    channel: Channel


@dataclass(frozen=True, slots=True)
class InsertChannelMessage:
    """Append a message to its channel's history; the store assigns ``seq``.

    ``seq`` comes from one counter over all channels, so it follows commit
    order. With an ``idempotency_key`` the same sender already used nothing is
    inserted and the result is the stored message instead. A channel that is
    not stored is a :class:`~attn.errors.StoreError`, and so is a repeated id.
    Result: ``(message, created)``, the stored message (with ``seq``) and
    whether it is new.
    """

    message: ChannelMessage


@dataclass(frozen=True, slots=True)
class SetDeliveries:
    """Replace the deliveries of one stored message. Result: True when it was found."""

    message_id: str
    deliveries: tuple[Delivery, ...]


@dataclass(frozen=True, slots=True)
class PutDelegation:
    """Store a delegation, or replace the stored one with its id. Result: the delegation."""

    delegation: Delegation


@dataclass(frozen=True, slots=True)
class PutTreeAgent:
    """Store a spawn tree's node, or replace the stored one with its id (seed 002).

    Result: the stored :class:`~attn.models.TreeAgent`.
    """

    agent: TreeAgent


@dataclass(frozen=True, slots=True)
class InsertNotification:
    """Store a new notification (000 §12.1). An id that exists is a StoreError.

    Result: the stored :class:`~attn.models.people.Notification`.
    """

    notification: Notification


@dataclass(frozen=True, slots=True)
class MarkNotificationsRead:
    """Mark notifications of one person read: those of ``ids``, or all of
    theirs when ``ids`` is None (mark all read). Ids of other people or
    unknown ids are left alone.

    Result: how many notifications changed from unread to read (int).
    """

    user_id: str
    ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class SetNotificationWebhook:
    """Set the webhook delivery state of one notification (``pending``,
    ``delivered`` or ``failed``). Result: True when a row changed."""

    notification_id: str
    webhook: str


@dataclass(frozen=True, slots=True)
class InsertApproval:
    """Store a new approval (000 §13.2). An id that exists is a StoreError.

    Result: the stored :class:`~attn.models.people.Approval`.
    """

    approval: Approval


@dataclass(frozen=True, slots=True)
class UpdateApproval:
    """Set columns (:data:`APPROVAL_UPDATE_FIELDS`) of one approval.

    ``only_if_state``: apply only when the stored state is one of these (the
    first answer wins). Result: True when a row changed.
    """

    approval_id: str
    values: dict[str, Any]
    only_if_state: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class InsertSessionMessage:
    """Append a message to an agent's main session (000 §20).

    The store assigns ``seq`` (commit order, like an item's). Result: the
    stored :class:`~attn.models.people.SessionMessage`, with its ``seq``.
    """

    message: SessionMessage


WriteOp = (
    InsertItem
    | UpdateItem
    | InsertDecision
    | InsertActivity
    | UpdateActivity
    | InsertLogs
    | InsertCallback
    | UpdateCallback
    | DeleteCallback
    | PutAgentSetting
    | SaveMemory
    | DeleteMemory
    | PutChannel
    | InsertChannelMessage
    | SetDeliveries
    | PutDelegation
    | PutTreeAgent
    | InsertNotification
    | MarkNotificationsRead
    | SetNotificationWebhook
    | InsertApproval
    | UpdateApproval
    | InsertSessionMessage
)
