"""Write ops as SQL: validated and encoded up front, applied inside one transaction.

:func:`plan_step` turns a :data:`~attn.store.base.WriteOp` into a :class:`Step`
(SQL plus encoded arguments) without touching the database, so malformed input
fails before a connection is taken. :func:`apply_step` runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

import asyncpg

from attn.errors import StoreError
from attn.models import MailboxItem
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
    PutAgentSetting,
    UpdateActivity,
    UpdateCallback,
    UpdateItem,
    WriteOp,
)
from attn.store.postgres import codec, queries

Connection: TypeAlias = (
    "asyncpg.Connection[asyncpg.Record] | asyncpg.pool.PoolConnectionProxy[asyncpg.Record]"
)


@dataclass(frozen=True, slots=True)
class Step:
    """One op ready to run: its kind, SQL and arguments (``rows`` for batches)."""

    kind: str
    sql: str
    #: True when the op is one statement, atomic without an explicit transaction.
    single: bool
    args: tuple[Any, ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()
    item: MailboxItem | None = None


def _update(
    table: str, key_value: str, values: dict[str, Any], allowed: frozenset[str], what: str
) -> tuple[str, tuple[Any, ...]]:
    bad = set(values) - allowed
    if bad:
        raise StoreError(f"cannot update {what} columns {sorted(bad)}")
    names = sorted(values)
    args = tuple(codec.encode_column(name, values[name], what) for name in names)
    return queries.update_statement(table, names), (key_value, *args)


def plan_step(op: WriteOp) -> Step:
    """Validate and encode ``op``.

    Raises:
        StoreError: unknown op type, a column that may not be updated, or a
            value of the wrong type (naive datetime, non-JSON payload, ...).
    """
    if isinstance(op, InsertItem):
        return Step(
            "insert_item", queries.INSERT_ITEM, True, codec.item_params(op.item), item=op.item
        )
    if isinstance(op, UpdateItem):
        what = f"mailbox item {op.item_id!r}"
        sql, args = _update("mailbox_items", op.item_id, op.values, ITEM_UPDATE_FIELDS, what)
        if op.only_if_status is not None:
            statuses = [codec.encode_column("status", s, what) for s in op.only_if_status]
            sql += f" AND status = ANY(${len(args) + 1}::text[])"
            args = (*args, statuses)
        return Step("update", sql, True, args)
    if isinstance(op, InsertDecision):
        return Step("execute", queries.INSERT_DECISION, True, codec.decision_params(op.decision))
    if isinstance(op, InsertActivity):
        return Step("execute", queries.INSERT_ACTIVITY, True, codec.activity_params(op.activity))
    if isinstance(op, UpdateActivity):
        what = f"activity {op.activity_id!r}"
        sql, args = _update(
            "agent_activities", op.activity_id, op.values, ACTIVITY_UPDATE_FIELDS, what
        )
        return Step("update", sql, True, args)
    if isinstance(op, InsertLogs):
        rows = tuple(codec.log_params(log) for log in op.logs)
        return Step("many", queries.INSERT_LOG, len(rows) <= 1, rows=rows)
    if isinstance(op, InsertCallback):
        return Step("execute", queries.INSERT_CALLBACK, True, codec.callback_params(op.callback))
    if isinstance(op, UpdateCallback):
        return _update_callback(op)
    if isinstance(op, DeleteCallback):
        what = f"pending callback {op.callback_id!r}"
        key = (_required_text(op.callback_id, what), _required_text(op.agent_id, what))
        if op.only_if_status is None:
            return Step("update", queries.DELETE_CALLBACK, True, key)
        statuses = [codec.encode_callback_column("status", s, what) for s in op.only_if_status]
        guarded = queries.DELETE_CALLBACK + " AND status = ANY($3::text[])"
        return Step("update", guarded, True, (*key, statuses))
    if isinstance(op, PutAgentSetting):
        what = f"agent setting {op.name!r} of {op.agent_id!r}"
        args = (
            _required_text(op.agent_id, what),
            _required_text(op.name, what),
            codec.dump_json(op.value, what),
            codec.instant(op.updated_at, f"{what}.updated_at", nullable=False),
        )
        return Step("execute", queries.PUT_SETTING, True, args)
    raise StoreError(f"unknown write op {type(op).__name__}")


def _required_text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise StoreError(f"{what}: expected text, got {value!r}")
    return value


def _update_callback(op: UpdateCallback) -> Step:
    what = f"pending callback {op.callback_id!r}"
    bad = set(op.values) - CALLBACK_UPDATE_FIELDS
    if bad:
        raise StoreError(f"cannot update {what} columns {sorted(bad)}")
    names = sorted(op.values)
    args: tuple[Any, ...] = (
        _required_text(op.callback_id, what),
        _required_text(op.agent_id, what),
        *(codec.encode_callback_column(name, op.values[name], what) for name in names),
    )
    sql = queries.update_callback_statement(names)
    if op.only_if_status is not None:
        statuses = [codec.encode_callback_column("status", s, what) for s in op.only_if_status]
        sql += f" AND status = ANY(${len(args) + 1}::text[])"
        args = (*args, statuses)
    if op.only_if_due_at is not None:
        sql += f" AND due_at = ${len(args) + 1}"
        args = (*args, codec.encode_callback_column("due_at", op.only_if_due_at, what))
    return Step("update", sql, True, args)


async def apply_step(conn: Connection, step: Step) -> Any:
    """Run ``step`` on ``conn``, inside the caller's transaction unless ``step.single``.

    Returns:
        The op's result as :mod:`attn.store.base` defines it.
    """
    item = step.item
    if item is not None:
        seq = await conn.fetchval(step.sql, *step.args)
        if seq is not None:
            stored = item.copy()
            stored.seq = seq
            return (stored, True)
        row = await conn.fetchrow(
            queries.SELECT_BY_IDEMPOTENCY_KEY, item.agent_id, item.idempotency_key
        )
        if row is None:
            raise StoreError(
                f"mailbox item {item.id!r}: idempotency key {item.idempotency_key!r}"
                " conflicted but no item holds it"
            )
        return (codec.row_to_item(row), False)
    if step.kind == "update":
        status = await conn.execute(step.sql, *step.args)
        return status.rsplit(" ", 1)[-1] != "0"
    if step.kind == "many":
        if step.rows:
            await conn.executemany(step.sql, step.rows)
        return None
    await conn.execute(step.sql, *step.args)
    return None
