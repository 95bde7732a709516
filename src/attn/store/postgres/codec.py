"""PostgreSQL rows to attn's records and back: JSON as compact text, instants as timestamptz.

Everything a write needs is encoded before a connection is taken; the
encoders expect records that :func:`attn.store._checks.check_write` accepted.
asyncpg returns ``timestamptz`` as aware UTC datetimes and booleans natively.

Spec: 000 §6.2 (columns).
"""

from __future__ import annotations

from typing import Any

from asyncpg import Record

from attn.limits import load_stored, load_stored_object
from attn.models import (
    Activity,
    ActivityLog,
    CallbackStatus,
    CallbackType,
    Decision,
    DecisionType,
    DeliveryMode,
    ItemStatus,
    LogType,
    MailboxItem,
    PendingCallback,
)
from attn.store._values import json_text

#: Columns of ``mailbox_items`` and ``agent_activities`` holding JSON text / free text.
JSON_COLUMNS = frozenset({"payload", "metadata", "session"})
_TEXT_COLUMNS = frozenset({"merged_into", "reason", "label", "claimed_by"})


def _text(value: str | None) -> str | None:
    # PostgreSQL's text cannot hold NUL: in free text (a label, a log entry, a
    # reason) it becomes U+FFFD. JSON columns keep it, escaped as \u0000.
    if value is not None and "\x00" in value:
        return value.replace("\x00", "\ufffd")
    return value


def encode_column(name: str, value: Any, what: str) -> Any:
    """Encode ``value`` for column ``name`` of an :class:`UpdateItem` / :class:`UpdateActivity`.

    Raises:
        StoreError: a JSON value is not JSON-serializable.
    """
    if name in JSON_COLUMNS:
        return None if value is None else json_text(value, f"{what}.{name}")
    if name == "status":
        return str(ItemStatus(value))
    if name in _TEXT_COLUMNS:
        return _text(value)
    return value


def encode_item(item: MailboxItem) -> tuple[Any, ...]:
    """Arguments of ``INSERT_ITEM`` for ``item``, in column order."""
    what = f"mailbox item {item.id!r}"
    return (
        _text(item.id),
        _text(item.agent_id),
        _text(item.source_type),
        item.priority,
        str(ItemStatus(item.status)),
        json_text(item.payload, f"{what}.payload"),
        json_text(item.metadata, f"{what}.metadata"),
        item.queued_at,
        item.started_at,
        item.completed_at,
        item.deferred_until,
        _text(item.merged_into),
        item.attempt,
        item.redelivered,
        _text(item.idempotency_key),
        encode_column("session", item.session, what),
        _text(item.reason),
    )


def encode_decision(decision: Decision) -> tuple[Any, ...]:
    """Arguments of ``INSERT_DECISION``, in column order."""
    return (
        _text(decision.id),
        _text(decision.agent_id),
        str(DecisionType(decision.decision_type)),
        _text(decision.item_id),
        json_text(decision.context, f"decision {decision.id!r}.context"),
        _text(decision.reasoning),
        _text(decision.outcome),
        decision.created_at,
    )


def encode_activity(activity: Activity) -> tuple[Any, ...]:
    """Arguments of ``INSERT_ACTIVITY``, in column order."""
    return (
        _text(activity.id),
        _text(activity.agent_id),
        _text(activity.item_id),
        _text(activity.type),
        _text(activity.label),
        _text(activity.task_id),
        activity.started_at,
        activity.ended_at,
        activity.total_tokens,
        activity.total_tools,
        activity.success,
    )


def encode_log(log: ActivityLog) -> tuple[Any, ...]:
    """Arguments of ``INSERT_LOG``, in column order."""
    return (
        _text(log.activity_id),
        log.seq,
        str(LogType(log.type)),
        _text(log.content),
        json_text(log.metadata, f"activity log {log.activity_id!r}#{log.seq}.metadata"),
        log.created_at,
    )


def decode_item(row: Record) -> MailboxItem:
    """A :class:`MailboxItem` from a ``mailbox_items`` row."""
    session = row["session"]
    return MailboxItem(
        id=row["id"],
        agent_id=row["agent_id"],
        source_type=row["source_type"],
        priority=row["priority"],
        status=ItemStatus(row["status"]),
        payload=load_stored_object(row["payload"]),
        metadata=load_stored_object(row["metadata"]),
        queued_at=row["queued_at"],
        started_at=row["started_at"],
        completed_at=row["completed_at"],
        deferred_until=row["deferred_until"],
        merged_into=row["merged_into"],
        seq=row["seq"],
        attempt=row["attempt"],
        redelivered=row["redelivered"],
        idempotency_key=row["idempotency_key"],
        session=load_stored(session) if session is not None else None,
        reason=row["reason"],
    )


def decode_decision(row: Record) -> Decision:
    """A :class:`Decision` from an ``agent_decisions`` row."""
    return Decision(
        id=row["id"],
        agent_id=row["agent_id"],
        decision_type=DecisionType(row["decision_type"]),
        item_id=row["mailbox_item_id"],
        reasoning=row["reasoning"],
        created_at=row["created_at"],
        context=load_stored_object(row["context"]),
        outcome=row["outcome"],
        seq=row["seq"],
    )


def decode_activity(row: Record) -> Activity:
    """An :class:`Activity` from an ``agent_activities`` row."""
    return Activity(
        id=row["id"],
        agent_id=row["agent_id"],
        item_id=row["mailbox_item_id"],
        type=row["type"],
        label=row["label"],
        started_at=row["started_at"],
        task_id=row["task_id"],
        ended_at=row["ended_at"],
        total_tokens=row["total_tokens"],
        total_tools=row["total_tools"],
        success=row["success"],
    )


def decode_log(row: Record) -> ActivityLog:
    """An :class:`ActivityLog` from an ``agent_activity_logs`` row."""
    return ActivityLog(
        activity_id=row["activity_id"],
        seq=row["seq"],
        type=LogType(row["type"]),
        content=row["content"],
        created_at=row["created_at"],
        metadata=load_stored_object(row["metadata"]),
    )


def _seconds(value: float | None) -> float | None:
    return None if value is None else float(value)


def encode_callback(c: PendingCallback) -> tuple[Any, ...]:
    """Arguments of ``INSERT_CALLBACK`` for ``c``, in column order."""
    return (
        _text(c.id),
        _text(c.agent_id),
        str(CallbackType(c.type)),
        str(DeliveryMode(c.delivery_mode)),
        _text(c.origin_session_id),
        _text(c.command),
        _text(c.note),
        _text(c.correlation_id),
        c.due_at,
        _seconds(c.recurring_s),
        c.registered_at,
        _seconds(c.timeout_s),
        str(CallbackStatus(c.status)),
        _text(c.claimed_by),
        c.claimed_at,
        json_text(c.data, f"pending callback {c.id!r}.data"),
    )


def encode_callback_column(name: str, value: Any, what: str) -> Any:
    """Encode ``value`` for column ``name`` of an :class:`UpdateCallback`.

    Raises:
        StoreError: the data is not JSON-serializable.
    """
    if name == "status":
        return str(CallbackStatus(value))
    if name == "data":
        return json_text(value, f"{what}.data")
    if name == "claimed_by":
        return _text(value)
    return value


def decode_callback(row: Record) -> PendingCallback:
    """A :class:`PendingCallback` from a ``pending_callbacks`` row."""
    return PendingCallback(
        id=row["id"],
        agent_id=row["agent_id"],
        type=CallbackType(row["type"]),
        delivery_mode=DeliveryMode(row["delivery_mode"]),
        registered_at=row["registered_at"],
        origin_session_id=row["origin_session_id"],
        command=row["command"],
        note=row["note"],
        correlation_id=row["correlation_id"],
        due_at=row["due_at"],
        recurring_s=row["recurring_s"],
        timeout_s=row["timeout_s"],
        status=CallbackStatus(row["status"]),
        claimed_by=row["claimed_by"],
        claimed_at=row["claimed_at"],
        data=load_stored(row["data"]),
    )
