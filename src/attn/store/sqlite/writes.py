"""Convert between attn's records and SQLite rows, and compile write ops.

Instants are ISO 8601 text in UTC with microseconds (``2025-01-02T03:04:05.000006+00:00``),
so text order is time order; naive datetimes are refused, as on PostgreSQL.
JSON columns are compact JSON text of objects; booleans are 0/1. Compiling a
write op encodes and checks it on the caller's side, before it reaches the
writer thread, so bad input fails alone and fast. Spec: 000 §6.2.
"""

from __future__ import annotations

import json
import operator
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from functools import lru_cache, partial
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
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
from attn.store.base import (
    CALLBACK_UPDATE_FIELDS,
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
from attn.store.sqlite import sql

Row = tuple[Any, ...]
#: One compiled write op as the writer thread runs it, on its cursor inside a transaction.
Run = Callable[[sqlite3.Cursor], Any]
#: Turns what a :data:`Run` returned into the op's result, on the caller's event loop.
Finish = Callable[[Any], Any]

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_json_encode: Callable[[Any], str] = _encoder.encode
if c_make_encoder is not None:
    # The C encoder JSONEncoder.encode builds on every call, built once: about
    # twice as fast for small payloads. Same output; no circular-reference
    # check (a cycle ends in RecursionError, reported as StoreError).
    _c_encode = c_make_encoder(
        None, _encoder.default, encode_basestring, None, ":", ",", False, False, True
    )

    def _json_encode(value: Any) -> str:
        return "".join(_c_encode(value, 0))


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


def _instant_or_none(value: datetime | None) -> str | None:
    return None if value is None else encode_instant(value)


def _json_object(value: Any) -> str:
    if not isinstance(value, dict):
        raise TypeError(f"expected a JSON object (dict), got {type(value).__name__}")
    return _json_encode(value)


def _json_object_or_none(value: Any) -> str | None:
    return None if value is None else _json_object(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _text_or_none(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"expected text or None, got {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def _status(value: Any) -> str:
    status = _STATUSES.get(value)
    if status is None:
        raise ValueError(f"expected one of {sorted(_STATUSES)}, got {value!r}")
    return status.value


def _bool(value: Any) -> int:
    return 1 if value else 0


_ITEM_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "priority": _int,
    "status": _status,
    "payload": _json_object,
    "metadata": _json_object,
    "started_at": _instant_or_none,
    "completed_at": _instant_or_none,
    "deferred_until": _instant_or_none,
    "merged_into": _text_or_none,
    "attempt": _int,
    "redelivered": _bool,
    "session": _json_object_or_none,
    "reason": _text_or_none,
}
_ACTIVITY_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "ended_at": _instant_or_none,
    "total_tokens": _int,
    "total_tools": _int,
    "success": _bool,
    "label": _text,
}


def encode_item(item: MailboxItem, encoded: tuple[str, str] | None = None) -> Row:
    """The parameters of :data:`sql.INSERT_ITEM` for ``item``.

    ``encoded``: payload and metadata JSON already made by :func:`attn.jsontext.dumps`.
    """
    if encoded is not None and type(item.payload) is dict and type(item.metadata) is dict:
        payload, metadata = encoded
    else:
        payload, metadata = _json_object(item.payload), _json_object(item.metadata)
    return (
        item.id,
        item.agent_id,
        item.source_type,
        _int(item.priority),
        _status(item.status),
        payload,
        metadata,
        encode_instant(item.queued_at),
        _instant_or_none(item.started_at),
        _instant_or_none(item.completed_at),
        _instant_or_none(item.deferred_until),
        item.merged_into,
        _int(item.attempt),
        1 if item.redelivered else 0,
        item.idempotency_key,
        _json_object_or_none(item.session),
        item.reason,
    )


def decode_item(row: Row) -> MailboxItem:
    """A :class:`MailboxItem` from a row of :data:`sql.ITEM_COLUMNS`."""
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


def decode_decision(row: Row) -> Decision:
    """A :class:`Decision` from a row of :data:`sql.DECISION_COLUMNS`."""
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


def decode_activity(row: Row) -> Activity:
    """An :class:`Activity` from a row of :data:`sql.ACTIVITY_COLUMNS`."""
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


def decode_log(row: Row) -> ActivityLog:
    """An :class:`ActivityLog` from a row of :data:`sql.FIND_LOGS`."""
    activity_id, seq, type_, content, created_at, metadata = row
    return ActivityLog(
        activity_id, seq, LogType(type_), content, _from_iso(created_at), _object_decode(metadata)
    )


def _with_seq(item: MailboxItem, seq: int) -> tuple[MailboxItem, bool]:
    # Like item.copy() with the new seq, at a third of the cost (hot path).
    stored = MailboxItem(*_item_values(item))
    stored.seq = seq
    stored.payload = dict(item.payload)
    stored.metadata = dict(item.metadata)
    if item.session is not None:
        stored.session = dict(item.session)
    return stored, True


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
    """Insert items (parameters of :data:`sql.INSERT_ITEM`) in order; return their seqs.

    Must run inside the writer's ``BEGIN IMMEDIATE`` transaction: seqs are
    assigned as ``max(seq) + 1 …``, which is what SQLite itself would assign,
    and nobody else can insert meanwhile. One multi-row statement releases the
    GIL for the whole insert instead of once per row.
    """
    if len(rows) == 1:
        return [cur.execute(sql.INSERT_ITEM, rows[0]).lastrowid or 0]
    first = (cur.execute(sql.MAX_SEQ).fetchone()[0] or 0) + 1
    seqs = list(range(first, first + len(rows)))
    start, total = 0, len(rows)
    while start < total:
        size = min(_MAX_ROWS, 1 << ((total - start).bit_length() - 1))
        flat: list[Any] = []
        for offset in range(start, start + size):
            flat += rows[offset]
            flat.append(seqs[offset])
        cur.execute(sql.insert_items(size), flat)
        start += size
    return seqs


def _insert_item(
    item: MailboxItem, encoded: tuple[str, str] | None = None
) -> tuple[Run | InsertRow, Finish | None]:
    params = encode_item(item, encoded)
    if item.idempotency_key is None:
        return InsertRow(params), partial(_with_seq, item)

    key = (item.agent_id, item.idempotency_key)

    def insert_once(cur: sqlite3.Cursor) -> int | Row | None:
        if cur.execute(sql.INSERT_ITEM_IDEMPOTENT, params).rowcount == 1:
            return cur.lastrowid
        existing: Row | None = cur.execute(sql.SELECT_BY_IDEMPOTENCY_KEY, key).fetchone()
        return existing

    def finish(raw: int | Row) -> tuple[MailboxItem, bool]:
        if isinstance(raw, int):
            return _with_seq(item, raw)
        return decode_item(raw), False

    return insert_once, finish


@lru_cache(maxsize=64)
def _guard_params(guard: tuple[ItemStatus, ...]) -> tuple[str, ...]:
    return tuple(_status(s) for s in guard)


def _update(
    table: str,
    key_value: str,
    values: dict[str, Any],
    encoders: dict[str, Callable[[Any], Any]],
    guard: tuple[ItemStatus, ...] | None,
) -> Run:
    if not values.keys() <= encoders.keys():
        unknown = [name for name in values if name not in encoders]
        raise StoreError(
            f"cannot update columns {sorted(unknown)} of {table}; allowed: {sorted(encoders)}"
        )
    params = [encoders[name](value) for name, value in values.items()]
    params.append(key_value)
    if guard is not None:
        params += _guard_params(tuple(guard))
    # Cached: the hot path repeats a handful of column sets.
    statement = sql.update(table, "id", tuple(values), None if guard is None else len(guard))

    def update(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return update


def _execute(statement: str, params: Row) -> Run:
    def execute(cur: sqlite3.Cursor) -> None:
        cur.execute(statement, params)

    return execute


def _decision_params(d: Decision) -> Row:
    return (
        _text(d.id),
        d.agent_id,
        DecisionType(d.decision_type).value,
        d.item_id,
        _json_object(d.context),
        d.reasoning,
        d.outcome,
        encode_instant(d.created_at),
    )


def _activity_params(a: Activity) -> Row:
    return (
        _text(a.id),
        a.agent_id,
        a.item_id,
        a.type,
        a.label,
        encode_instant(a.started_at),
        a.task_id,
        _instant_or_none(a.ended_at),
        _int(a.total_tokens),
        _int(a.total_tools),
        _bool(a.success),
    )


def _insert_logs(logs: Sequence[ActivityLog]) -> Run:
    rows = [
        (
            log.activity_id,
            _int(log.seq),
            LogType(log.type).value,
            _text(log.content),
            encode_instant(log.created_at),
            _json_object(log.metadata),
        )
        for log in logs
    ]

    def insert(cur: sqlite3.Cursor) -> None:
        cur.executemany(sql.INSERT_LOG, rows)

    return insert


def claim(agent_id: str, started_at: datetime) -> tuple[Run, Finish]:
    """The write step of ``claim_next`` (one UPDATE … RETURNING) and its finisher.

    The finisher turns the returned rows into the claimed item or None.
    """
    params = (encode_instant(started_at), agent_id, agent_id)

    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(sql.CLAIM_NEXT, params).fetchall()

    def finish(rows: list[Row]) -> MailboxItem | None:
        return decode_item(rows[0]) if rows else None

    return run, finish


def compile_ops(ops: Sequence[WriteOp]) -> tuple[list[Run | InsertRow], list[Finish | None]]:
    """Encode and check every op of one ``write`` call.

    Returns:
        ``(runs, finishers)``: per op, the function the writer thread runs on
        its cursor (or an :class:`InsertRow` it merges with others), and the
        function (or None for "as is") that turns what that returned into the
        op's result on the caller's side.

    Raises:
        StoreError: an unknown op, an unknown update column, or a value of the
            wrong type (the cause chained); nothing has been written.
    """
    runs: list[Run | InsertRow] = []
    finishers: list[Finish | None] = []
    for index, op in enumerate(ops):
        try:
            if isinstance(op, InsertItem):
                run, finish = _insert_item(op.item, op.encoded)
                runs.append(run)
                finishers.append(finish)
                continue
            runs.append(_compile(op))
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"cannot store write op {index} ({type(op).__name__}): {exc}") from exc
        finishers.append(None)
    return runs, finishers


def _seconds_or_none(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected seconds (a number) or None, got {value!r}")
    return float(value)


def _callback_status(value: Any) -> str:
    return CallbackStatus(value).value


_CALLBACK_ENCODERS: dict[str, Callable[[Any], Any]] = {
    "due_at": _instant_or_none,
    "status": _callback_status,
    "claimed_by": _text_or_none,
    "claimed_at": _instant_or_none,
    "data": _json_object,
}
assert set(_CALLBACK_ENCODERS) == CALLBACK_UPDATE_FIELDS


def encode_callback(c: PendingCallback) -> Row:
    """The parameters of :data:`sql.INSERT_CALLBACK` for ``c``."""
    return (
        _text(c.id),
        _text(c.agent_id),
        CallbackType(c.type).value,
        DeliveryMode(c.delivery_mode).value,
        _text_or_none(c.origin_session_id),
        _text_or_none(c.command),
        _text_or_none(c.note),
        _text_or_none(c.correlation_id),
        _instant_or_none(c.due_at),
        _seconds_or_none(c.recurring_s),
        encode_instant(c.registered_at),
        _seconds_or_none(c.timeout_s),
        _callback_status(c.status),
        _text_or_none(c.claimed_by),
        _instant_or_none(c.claimed_at),
        _json_object(c.data),
    )


def decode_callback(row: Row) -> PendingCallback:
    """A :class:`PendingCallback` from a row of :data:`sql.CALLBACK_COLUMNS`."""
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


def _update_callback(op: UpdateCallback) -> Run:
    unknown = [name for name in op.values if name not in _CALLBACK_ENCODERS]
    if unknown:
        raise StoreError(
            f"cannot update columns {sorted(unknown)} of pending_callbacks;"
            f" allowed: {sorted(_CALLBACK_ENCODERS)}"
        )
    params = [_CALLBACK_ENCODERS[name](value) for name, value in op.values.items()]
    params += [op.callback_id, op.agent_id]
    guard = op.only_if_status
    if guard is not None:
        params.extend(_callback_status(s) for s in guard)
    if op.only_if_due_at is not None:
        params.append(_CALLBACK_ENCODERS["due_at"](op.only_if_due_at))
    statement = sql.update_callback(
        tuple(op.values), None if guard is None else len(guard), op.only_if_due_at is not None
    )

    def update(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return update


def _delete_callback(op: DeleteCallback) -> Run:
    params = [_text(op.callback_id), _text(op.agent_id)]
    guard = op.only_if_status
    if guard is not None:
        params.extend(_callback_status(s) for s in guard)
    statement = sql.delete_callback(None if guard is None else len(guard))

    def delete(cur: sqlite3.Cursor) -> bool:
        return cur.execute(statement, params).rowcount > 0

    return delete


def _put_setting(op: PutAgentSetting) -> Run:
    value = json.dumps(op.value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _execute(
        sql.PUT_SETTING,
        (_text(op.agent_id), _text(op.name), value, encode_instant(op.updated_at)),
    )


def claim_callbacks(
    now: datetime,
    claimed_by: str,
    agent_ids: Sequence[str] | None,
    limit: int,
    stale_before: datetime | None,
) -> tuple[Run, Finish]:
    """The write step of ``claim_due_callbacks`` (one UPDATE … RETURNING) and its finisher.

    The finisher decodes the claimed rows, earliest due first.
    """
    at = encode_instant(now)
    stale = _instant_or_none(stale_before)
    hosted = None if agent_ids is None else _json_encode([_text(a) for a in agent_ids])
    params = (_text(claimed_by), at, at, stale, hosted, hosted, limit)

    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(sql.CLAIM_DUE_CALLBACKS, params).fetchall()

    def finish(rows: list[Row]) -> list[PendingCallback]:
        claimed = [decode_callback(row) for row in rows]
        claimed.sort(key=lambda c: (c.due_at or c.registered_at, c.id))
        return claimed

    return run, finish


def _compile(op: WriteOp) -> Run:
    if isinstance(op, UpdateItem):
        return _update("mailbox_items", op.item_id, op.values, _ITEM_ENCODERS, op.only_if_status)
    if isinstance(op, InsertDecision):
        return _execute(sql.INSERT_DECISION, _decision_params(op.decision))
    if isinstance(op, InsertActivity):
        return _execute(sql.INSERT_ACTIVITY, _activity_params(op.activity))
    if isinstance(op, UpdateActivity):
        return _update("agent_activities", op.activity_id, op.values, _ACTIVITY_ENCODERS, None)
    if isinstance(op, InsertLogs):
        return _insert_logs(op.logs)
    if isinstance(op, InsertCallback):
        return _execute(sql.INSERT_CALLBACK, encode_callback(op.callback))
    if isinstance(op, UpdateCallback):
        return _update_callback(op)
    if isinstance(op, DeleteCallback):
        return _delete_callback(op)
    if isinstance(op, PutAgentSetting):
        return _put_setting(op)
    raise StoreError(f"unknown write op {type(op).__name__}")
