"""The value rules of the store's input, one checker per kind of field and record.

Each checker raises :class:`~attn.errors.StoreError` naming the field (``what``).
Used by :mod:`attn.store._checks`, which applies them to whole write ops.
Spec: DESIGN.md invariant 10; 000 §6.2 (columns).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import Any

from attn.errors import StoreError
from attn.jsontext import dumps
from attn.limits import json_problem
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
from attn.store.base import ACTIVITY_UPDATE_FIELDS, CALLBACK_UPDATE_FIELDS, ITEM_UPDATE_FIELDS

Check = Callable[[Any, str], None]


def json_text(value: Any, what: str) -> str:
    """``value`` as compact JSON text (:func:`attn.jsontext.dumps`).

    Raises:
        StoreError: ``value`` is not JSON-serializable (``what`` names the field).
    """
    try:
        return dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def check_json(value: Any, what: str) -> None:
    """Refuse a JSON value that breaks :mod:`attn.limits` (NaN, infinities, depth, 64 bits)."""
    problem = json_problem(value)
    if problem is not None:
        raise StoreError(f"{what}: {problem}")


def check_object(value: Any, what: str) -> None:
    """Refuse anything but a JSON object (a dict) that keeps :mod:`attn.limits`."""
    if type(value) is not dict and not isinstance(value, dict):
        raise StoreError(f"{what} must be a JSON object, got {type(value).__name__}")
    check_json(value, what)


def check_object_or_none(value: Any, what: str) -> None:
    """:func:`check_object`, or None."""
    if value is not None:
        check_object(value, what)


def check_instant(value: Any, what: str) -> None:
    """Refuse anything but a timezone-aware datetime."""
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise StoreError(f"{what} must be a timezone-aware datetime, got {value!r}")


def check_instant_or_none(value: Any, what: str) -> None:
    """:func:`check_instant`, or None."""
    if value is not None:
        check_instant(value, what)


def check_int(value: Any, what: str) -> None:
    """Refuse anything but an int (bools are not)."""
    if type(value) is not int:
        raise StoreError(f"{what} must be an integer, got {value!r}")


def check_bool(value: Any, what: str) -> None:
    """Refuse anything but a bool."""
    if type(value) is not bool:
        raise StoreError(f"{what} must be a bool, got {value!r}")


def check_text(value: Any, what: str) -> None:
    """Refuse anything but a str."""
    if type(value) is not str and not isinstance(value, str):
        raise StoreError(f"{what} must be text, got {value!r}")


def check_text_or_none(value: Any, what: str) -> None:
    """:func:`check_text`, or None."""
    if value is not None:
        check_text(value, what)


def check_seconds_or_none(value: Any, what: str) -> None:
    """Refuse anything but a finite number of seconds, or None."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or json_problem(value):
        raise StoreError(f"{what} must be a finite number of seconds or None, got {value!r}")


def enum_check(cls: type[StrEnum]) -> Check:
    """A checker refusing anything but a value of ``cls``."""
    values = frozenset(member.value for member in cls)

    def check(value: Any, what: str) -> None:
        if value not in values or not isinstance(value, str):
            raise StoreError(f"{what}: unknown value {value!r}; expected one of {sorted(values)}")

    return check


check_item_status = enum_check(ItemStatus)
check_callback_status = enum_check(CallbackStatus)

#: How each column an update may set is checked.
ITEM_COLUMNS: dict[str, Check] = {
    "priority": check_int,
    "status": check_item_status,
    "payload": check_object,
    "metadata": check_object,
    "started_at": check_instant_or_none,
    "completed_at": check_instant_or_none,
    "deferred_until": check_instant_or_none,
    "merged_into": check_text_or_none,
    "attempt": check_int,
    "redelivered": check_bool,
    "session": check_object_or_none,
    "reason": check_text_or_none,
}
ACTIVITY_COLUMNS: dict[str, Check] = {
    "ended_at": check_instant_or_none,
    "total_tokens": check_int,
    "total_tools": check_int,
    "success": check_bool,
    "label": check_text,
}
CALLBACK_COLUMNS: dict[str, Check] = {
    "due_at": check_instant_or_none,
    "status": check_callback_status,
    "claimed_by": check_text_or_none,
    "claimed_at": check_instant_or_none,
    "data": check_object,
}
assert ITEM_COLUMNS.keys() == ITEM_UPDATE_FIELDS
assert ACTIVITY_COLUMNS.keys() == ACTIVITY_UPDATE_FIELDS
assert CALLBACK_COLUMNS.keys() == CALLBACK_UPDATE_FIELDS


def check_columns(values: Any, checks: dict[str, Check], what: str) -> None:
    """Refuse columns an update may not set, and values of the wrong kind."""
    if not isinstance(values, dict):
        raise StoreError(f"{what}: expected a dict of column values, got {type(values).__name__}")
    if not values.keys() <= checks.keys():
        bad = sorted(str(name) for name in values if name not in checks)
        raise StoreError(f"cannot update {what} columns {bad}; allowed: {sorted(checks)}")
    for name, value in values.items():
        checks[name](value, f"{what}.{name}")


def check_guard(statuses: Any, check: Check, what: str) -> None:
    """Refuse unknown statuses in a status guard (``only_if_status``)."""
    if statuses is not None:
        for status in statuses:
            check(status, f"{what} status guard")


def check_item(item: MailboxItem, json_checked: bool) -> None:
    """Check every field of a mailbox item (payload and metadata unless ``json_checked``)."""
    what = f"mailbox item {item.id!r}"
    check_text(item.id, f"{what}.id")
    check_text(item.agent_id, f"{what}.agent_id")
    check_text(item.source_type, f"{what}.source_type")
    check_int(item.priority, f"{what}.priority")
    check_item_status(item.status, f"{what}.status")
    if json_checked and type(item.payload) is dict and type(item.metadata) is dict:
        pass  # the caller checked and encoded them (InsertItem.encoded)
    else:
        check_object(item.payload, f"{what}.payload")
        check_object(item.metadata, f"{what}.metadata")
    check_instant(item.queued_at, f"{what}.queued_at")
    check_instant_or_none(item.started_at, f"{what}.started_at")
    check_instant_or_none(item.completed_at, f"{what}.completed_at")
    check_instant_or_none(item.deferred_until, f"{what}.deferred_until")
    check_text_or_none(item.merged_into, f"{what}.merged_into")
    check_int(item.attempt, f"{what}.attempt")
    check_bool(item.redelivered, f"{what}.redelivered")
    check_text_or_none(item.idempotency_key, f"{what}.idempotency_key")
    check_object_or_none(item.session, f"{what}.session")
    check_text_or_none(item.reason, f"{what}.reason")


def check_decision(decision: Decision) -> None:
    """Check every field of a decision."""
    what = f"decision {decision.id!r}"
    check_text(decision.id, f"{what}.id")
    check_text(decision.agent_id, f"{what}.agent_id")
    _decision_type(decision.decision_type, f"{what}.decision_type")
    check_text(decision.item_id, f"{what}.item_id")
    check_text(decision.reasoning, f"{what}.reasoning")
    check_instant(decision.created_at, f"{what}.created_at")
    check_object(decision.context, f"{what}.context")
    check_text_or_none(decision.outcome, f"{what}.outcome")


def check_activity(activity: Activity) -> None:
    """Check every field of an activity."""
    what = f"activity {activity.id!r}"
    check_text(activity.id, f"{what}.id")
    check_text(activity.agent_id, f"{what}.agent_id")
    check_text_or_none(activity.item_id, f"{what}.item_id")
    check_text(activity.type, f"{what}.type")
    check_text(activity.label, f"{what}.label")
    check_instant(activity.started_at, f"{what}.started_at")
    check_text_or_none(activity.task_id, f"{what}.task_id")
    check_instant_or_none(activity.ended_at, f"{what}.ended_at")
    check_int(activity.total_tokens, f"{what}.total_tokens")
    check_int(activity.total_tools, f"{what}.total_tools")
    check_bool(activity.success, f"{what}.success")


def check_log(log: ActivityLog) -> None:
    """Check every field of an activity log entry."""
    what = f"activity log {log.activity_id!r}#{log.seq}"
    check_text(log.activity_id, f"{what}.activity_id")
    check_int(log.seq, f"{what}.seq")
    _log_type(log.type, f"{what}.type")
    check_text(log.content, f"{what}.content")
    check_instant(log.created_at, f"{what}.created_at")
    check_object(log.metadata, f"{what}.metadata")


def check_callback(c: PendingCallback) -> None:
    """Check every field of a pending callback."""
    what = f"pending callback {c.id!r}"
    check_text(c.id, f"{what}.id")
    check_text(c.agent_id, f"{what}.agent_id")
    _callback_type(c.type, f"{what}.type")
    _delivery_mode(c.delivery_mode, f"{what}.delivery_mode")
    check_instant(c.registered_at, f"{what}.registered_at")
    for name in ("origin_session_id", "command", "note", "correlation_id", "claimed_by"):
        check_text_or_none(getattr(c, name), f"{what}.{name}")
    check_instant_or_none(c.due_at, f"{what}.due_at")
    check_instant_or_none(c.claimed_at, f"{what}.claimed_at")
    check_seconds_or_none(c.recurring_s, f"{what}.recurring_s")
    check_seconds_or_none(c.timeout_s, f"{what}.timeout_s")
    check_callback_status(c.status, f"{what}.status")
    check_object(c.data, f"{what}.data")


_decision_type = enum_check(DecisionType)
_log_type = enum_check(LogType)
_callback_type = enum_check(CallbackType)
_delivery_mode = enum_check(DeliveryMode)
