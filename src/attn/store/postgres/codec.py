"""Values in and out of PostgreSQL: JSON as compact text, instants as timestamptz.

Everything a write needs is encoded before a connection is taken, so bad
input fails with :class:`~attn.errors.StoreError` before anything is sent.
asyncpg returns ``timestamptz`` as aware UTC datetimes and booleans natively.

Spec: 000 §6.2 (columns).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any

from asyncpg import Record

from attn.errors import StoreError
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

#: Columns of ``mailbox_items`` and ``agent_activities`` holding JSON text / instants.
JSON_COLUMNS = frozenset({"payload", "metadata", "session"})
INSTANT_COLUMNS = frozenset(
    {"queued_at", "started_at", "completed_at", "deferred_until", "ended_at"}
)


def dump_json(value: Any, what: str) -> str:
    """Compact JSON text for ``value``.

    Raises:
        StoreError: ``value`` is not JSON-serializable (``what`` names the field).
    """
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def dump_object(value: Any, what: str) -> str:
    """Like :func:`dump_json` but ``value`` must be a JSON object (a dict)."""
    if not isinstance(value, Mapping):
        raise StoreError(f"{what} must be a JSON object, got {type(value).__name__}")
    return dump_json(value, what)


def instant(value: Any, what: str, *, nullable: bool = True) -> datetime | None:
    """Check that ``value`` is a timezone-aware datetime (or None when ``nullable``).

    Raises:
        StoreError: naive datetime, another type, or None where not allowed.
    """
    if value is None and nullable:
        return None
    if not isinstance(value, datetime):
        raise StoreError(f"{what} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise StoreError(f"{what} must be timezone-aware (UTC), got naive {value.isoformat()}")
    return value


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise StoreError(f"{what} must be an integer, got {value!r}")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise StoreError(f"{what} must be a bool, got {value!r}")
    return value


def _text(value: Any, what: str, *, nullable: bool = True) -> str | None:
    # PostgreSQL's text cannot hold NUL: in free text (a label, a log entry, a
    # reason) it becomes U+FFFD. JSON columns keep it, escaped as \u0000.
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise StoreError(f"{what} must be a string, got {type(value).__name__}")
    return value.replace("\x00", "\ufffd") if "\x00" in value else value


def _enum(cls: type[StrEnum], value: Any, what: str) -> str:
    try:
        return str(cls(value))
    except ValueError as exc:
        raise StoreError(f"{what}: unknown value {value!r}") from exc


def encode_column(name: str, value: Any, what: str) -> Any:
    """Encode ``value`` for column ``name`` of an :class:`UpdateItem` / :class:`UpdateActivity`.

    Raises:
        StoreError: the value has the wrong type for the column.
    """
    where = f"{what}.{name}"
    if name in JSON_COLUMNS:
        return None if value is None and name == "session" else dump_object(value, where)
    if name in INSTANT_COLUMNS:
        return instant(value, where)
    if name == "status":
        return _enum(ItemStatus, value, where)
    if name in {"priority", "attempt", "total_tokens", "total_tools"}:
        return _int(value, where)
    if name in {"redelivered", "success"}:
        return _bool(value, where)
    return _text(value, where, nullable=name != "label")


def item_params(item: MailboxItem) -> tuple[Any, ...]:
    """Arguments of ``INSERT_ITEM`` for ``item``, in column order."""
    what = f"mailbox item {item.id!r}"
    return (
        _text(item.id, f"{what}.id", nullable=False),
        _text(item.agent_id, f"{what}.agent_id", nullable=False),
        _text(item.source_type, f"{what}.source_type", nullable=False),
        _int(item.priority, f"{what}.priority"),
        _enum(ItemStatus, item.status, f"{what}.status"),
        dump_object(item.payload, f"{what}.payload"),
        dump_object(item.metadata, f"{what}.metadata"),
        instant(item.queued_at, f"{what}.queued_at", nullable=False),
        instant(item.started_at, f"{what}.started_at"),
        instant(item.completed_at, f"{what}.completed_at"),
        instant(item.deferred_until, f"{what}.deferred_until"),
        _text(item.merged_into, f"{what}.merged_into"),
        _int(item.attempt, f"{what}.attempt"),
        _bool(item.redelivered, f"{what}.redelivered"),
        _text(item.idempotency_key, f"{what}.idempotency_key"),
        encode_column("session", item.session, what),
        _text(item.reason, f"{what}.reason"),
    )


def decision_params(decision: Decision) -> tuple[Any, ...]:
    """Arguments of ``INSERT_DECISION``, in column order."""
    what = f"decision {decision.id!r}"
    return (
        _text(decision.id, f"{what}.id", nullable=False),
        _text(decision.agent_id, f"{what}.agent_id", nullable=False),
        _enum(DecisionType, decision.decision_type, f"{what}.decision_type"),
        _text(decision.item_id, f"{what}.item_id", nullable=False),
        dump_object(decision.context, f"{what}.context"),
        _text(decision.reasoning, f"{what}.reasoning", nullable=False),
        _text(decision.outcome, f"{what}.outcome"),
        instant(decision.created_at, f"{what}.created_at", nullable=False),
    )


def activity_params(activity: Activity) -> tuple[Any, ...]:
    """Arguments of ``INSERT_ACTIVITY``, in column order."""
    what = f"activity {activity.id!r}"
    return (
        _text(activity.id, f"{what}.id", nullable=False),
        _text(activity.agent_id, f"{what}.agent_id", nullable=False),
        _text(activity.item_id, f"{what}.item_id"),
        _text(activity.type, f"{what}.type", nullable=False),
        _text(activity.label, f"{what}.label", nullable=False),
        _text(activity.task_id, f"{what}.task_id"),
        instant(activity.started_at, f"{what}.started_at", nullable=False),
        instant(activity.ended_at, f"{what}.ended_at"),
        _int(activity.total_tokens, f"{what}.total_tokens"),
        _int(activity.total_tools, f"{what}.total_tools"),
        _bool(activity.success, f"{what}.success"),
    )


def log_params(log: ActivityLog) -> tuple[Any, ...]:
    """Arguments of ``INSERT_LOG``, in column order."""
    what = f"activity log {log.activity_id!r}#{log.seq}"
    return (
        _text(log.activity_id, f"{what}.activity_id", nullable=False),
        _int(log.seq, f"{what}.seq"),
        _enum(LogType, log.type, f"{what}.type"),
        _text(log.content, f"{what}.content", nullable=False),
        dump_object(log.metadata, f"{what}.metadata"),
        instant(log.created_at, f"{what}.created_at", nullable=False),
    )


def row_to_item(row: Record) -> MailboxItem:
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


def row_to_decision(row: Record) -> Decision:
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


def row_to_activity(row: Record) -> Activity:
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


def row_to_log(row: Record) -> ActivityLog:
    """An :class:`ActivityLog` from an ``agent_activity_logs`` row."""
    return ActivityLog(
        activity_id=row["activity_id"],
        seq=row["seq"],
        type=LogType(row["type"]),
        content=row["content"],
        created_at=row["created_at"],
        metadata=load_stored_object(row["metadata"]),
    )


def _seconds(value: Any, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StoreError(f"{what} must be seconds (a number) or None, got {value!r}")
    return float(value)


def callback_params(c: PendingCallback) -> tuple[Any, ...]:
    """Arguments of ``INSERT_CALLBACK`` for ``c``, in column order."""
    what = f"pending callback {c.id!r}"
    return (
        _text(c.id, f"{what}.id", nullable=False),
        _text(c.agent_id, f"{what}.agent_id", nullable=False),
        _enum(CallbackType, c.type, f"{what}.type"),
        _enum(DeliveryMode, c.delivery_mode, f"{what}.delivery_mode"),
        _text(c.origin_session_id, f"{what}.origin_session_id"),
        _text(c.command, f"{what}.command"),
        _text(c.note, f"{what}.note"),
        _text(c.correlation_id, f"{what}.correlation_id"),
        instant(c.due_at, f"{what}.due_at"),
        _seconds(c.recurring_s, f"{what}.recurring_s"),
        instant(c.registered_at, f"{what}.registered_at", nullable=False),
        _seconds(c.timeout_s, f"{what}.timeout_s"),
        _enum(CallbackStatus, c.status, f"{what}.status"),
        _text(c.claimed_by, f"{what}.claimed_by"),
        instant(c.claimed_at, f"{what}.claimed_at"),
        dump_object(c.data, f"{what}.data"),
    )


def encode_callback_column(name: str, value: Any, what: str) -> Any:
    """Encode ``value`` for column ``name`` of an :class:`UpdateCallback`.

    Raises:
        StoreError: the value has the wrong type for the column.
    """
    where = f"{what}.{name}"
    if name in ("due_at", "claimed_at"):
        return instant(value, where)
    if name == "status":
        return _enum(CallbackStatus, value, where)
    if name == "data":
        return dump_object(value, where)
    return _text(value, where)


def row_to_callback(row: Record) -> PendingCallback:
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
