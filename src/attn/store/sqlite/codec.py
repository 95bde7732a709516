"""SQLite rows to attn's records and back.

Instants are ISO 8601 text in UTC with microseconds (``2025-01-02T03:04:05.000006+00:00``),
so text order is time order. JSON columns are compact JSON text
(:func:`attn.store._values.json_text`); booleans are 0/1. The encoders expect
records that :func:`attn.store._checks.check_write` accepted. Spec: 000 §6.2.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any

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
from attn.store._values import json_text

Row = tuple[Any, ...]

# Stored JSON that breaks the limits (older versions, other writers) is still read.
_json_decode = load_stored
_object_decode = load_stored_object
_from_iso = datetime.fromisoformat
_STATUSES = {s.value: s for s in ItemStatus}
_item_values = operator.attrgetter(*(f.name for f in fields(MailboxItem) if f.init))


def encode_instant(value: datetime) -> str:
    """ISO 8601 UTC text with microseconds, e.g. ``2025-01-02T03:04:05.000006+00:00``.

    Raises:
        StoreError: ``value`` is not a timezone-aware datetime.
    """
    tz = value.tzinfo if isinstance(value, datetime) else None
    if tz is not UTC:
        if tz is None or tz.utcoffset(value) is None:
            raise StoreError(f"expected a timezone-aware datetime, got {value!r}")
        value = value.astimezone(UTC)
    # Without the keyword argument when it changes nothing: a third faster (hot path).
    return value.isoformat() if value.microsecond else value.isoformat(timespec="microseconds")


def instant_or_none(value: datetime | None) -> str | None:
    """:func:`encode_instant`, or None for None."""
    return None if value is None else encode_instant(value)


def json_or_none(value: Any, what: str) -> str | None:
    """:func:`~attn.store._values.json_text`, or None for None."""
    return None if value is None else json_text(value, what)


def encode_bool(value: Any) -> int:
    """1 or 0."""
    return 1 if value else 0


def encode_item(item: MailboxItem, encoded: tuple[str, str] | None = None) -> Row:
    """The parameters of :data:`queries.INSERT_ITEM` for ``item``.

    ``encoded``: payload and metadata JSON already made by :func:`attn.jsontext.dumps`.
    """
    if encoded is not None and type(item.payload) is dict and type(item.metadata) is dict:
        payload, metadata = encoded
    else:
        what = f"mailbox item {item.id!r}"
        payload = json_text(item.payload, f"{what}.payload")
        metadata = json_text(item.metadata, f"{what}.metadata")
    return (
        item.id,
        item.agent_id,
        item.source_type,
        item.priority,
        item.status.value if type(item.status) is ItemStatus else _STATUSES[item.status].value,
        payload,
        metadata,
        encode_instant(item.queued_at),
        instant_or_none(item.started_at),
        instant_or_none(item.completed_at),
        instant_or_none(item.deferred_until),
        item.merged_into,
        item.attempt,
        1 if item.redelivered else 0,
        item.idempotency_key,
        json_or_none(item.session, f"mailbox item {item.id!r}.session"),
        item.reason,
    )


def decode_item(row: Row) -> MailboxItem:
    """A :class:`MailboxItem` from a row of :data:`queries.ITEM_COLUMNS`."""
    (seq, id_, agent_id, source_type, priority, status, payload, metadata, queued_at,
     started_at, completed_at, deferred_until, merged_into, attempt, redelivered,
     idempotency_key, session, reason) = row  # fmt: skip
    return MailboxItem(
        id_,
        agent_id,
        source_type,
        priority,
        _STATUSES[status],
        _object_decode(payload),
        _object_decode(metadata),
        _from_iso(queued_at),
        None if started_at is None else _from_iso(started_at),
        None if completed_at is None else _from_iso(completed_at),
        None if deferred_until is None else _from_iso(deferred_until),
        merged_into,
        seq,
        attempt,
        bool(redelivered),
        idempotency_key,
        None if session is None else _json_decode(session),
        reason,
    )


def copy_with_seq(item: MailboxItem, seq: int) -> MailboxItem:
    """``item.copy()`` with ``seq`` set, at a third of the cost (hot path)."""
    stored = MailboxItem(*_item_values(item))
    stored.seq = seq
    stored.payload = dict(item.payload)
    stored.metadata = dict(item.metadata)
    if item.session is not None:
        stored.session = dict(item.session)
    return stored


def encode_decision(d: Decision) -> Row:
    """The parameters of :data:`queries.INSERT_DECISION`."""
    return (
        d.id,
        d.agent_id,
        DecisionType(d.decision_type).value,
        d.item_id,
        json_text(d.context, f"decision {d.id!r}.context"),
        d.reasoning,
        d.outcome,
        encode_instant(d.created_at),
    )


def decode_decision(row: Row) -> Decision:
    """A :class:`Decision` from a row of :data:`queries.DECISION_COLUMNS`."""
    id_, agent_id, decision_type, item_id, reasoning, created_at, context, outcome, seq = row
    return Decision(
        id_,
        agent_id,
        DecisionType(decision_type),
        item_id,
        reasoning,
        _from_iso(created_at),
        _object_decode(context),
        outcome,
        seq,
    )


def encode_activity(a: Activity) -> Row:
    """The parameters of :data:`queries.INSERT_ACTIVITY`."""
    return (
        a.id,
        a.agent_id,
        a.item_id,
        a.type,
        a.label,
        encode_instant(a.started_at),
        a.task_id,
        instant_or_none(a.ended_at),
        a.total_tokens,
        a.total_tools,
        encode_bool(a.success),
    )


def decode_activity(row: Row) -> Activity:
    """An :class:`Activity` from a row of :data:`queries.ACTIVITY_COLUMNS`."""
    (id_, agent_id, item_id, type_, label, started_at, task_id, ended_at, tokens, tools,
     success) = row  # fmt: skip
    return Activity(
        id_,
        agent_id,
        item_id,
        type_,
        label,
        _from_iso(started_at),
        task_id,
        None if ended_at is None else _from_iso(ended_at),
        tokens,
        tools,
        bool(success),
    )


def encode_log(log: ActivityLog) -> Row:
    """The parameters of :data:`queries.INSERT_LOG`."""
    return (
        log.activity_id,
        log.seq,
        LogType(log.type).value,
        log.content,
        encode_instant(log.created_at),
        json_text(log.metadata, f"activity log {log.activity_id!r}#{log.seq}.metadata"),
    )


def decode_log(row: Row) -> ActivityLog:
    """An :class:`ActivityLog` from a row of :data:`queries.FIND_ACTIVITY_LOGS`."""
    activity_id, seq, type_, content, created_at, metadata = row
    return ActivityLog(
        activity_id, seq, LogType(type_), content, _from_iso(created_at), _object_decode(metadata)
    )


def _seconds_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def encode_callback(c: PendingCallback) -> Row:
    """The parameters of :data:`queries.INSERT_CALLBACK` for ``c``."""
    return (
        c.id,
        c.agent_id,
        CallbackType(c.type).value,
        DeliveryMode(c.delivery_mode).value,
        c.origin_session_id,
        c.command,
        c.note,
        c.correlation_id,
        instant_or_none(c.due_at),
        _seconds_or_none(c.recurring_s),
        encode_instant(c.registered_at),
        _seconds_or_none(c.timeout_s),
        CallbackStatus(c.status).value,
        c.claimed_by,
        instant_or_none(c.claimed_at),
        json_text(c.data, f"pending callback {c.id!r}.data"),
    )


def decode_callback(row: Row) -> PendingCallback:
    """A :class:`PendingCallback` from a row of :data:`queries.CALLBACK_COLUMNS`."""
    (id_, agent_id, type_, mode, origin, command, note, correlation, due_at, recurring_s,
     registered_at, timeout_s, status, claimed_by, claimed_at, data) = row  # fmt: skip
    return PendingCallback(
        id=id_,
        agent_id=agent_id,
        type=CallbackType(type_),
        delivery_mode=DeliveryMode(mode),
        registered_at=_from_iso(registered_at),
        origin_session_id=origin,
        command=command,
        note=note,
        correlation_id=correlation,
        due_at=None if due_at is None else _from_iso(due_at),
        recurring_s=recurring_s,
        timeout_s=timeout_s,
        status=CallbackStatus(status),
        claimed_by=claimed_by,
        claimed_at=None if claimed_at is None else _from_iso(claimed_at),
        data=_json_decode(data),
    )


#: How each column an update may set is encoded (checked by ``check_write`` before).
ITEM_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "priority": int,
    "status": lambda value: _STATUSES[value].value,
    "payload": lambda value: json_text(value, "payload"),
    "metadata": lambda value: json_text(value, "metadata"),
    "started_at": instant_or_none,
    "completed_at": instant_or_none,
    "deferred_until": instant_or_none,
    "merged_into": lambda value: value,
    "attempt": int,
    "redelivered": encode_bool,
    "session": lambda value: json_or_none(value, "session"),
    "reason": lambda value: value,
}
ACTIVITY_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "ended_at": instant_or_none,
    "total_tokens": int,
    "total_tools": int,
    "success": encode_bool,
    "label": lambda value: value,
}
CALLBACK_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "due_at": instant_or_none,
    "status": lambda value: CallbackStatus(value).value,
    "claimed_by": lambda value: value,
    "claimed_at": instant_or_none,
    "data": lambda value: json_text(value, "data"),
}
