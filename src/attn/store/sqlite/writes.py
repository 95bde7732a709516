"""Write ops compiled for the SQLite writer: encoded on the caller's side, run on its cursor.

Compiling a write op encodes it before it reaches the writer thread, so bad
input fails alone and fast; the ops were checked by
:func:`attn.store._checks.check_write` first. Spec: 000 §6.2.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache, partial
from typing import Any

from attn.errors import StoreError
from attn.models import CallbackStatus, ItemStatus, MailboxItem, PendingCallback
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
from attn.store.sqlite import channels, codec, memories, people, queries, tree
from attn.store.sqlite.codec import Row

#: One compiled write op as the writer thread runs it, on its cursor inside a transaction.
Run = Callable[[sqlite3.Cursor], Any]
#: Turns what a :data:`Run` returned into the op's result, on the caller's event loop.
Finish = Callable[[Any], Any]


def _with_seq(item: MailboxItem, seq: int) -> tuple[MailboxItem, bool]:
    return codec.copy_with_seq(item, seq), True


class InsertRow:
    """A plain item insert (no idempotency key).

    The writer merges neighbouring ones, across the calls of a batch, into
    multi-row INSERTs (:func:`insert_rows`); the result is the new ``seq``.
    """

    __slots__ = ("params",)

    def __init__(self, params: Row) -> None:
        self.params = params


#: Largest multi-row INSERT; smaller runs use the power-of-two sizes below it,
#: so at most seven statement texts are ever prepared.
_MAX_ROWS = 64


def insert_rows(cur: sqlite3.Cursor, rows: list[Row]) -> list[int]:
    """Insert items (parameters of :data:`queries.INSERT_ITEM`) in order; return their seqs.

    Must run inside the writer's ``BEGIN IMMEDIATE`` transaction: seqs are
    assigned as ``max(seq) + 1 …``, which is what SQLite itself would assign,
    and nobody else can insert meanwhile. One multi-row statement releases the
    GIL for the whole insert instead of once per row.
    """
    if len(rows) == 1:
        return [cur.execute(queries.INSERT_ITEM, rows[0]).lastrowid or 0]
    first = (cur.execute(queries.MAX_SEQ).fetchone()[0] or 0) + 1
    seqs = list(range(first, first + len(rows)))
    start, total = 0, len(rows)
    while start < total:
        size = min(_MAX_ROWS, 1 << ((total - start).bit_length() - 1))
        flat: list[Any] = []
        for offset in range(start, start + size):
            flat += rows[offset]
            flat.append(seqs[offset])
        cur.execute(queries.insert_items(size), flat)
        start += size
    return seqs


def _insert_item(
    item: MailboxItem, encoded: tuple[str, str] | None = None
) -> tuple[Run | InsertRow, Finish | None]:
    params = codec.encode_item(item, encoded)
    if item.idempotency_key is None:
        return InsertRow(params), partial(_with_seq, item)

    key = (item.agent_id, item.idempotency_key)

    def insert_once(cur: sqlite3.Cursor) -> int | Row | None:
        if cur.execute(queries.INSERT_ITEM_IDEMPOTENT, params).rowcount == 1:
            return cur.lastrowid
        existing: Row | None = cur.execute(queries.SELECT_BY_IDEMPOTENCY_KEY, key).fetchone()
        return existing

    def finish(raw: int | Row) -> tuple[MailboxItem, bool]:
        if isinstance(raw, int):
            return _with_seq(item, raw)
        return codec.decode_item(raw), False

    return insert_once, finish


@lru_cache(maxsize=64)
def _guard_params(guard: tuple[ItemStatus, ...]) -> tuple[str, ...]:
    return tuple(ItemStatus(s).value for s in guard)


def _update(
    table: str,
    key_value: str,
    values: dict[str, Any],
    encoders: dict[str, Callable[[Any], Any]],
    guard: tuple[ItemStatus, ...] | None,
) -> Run:
    params = [encoders[name](value) for name, value in values.items()]
    params.append(key_value)
    if guard is not None:
        params += _guard_params(tuple(guard))
    # Cached: the hot path repeats a handful of column sets.
    statement = queries.update_statement(
        table, "id", tuple(values), None if guard is None else len(guard)
    )

    def update(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return update


def _execute(statement: str, params: Row) -> Run:
    def execute(cur: sqlite3.Cursor) -> None:
        cur.execute(statement, params)

    return execute


def _insert_logs(rows: list[Row]) -> Run:
    def insert(cur: sqlite3.Cursor) -> None:
        cur.executemany(queries.INSERT_LOG, rows)

    return insert


def _update_callback(op: UpdateCallback) -> Run:
    encoders = codec.CALLBACK_ENCODERS
    params = [encoders[name](value) for name, value in op.values.items()]
    params += [op.callback_id, op.agent_id]
    guard = op.only_if_status
    if guard is not None:
        params.extend(CallbackStatus(s).value for s in guard)
    if op.only_if_due_at is not None:
        params.append(codec.encode_instant(op.only_if_due_at))
    statement = queries.update_callback_statement(
        tuple(op.values), None if guard is None else len(guard), op.only_if_due_at is not None
    )

    def update(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return update


def _delete_callback(op: DeleteCallback) -> Run:
    params: list[Any] = [op.callback_id, op.agent_id]
    guard = op.only_if_status
    if guard is not None:
        params.extend(CallbackStatus(s).value for s in guard)
    statement = queries.delete_callback_statement(None if guard is None else len(guard))

    def delete(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return delete


def _compile(op: WriteOp) -> Run:
    if isinstance(op, UpdateItem):
        values = op.values
        return _update("mailbox_items", op.item_id, values, codec.ITEM_ENCODERS, op.only_if_status)
    if isinstance(op, InsertDecision):
        return _execute(queries.INSERT_DECISION, codec.encode_decision(op.decision))
    if isinstance(op, InsertActivity):
        return _execute(queries.INSERT_ACTIVITY, codec.encode_activity(op.activity))
    if isinstance(op, UpdateActivity):
        encoders = codec.ACTIVITY_ENCODERS
        return _update("agent_activities", op.activity_id, op.values, encoders, None)
    if isinstance(op, InsertLogs):
        return _insert_logs([codec.encode_log(log) for log in op.logs])
    if isinstance(op, InsertCallback):
        return _execute(queries.INSERT_CALLBACK, codec.encode_callback(op.callback))
    if isinstance(op, UpdateCallback):
        return _update_callback(op)
    if isinstance(op, DeleteCallback):
        return _delete_callback(op)
    if isinstance(op, PutAgentSetting):
        what = f"agent setting {op.name!r} of {op.agent_id!r}"
        params = (
            op.agent_id,
            op.name,
            json_text(op.value, what),
            codec.encode_instant(op.updated_at),
        )
        return _execute(queries.PUT_SETTING, params)
    if isinstance(op, DeleteMemory):
        run: Run = memories.delete(op.agent_id, op.memory_id)
        return run
    if isinstance(op, SetDeliveries):
        deliveries: Run = channels.set_deliveries(op.message_id, op.deliveries)
        return deliveries
    raise StoreError(f"unknown write op {type(op).__name__}")


#: The ops whose run answers something its finisher turns into the op's result.
_WithResult = SaveMemory | PutChannel | InsertChannelMessage | PutDelegation | PutTreeAgent


def _with_result(op: _WithResult) -> tuple[Run, Finish]:
    if isinstance(op, SaveMemory):
        return memories.save(op.memory)
    if isinstance(op, PutChannel):
        return channels.put_channel(op.channel)
    if isinstance(op, InsertChannelMessage):
        return channels.insert_message(op.message)
    if isinstance(op, PutTreeAgent):
        return tree.put_tree_agent(op.agent)
    return channels.put_delegation(op.delegation)


def compile_ops(ops: Sequence[WriteOp]) -> tuple[list[Run | InsertRow], list[Finish | None]]:
    """Encode every op of one checked ``write`` call.

    Returns:
        ``(runs, finishers)``: per op, the function the writer thread runs on
        its cursor (or an :class:`InsertRow` it merges with others), and the
        function (or None for "as is") that turns what that returned into the
        op's result on the caller's side.

    Raises:
        StoreError: a JSON value is not JSON-serializable; nothing has been written.
    """
    runs: list[Run | InsertRow] = []
    finishers: list[Finish | None] = []
    for op in ops:
        if isinstance(op, InsertItem):
            run, finish = _insert_item(op.item, op.encoded)
            runs.append(run)
            finishers.append(finish)
        elif isinstance(op, _WithResult):
            step, done = _with_result(op)
            runs.append(step)
            finishers.append(done)
        elif isinstance(op, PEOPLE_OPS):
            step, done = people.compile_op(op)
            runs.append(step)
            finishers.append(done)
        else:
            runs.append(_compile(op))
            finishers.append(None)
    return runs, finishers


def claim_next(agent_id: str, started_at: datetime) -> tuple[Run, Finish]:
    """The write step of ``claim_next`` (one UPDATE … RETURNING) and its finisher.

    The finisher turns the returned rows into the claimed item or None.
    """
    params = (codec.encode_instant(started_at), agent_id, agent_id)

    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(queries.CLAIM_NEXT, params).fetchall()

    def finish(rows: list[Row]) -> MailboxItem | None:
        return codec.decode_item(rows[0]) if rows else None

    return run, finish


def claim_due_callbacks(
    now: datetime,
    claimed_by: str,
    agent_ids: Sequence[str] | None,
    limit: int,
    stale_before: datetime | None,
) -> tuple[Run, Finish]:
    """The write step of ``claim_due_callbacks`` (one UPDATE … RETURNING) and its finisher.

    The finisher decodes the claimed rows, earliest due first.
    """
    at = codec.encode_instant(now)
    stale = codec.instant_or_none(stale_before)
    hosted = None if agent_ids is None else json_text([str(a) for a in agent_ids], "agent_ids")
    params = (claimed_by, at, at, stale, hosted, hosted, limit)

    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(queries.CLAIM_DUE_CALLBACKS, params).fetchall()

    def finish(rows: list[Row]) -> list[PendingCallback]:
        claimed = [codec.decode_callback(row) for row in rows]
        claimed.sort(key=lambda c: (c.due_at or c.registered_at, c.id))
        return claimed

    return run, finish
