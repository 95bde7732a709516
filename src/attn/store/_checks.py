"""The rules every store applies to its input, written once above the backends.

Each backend calls :func:`check_write` at its single write entry point
(``write`` and ``submit``) before it encodes or applies anything, and the read
checks (:func:`check_page`, :func:`check_statuses`, :func:`check_query`,
:func:`check_claim`) at its reads, so memory, SQLite and PostgreSQL refuse the
same input with the same error. JSON values keep :mod:`attn.limits` (finite
numbers, 64-bit integers, at most 32 levels deep); whether a value is JSON at
all is the encoder's business: :func:`attn.store._values.json_text`, which the
SQL backends call while encoding. The rules of single values live in
:mod:`attn.store._values`.

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes
nothing); 000 §6.2 (columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attn.errors import InvalidInput, StoreError
from attn.limits import MAX_JSON_INT, MIN_JSON_INT, check_int
from attn.models import ItemStatus
from attn.store._channels import check_channel_op
from attn.store._people import PEOPLE_OPS, check_people_op
from attn.store._tree import check_tree_op
from attn.store._values import (
    ACTIVITY_COLUMNS,
    ACTIVITY_FIELDS,
    CALLBACK_COLUMNS,
    CALLBACK_FIELDS,
    CALLBACK_STATUS,
    DECISION_FIELDS,
    INSTANT,
    INSTANT_OR_NONE,
    ITEM_COLUMNS,
    ITEM_STATUS,
    JSON,
    LOG_FIELDS,
    MEMORY_FIELDS,
    TEXT,
    check_columns,
    check_fields,
    check_guard,
    check_item,
    check_key,
    json_text,
)
from attn.store.base import (
    DeleteCallback,
    DeleteMemory,
    InsertActivity,
    InsertCallback,
    InsertChannelMessage,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    PutAgentSetting,
    PutChannel,
    PutDelegation,
    PutTreeAgent,
    SaveMemory,
    SetDeliveries,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)


def _decision_label(decision: Any) -> str:
    return f"decision {decision.id!r}"


def _activity_label(activity: Any) -> str:
    return f"activity {activity.id!r}"


def _log_label(log: Any) -> str:
    return f"activity log {log.activity_id!r}#{log.seq}"


def _callback_label(callback: Any) -> str:
    return f"pending callback {callback.id!r}"


def _memory_label(memory: Any) -> str:
    return f"memory {memory.id!r}"


def _check_op(op: WriteOp) -> None:
    if isinstance(op, InsertItem):
        check_item(op.item, op.encoded is not None)
    elif isinstance(op, UpdateItem):
        check_key("mailbox item", op.item_id)
        check_columns(op.values, ITEM_COLUMNS, "mailbox item", op.item_id)
        check_guard(op.only_if_status, ITEM_STATUS, "mailbox item", op.item_id)
    elif isinstance(op, InsertDecision):
        check_fields(op.decision, DECISION_FIELDS, _decision_label)
    elif isinstance(op, InsertActivity):
        check_fields(op.activity, ACTIVITY_FIELDS, _activity_label)
    elif isinstance(op, UpdateActivity):
        check_key("activity", op.activity_id)
        check_columns(op.values, ACTIVITY_COLUMNS, "activity", op.activity_id)
    elif isinstance(op, InsertLogs):
        for log in op.logs:
            check_fields(log, LOG_FIELDS, _log_label)
    elif isinstance(op, InsertCallback):
        check_fields(op.callback, CALLBACK_FIELDS, _callback_label)
    elif isinstance(op, UpdateCallback | DeleteCallback):
        kind, key = "pending callback", op.callback_id
        check_key(kind, key)
        if not TEXT.ok(op.agent_id):
            TEXT.refuse(op.agent_id, f"{kind} {key!r}.agent_id")
        check_guard(op.only_if_status, CALLBACK_STATUS, kind, key)
        if isinstance(op, UpdateCallback):
            check_columns(op.values, CALLBACK_COLUMNS, kind, key)
            if not INSTANT_OR_NONE.ok(op.only_if_due_at):
                INSTANT_OR_NONE.refuse(op.only_if_due_at, f"{kind} {key!r} due_at guard")
    elif isinstance(op, PutAgentSetting):
        label = f"agent setting {op.name!r} of {op.agent_id!r}"
        TEXT.check(op.agent_id, f"{label}: agent_id")
        TEXT.check(op.name, f"{label}: name")
        JSON.check(op.value, label)
        INSTANT.check(op.updated_at, f"{label}.updated_at")
    elif isinstance(op, SaveMemory):
        check_fields(op.memory, MEMORY_FIELDS, _memory_label)
    elif isinstance(op, DeleteMemory):
        check_key("memory", op.memory_id)
        TEXT.check(op.agent_id, f"memory {op.memory_id!r}.agent_id")
    elif isinstance(op, PutChannel | InsertChannelMessage | SetDeliveries | PutDelegation):
        check_channel_op(op)
    elif isinstance(op, PutTreeAgent):
        check_tree_op(op)
    elif isinstance(op, PEOPLE_OPS):
        check_people_op(op)
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
        InvalidInput: a :class:`~attn.store.ops.PutTreeAgent`'s node breaks
            its rules (:func:`attn.store._tree.check_tree_agent`), or a people
            op breaks its rules (:func:`attn.store._people.check_people_op`).
    """
    kind: type = type(ops)
    # The common list or tuple skips the slower ABC check.
    if (
        kind is not list
        and kind is not tuple
        and (isinstance(ops, str | bytes) or not isinstance(ops, Sequence))
    ):
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
    """Refuse an item query with a negative page, an unknown status or a bad cursor.

    Raises:
        InvalidInput: a negative limit or offset, an unknown status, or a cursor
            that is not None or an int in range (see :func:`check_cursors`).
    """
    check_page(query.limit, query.offset)
    check_statuses(query.statuses)
    check_cursors(query)


def check_cursors(query: ItemQuery) -> None:
    """Refuse an item query's ``before_seq`` or ``after_seq`` unless it is None or
    an int (not a bool): ``after_seq`` 0 .. 2**63-1, ``before_seq`` 64-bit signed.

    Raises:
        InvalidInput: naming the cursor and the value, e.g.
            ``"after_seq must be an integer from 0 to 9,223,372,036,854,775,807, got -1"``.
    """
    if query.after_seq is not None:
        check_int(query.after_seq, "after_seq", low=0, high=MAX_JSON_INT)
    if query.before_seq is not None:
        check_int(query.before_seq, "before_seq", low=MIN_JSON_INT, high=MAX_JSON_INT)


_ITEM_STATUS_VALUES = frozenset(s.value for s in ItemStatus)


def check_claim(now: Any, claimed_by: Any, limit: Any, stale_before: Any) -> None:
    """Check the arguments of :meth:`~attn.store.base.Store.claim_due_callbacks`.

    Raises:
        InvalidInput: ``limit`` is not an integer >= 1.
        StoreError: a naive instant, or ``claimed_by`` is not text.
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
    INSTANT.check(now, "now")
    INSTANT_OR_NONE.check(stale_before, "stale_before")
    TEXT.check(claimed_by, "claimed_by")


def check_instant(value: Any, what: str) -> None:
    """Refuse anything but a timezone-aware datetime (``claim_next``'s ``started_at``).

    Raises:
        StoreError: naming ``what``.
    """
    INSTANT.check(value, what)
