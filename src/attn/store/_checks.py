"""The rules every store applies to its input, written once above the backends.

Each backend calls :func:`check_write` at its single write entry point
(``write`` and ``submit``) before it encodes or applies anything, and the read
checks (:func:`check_page`, :func:`check_statuses`, :func:`check_claim`) at its
reads, so memory, SQLite and PostgreSQL refuse the same input with the same
error. JSON values keep :mod:`attn.limits` (finite numbers, 64-bit integers,
at most 32 levels deep); whether a value is JSON at all is the encoder's
business: :func:`json_text`, which the SQL backends call while encoding.

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes
nothing); 000 §6.2 (columns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from attn.errors import InvalidInput, StoreError
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
from attn.store.base import (
    ACTIVITY_UPDATE_FIELDS,
    CALLBACK_UPDATE_FIELDS,
    ITEM_UPDATE_FIELDS,
    DeleteCallback,
    InsertActivity,
    InsertCallback,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    PutAgentSetting,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)

_Check = Callable[[Any, str], None]


def json_text(value: Any, what: str) -> str:
    """``value`` as compact JSON text (:func:`attn.jsontext.dumps`).

    Raises:
        StoreError: ``value`` is not JSON-serializable (``what`` names the field).
    """
    try:
        return dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StoreError(f"{what} is not JSON-serializable: {exc}") from exc


def _json(value: Any, what: str) -> None:
    problem = json_problem(value)
    if problem is not None:
        raise StoreError(f"{what}: {problem}")


def _object(value: Any, what: str) -> None:
    if type(value) is not dict and not isinstance(value, dict):
        raise StoreError(f"{what} must be a JSON object, got {type(value).__name__}")
    _json(value, what)


def _object_or_none(value: Any, what: str) -> None:
    if value is not None:
        _object(value, what)


def _instant(value: Any, what: str) -> None:
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise StoreError(f"{what} must be a timezone-aware datetime, got {value!r}")


def _instant_or_none(value: Any, what: str) -> None:
    if value is not None:
        _instant(value, what)


def _int(value: Any, what: str) -> None:
    if type(value) is not int:
        raise StoreError(f"{what} must be an integer, got {value!r}")


def _bool(value: Any, what: str) -> None:
    if type(value) is not bool:
        raise StoreError(f"{what} must be a bool, got {value!r}")


def _text(value: Any, what: str) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise StoreError(f"{what} must be text, got {value!r}")


def _text_or_none(value: Any, what: str) -> None:
    if value is not None:
        _text(value, what)


def _seconds_or_none(value: Any, what: str) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or json_problem(value):
        raise StoreError(f"{what} must be a finite number of seconds or None, got {value!r}")


def _enum(cls: type[StrEnum]) -> _Check:
    values = frozenset(member.value for member in cls)

    def check(value: Any, what: str) -> None:
        if value not in values or not isinstance(value, str):
            raise StoreError(f"{what}: unknown value {value!r}; expected one of {sorted(values)}")

    return check


_item_status = _enum(ItemStatus)
_callback_status = _enum(CallbackStatus)

#: How each column an update may set is checked.
_ITEM_COLUMNS: dict[str, _Check] = {
    "priority": _int,
    "status": _item_status,
    "payload": _object,
    "metadata": _object,
    "started_at": _instant_or_none,
    "completed_at": _instant_or_none,
    "deferred_until": _instant_or_none,
    "merged_into": _text_or_none,
    "attempt": _int,
    "redelivered": _bool,
    "session": _object_or_none,
    "reason": _text_or_none,
}
_ACTIVITY_COLUMNS: dict[str, _Check] = {
    "ended_at": _instant_or_none,
    "total_tokens": _int,
    "total_tools": _int,
    "success": _bool,
    "label": _text,
}
_CALLBACK_COLUMNS: dict[str, _Check] = {
    "due_at": _instant_or_none,
    "status": _callback_status,
    "claimed_by": _text_or_none,
    "claimed_at": _instant_or_none,
    "data": _object,
}
assert _ITEM_COLUMNS.keys() == ITEM_UPDATE_FIELDS
assert _ACTIVITY_COLUMNS.keys() == ACTIVITY_UPDATE_FIELDS
assert _CALLBACK_COLUMNS.keys() == CALLBACK_UPDATE_FIELDS


def _columns(values: Any, checks: dict[str, _Check], what: str) -> None:
    if not isinstance(values, dict):
        raise StoreError(f"{what}: expected a dict of column values, got {type(values).__name__}")
    if not values.keys() <= checks.keys():
        bad = sorted(str(name) for name in values if name not in checks)
        raise StoreError(f"cannot update {what} columns {bad}; allowed: {sorted(checks)}")
    for name, value in values.items():
        checks[name](value, f"{what}.{name}")


def _guard(statuses: Any, check: _Check, what: str) -> None:
    if statuses is not None:
        for status in statuses:
            check(status, f"{what} status guard")


def _check_item(item: MailboxItem, json_checked: bool) -> None:
    what = f"mailbox item {item.id!r}"
    _text(item.id, f"{what}.id")
    _text(item.agent_id, f"{what}.agent_id")
    _text(item.source_type, f"{what}.source_type")
    _int(item.priority, f"{what}.priority")
    _item_status(item.status, f"{what}.status")
    if json_checked and type(item.payload) is dict and type(item.metadata) is dict:
        pass  # the caller checked and encoded them (InsertItem.encoded)
    else:
        _object(item.payload, f"{what}.payload")
        _object(item.metadata, f"{what}.metadata")
    _instant(item.queued_at, f"{what}.queued_at")
    _instant_or_none(item.started_at, f"{what}.started_at")
    _instant_or_none(item.completed_at, f"{what}.completed_at")
    _instant_or_none(item.deferred_until, f"{what}.deferred_until")
    _text_or_none(item.merged_into, f"{what}.merged_into")
    _int(item.attempt, f"{what}.attempt")
    _bool(item.redelivered, f"{what}.redelivered")
    _text_or_none(item.idempotency_key, f"{what}.idempotency_key")
    _object_or_none(item.session, f"{what}.session")
    _text_or_none(item.reason, f"{what}.reason")


def _check_decision(decision: Decision) -> None:
    what = f"decision {decision.id!r}"
    _text(decision.id, f"{what}.id")
    _text(decision.agent_id, f"{what}.agent_id")
    _enum_decision(decision.decision_type, f"{what}.decision_type")
    _text(decision.item_id, f"{what}.item_id")
    _text(decision.reasoning, f"{what}.reasoning")
    _instant(decision.created_at, f"{what}.created_at")
    _object(decision.context, f"{what}.context")
    _text_or_none(decision.outcome, f"{what}.outcome")


def _check_activity(activity: Activity) -> None:
    what = f"activity {activity.id!r}"
    _text(activity.id, f"{what}.id")
    _text(activity.agent_id, f"{what}.agent_id")
    _text_or_none(activity.item_id, f"{what}.item_id")
    _text(activity.type, f"{what}.type")
    _text(activity.label, f"{what}.label")
    _instant(activity.started_at, f"{what}.started_at")
    _text_or_none(activity.task_id, f"{what}.task_id")
    _instant_or_none(activity.ended_at, f"{what}.ended_at")
    _int(activity.total_tokens, f"{what}.total_tokens")
    _int(activity.total_tools, f"{what}.total_tools")
    _bool(activity.success, f"{what}.success")


def _check_log(log: ActivityLog) -> None:
    what = f"activity log {log.activity_id!r}#{log.seq}"
    _text(log.activity_id, f"{what}.activity_id")
    _int(log.seq, f"{what}.seq")
    _enum_log(log.type, f"{what}.type")
    _text(log.content, f"{what}.content")
    _instant(log.created_at, f"{what}.created_at")
    _object(log.metadata, f"{what}.metadata")


def _check_callback(c: PendingCallback) -> None:
    what = f"pending callback {c.id!r}"
    _text(c.id, f"{what}.id")
    _text(c.agent_id, f"{what}.agent_id")
    _enum_callback_type(c.type, f"{what}.type")
    _enum_delivery(c.delivery_mode, f"{what}.delivery_mode")
    _instant(c.registered_at, f"{what}.registered_at")
    for name in ("origin_session_id", "command", "note", "correlation_id", "claimed_by"):
        _text_or_none(getattr(c, name), f"{what}.{name}")
    _instant_or_none(c.due_at, f"{what}.due_at")
    _instant_or_none(c.claimed_at, f"{what}.claimed_at")
    _seconds_or_none(c.recurring_s, f"{what}.recurring_s")
    _seconds_or_none(c.timeout_s, f"{what}.timeout_s")
    _callback_status(c.status, f"{what}.status")
    _object(c.data, f"{what}.data")


_enum_decision = _enum(DecisionType)
_enum_log = _enum(LogType)
_enum_callback_type = _enum(CallbackType)
_enum_delivery = _enum(DeliveryMode)


def _check_op(op: WriteOp) -> None:
    if isinstance(op, InsertItem):
        _check_item(op.item, op.encoded is not None)
    elif isinstance(op, UpdateItem):
        what = f"mailbox item {op.item_id!r}"
        _text(op.item_id, f"{what} id")
        _columns(op.values, _ITEM_COLUMNS, what)
        _guard(op.only_if_status, _item_status, what)
    elif isinstance(op, InsertDecision):
        _check_decision(op.decision)
    elif isinstance(op, InsertActivity):
        _check_activity(op.activity)
    elif isinstance(op, UpdateActivity):
        what = f"activity {op.activity_id!r}"
        _text(op.activity_id, f"{what} id")
        _columns(op.values, _ACTIVITY_COLUMNS, what)
    elif isinstance(op, InsertLogs):
        for log in op.logs:
            _check_log(log)
    elif isinstance(op, InsertCallback):
        _check_callback(op.callback)
    elif isinstance(op, UpdateCallback):
        what = f"pending callback {op.callback_id!r}"
        _text(op.callback_id, f"{what} id")
        _text(op.agent_id, f"{what}.agent_id")
        _columns(op.values, _CALLBACK_COLUMNS, what)
        _guard(op.only_if_status, _callback_status, what)
        _instant_or_none(op.only_if_due_at, f"{what} due_at guard")
    elif isinstance(op, DeleteCallback):
        what = f"pending callback {op.callback_id!r}"
        _text(op.callback_id, f"{what} id")
        _text(op.agent_id, f"{what}.agent_id")
        _guard(op.only_if_status, _callback_status, what)
    elif isinstance(op, PutAgentSetting):
        what = f"agent setting {op.name!r} of {op.agent_id!r}"
        _text(op.agent_id, f"{what}: agent_id")
        _text(op.name, f"{what}: name")
        _json(op.value, what)
        _instant(op.updated_at, f"{what}.updated_at")
    else:
        raise StoreError(f"unknown write op {type(op).__name__}")


_ITEM_JSON_COLUMNS = ("payload", "metadata", "session")


def _json_values(op: WriteOp) -> list[tuple[Any, str]]:
    if isinstance(op, InsertItem):
        what = f"mailbox item {op.item.id!r}"
        return [(op.item.payload, f"{what}.payload"), (op.item.metadata, f"{what}.metadata"),
                (op.item.session, f"{what}.session")]  # fmt: skip
    if isinstance(op, UpdateItem):
        what = f"mailbox item {op.item_id!r}"
        return [(op.values[k], f"{what}.{k}") for k in _ITEM_JSON_COLUMNS if k in op.values]
    if isinstance(op, UpdateCallback) and "data" in op.values:
        return [(op.values["data"], f"pending callback {op.callback_id!r}.data")]
    if isinstance(op, InsertDecision):
        return [(op.decision.context, f"decision {op.decision.id!r}.context")]
    if isinstance(op, InsertLogs):
        return [(log.metadata, f"activity log {log.activity_id!r}#{log.seq}") for log in op.logs]
    if isinstance(op, InsertCallback):
        return [(op.callback.data, f"pending callback {op.callback.id!r}.data")]
    if isinstance(op, PutAgentSetting):
        return [(op.value, f"agent setting {op.name!r} of {op.agent_id!r}")]
    return []


def check_write(ops: Sequence[WriteOp], *, serializable: bool = False) -> None:
    """Check every op of one ``write`` or ``submit`` call before any is applied.

    Checks the op types, the columns an update may set, the type of every
    value, that instants are timezone-aware, that statuses and types are known
    values and that JSON values are objects where a column holds one and keep
    :mod:`attn.limits`. The payload and metadata of an :class:`InsertItem`
    with ``encoded`` set were checked by the caller and are not checked again.
    Uniqueness (a repeated item id) is the backend's, as a database would.

    Args:
        ops: the ops of the call.
        serializable: also encode every JSON value once to prove it is JSON
            (for the memory store, which encodes nothing; the SQL backends
            find out while encoding, through :func:`json_text`).

    Raises:
        StoreError: ``ops`` is not a sequence of write ops, or an op breaks
            a rule; the message names the record and the field.
    """
    if isinstance(ops, str | bytes) or not isinstance(ops, Sequence):
        raise StoreError(f"write expects a sequence of write ops, got {type(ops).__name__}")
    for op in ops:
        _check_op(op)
    if serializable:
        for op in ops:
            for value, what in _json_values(op):
                json_text(value, what)


def check_page(limit: int, offset: int) -> None:
    """Refuse a negative page size or offset of a read.

    Raises:
        InvalidInput: ``limit`` or ``offset`` is negative.
    """
    if limit < 0 or offset < 0:
        raise InvalidInput(f"limit and offset must be >= 0, got {limit} and {offset}")


def check_statuses(statuses: Sequence[Any] | None) -> None:
    """Refuse an unknown item status in a query's filter.

    Raises:
        InvalidInput: naming the filter and the unknown status.
    """
    for status in statuses or ():
        if status not in _ITEM_STATUS_VALUES or not isinstance(status, str):
            raise InvalidInput(f"unknown status in {statuses!r}: {status!r}")


def check_query(query: ItemQuery) -> None:
    """Refuse an item query with a negative page or an unknown status.

    Raises:
        InvalidInput: a negative limit or offset, or an unknown status.
    """
    check_page(query.limit, query.offset)
    check_statuses(query.statuses)


_ITEM_STATUS_VALUES = frozenset(s.value for s in ItemStatus)


def check_instant(value: Any, what: str) -> None:
    """Refuse anything but a timezone-aware datetime (e.g. ``claim_next``'s ``started_at``).

    Raises:
        StoreError: naming ``what``.
    """
    _instant(value, what)


def check_claim(now: Any, claimed_by: Any, limit: Any, stale_before: Any) -> None:
    """Check the arguments of :meth:`~attn.store.base.Store.claim_due_callbacks`.

    Raises:
        InvalidInput: ``limit`` is not an integer >= 1.
        StoreError: a naive instant, or ``claimed_by`` is not text.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
    _instant(now, "now")
    _instant_or_none(stale_before, "stale_before")
    _text(claimed_by, "claimed_by")
