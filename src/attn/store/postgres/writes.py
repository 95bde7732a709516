r"""Write ops as SQL: encoded up front, applied inside one transaction.

:func:`compile_ops` turns the :data:`~attn.store.base.WriteOp`\ s of one call,
checked by :func:`attn.store._checks.check_write`, into :class:`Step`\ s (SQL
plus encoded arguments) without touching the database, so malformed input
fails before a connection is taken. :func:`apply_step` runs one, after
:func:`lock_item_agents` opened the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import asyncpg

from attn.errors import StoreError
from attn.models import MailboxItem, Memory
from attn.store._people import PEOPLE_OPS
from attn.store._values import json_text
from attn.store.base import (
    DeleteCallback,
    DeleteMemory,
    InsertActivity,
    InsertCallback,
    InsertChannelMessage,
    InsertDecision,
    InsertItem,
    InsertLogs,
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
from attn.store.postgres import channels, codec, memories, people, queries, tree

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
    memory: Memory | None = None
    #: Runs the op's own statements and answers its result (channel, tree and people writes).
    call: channels.Call | None = None


def _update(
    table: str, key_value: str, values: dict[str, Any], what: str
) -> tuple[str, tuple[Any, ...]]:
    names = sorted(values)
    args = tuple(codec.encode_column(name, values[name], what) for name in names)
    return queries.update_statement(table, names), (key_value, *args)


def compile_ops(ops: Sequence[WriteOp]) -> list[Step]:
    """Encode every op of one checked ``write`` call.

    Raises:
        StoreError: a JSON value is not JSON-serializable; nothing is sent.
    """
    return [_compile(op) for op in ops]


def _compile(op: WriteOp) -> Step:
    if isinstance(op, InsertItem):
        # Not single: the transaction first takes the agent's lock (lock_item_agents).
        return Step(
            "insert_item", queries.INSERT_ITEM, False, codec.encode_item(op.item), item=op.item
        )
    if isinstance(op, UpdateItem):
        what = f"mailbox item {op.item_id!r}"
        sql, args = _update("mailbox_items", op.item_id, op.values, what)
        if op.only_if_status is not None:
            statuses = [codec.encode_column("status", s, what) for s in op.only_if_status]
            sql += f" AND status = ANY(${len(args) + 1}::text[])"
            args = (*args, statuses)
        return Step("update", sql, True, args)
    if isinstance(op, InsertDecision):
        return Step("execute", queries.INSERT_DECISION, True, codec.encode_decision(op.decision))
    if isinstance(op, InsertActivity):
        return Step("execute", queries.INSERT_ACTIVITY, True, codec.encode_activity(op.activity))
    if isinstance(op, UpdateActivity):
        what = f"activity {op.activity_id!r}"
        sql, args = _update("agent_activities", op.activity_id, op.values, what)
        return Step("update", sql, True, args)
    if isinstance(op, InsertLogs):
        rows = tuple(codec.encode_log(log) for log in op.logs)
        return Step("many", queries.INSERT_LOG, len(rows) <= 1, rows=rows)
    if isinstance(op, InsertCallback):
        return Step("execute", queries.INSERT_CALLBACK, True, codec.encode_callback(op.callback))
    if isinstance(op, UpdateCallback):
        return _update_callback(op)
    if isinstance(op, DeleteCallback):
        what = f"pending callback {op.callback_id!r}"
        key = (op.callback_id, op.agent_id)
        if op.only_if_status is None:
            return Step("update", queries.DELETE_CALLBACK, True, key)
        statuses = [codec.encode_callback_column("status", s, what) for s in op.only_if_status]
        guarded = queries.DELETE_CALLBACK + " AND status = ANY($3::text[])"
        return Step("update", guarded, True, (*key, statuses))
    if isinstance(op, PutAgentSetting):
        what = f"agent setting {op.name!r} of {op.agent_id!r}"
        args = (op.agent_id, op.name, json_text(op.value, what), op.updated_at)
        return Step("execute", queries.PUT_SETTING, True, args)
    if isinstance(op, SaveMemory):
        return Step("save_memory", "", False, memory=op.memory)
    if isinstance(op, DeleteMemory):
        return Step("update", memories.DELETE, True, (op.memory_id, op.agent_id))
    return _compile_channel(op)


def _compile_channel(op: WriteOp) -> Step:
    if isinstance(op, PutChannel):
        return Step("call", "", True, call=channels.put_channel(op.channel))
    if isinstance(op, InsertChannelMessage):
        return Step("call", "", False, call=channels.insert_message(op.message))
    if isinstance(op, SetDeliveries):
        args = channels.set_deliveries_args(op.message_id, op.deliveries)
        return Step("update", channels.SET_DELIVERIES, True, args)
    if isinstance(op, PutDelegation):
        return Step("call", "", True, call=channels.put_delegation(op.delegation))
    if isinstance(op, PutTreeAgent):  # two statements: a look-up, then the upsert
        return Step("call", "", False, call=tree.put_tree_agent(op.agent))
    if isinstance(op, PEOPLE_OPS):
        call, single = people.compile_op(op)
        return Step("call", "", single, call=call)
    raise StoreError(f"unknown write op {type(op).__name__}")


def _update_callback(op: UpdateCallback) -> Step:
    what = f"pending callback {op.callback_id!r}"
    names = sorted(op.values)
    args: tuple[Any, ...] = (
        op.callback_id,
        op.agent_id,
        *(codec.encode_callback_column(name, op.values[name], what) for name in names),
    )
    sql = queries.update_callback_statement(names)
    if op.only_if_status is not None:
        statuses = [codec.encode_callback_column("status", s, what) for s in op.only_if_status]
        sql += f" AND status = ANY(${len(args) + 1}::text[])"
        args = (*args, statuses)
    if op.only_if_due_at is not None:
        sql += f" AND due_at = ${len(args) + 1}"
        args = (*args, op.only_if_due_at)
    return Step("update", sql, True, args)


async def lock_item_agents(conn: Connection, steps: Sequence[Step]) -> None:
    """Take the item lock of every agent ``steps`` insert items for (none: no statement).

    The first statement of the transaction, so an agent's items commit in
    ``seq`` order (see :data:`~attn.store.postgres.queries.LOCK_ITEM_AGENTS`).
    """
    agents = sorted({step.item.agent_id for step in steps if step.item is not None})
    if agents:
        await conn.execute(queries.LOCK_ITEM_AGENTS, agents)


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
        return (codec.decode_item(row), False)
    if step.memory is not None:
        return await memories.save(conn, step.memory)
    if step.call is not None:
        return await step.call(conn)
    if step.kind == "update":
        status = await conn.execute(step.sql, *step.args)
        return status.rsplit(" ", 1)[-1] != "0"
    if step.kind == "many":
        if step.rows:
            await conn.executemany(step.sql, step.rows)
        return None
    await conn.execute(step.sql, *step.args)
    return None
