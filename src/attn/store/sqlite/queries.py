"""The SQL of the SQLite store, as named queries.

Statements are plain strings so ``sqlite3``'s per-connection statement cache
prepares each one once. Column names come from fixed allow-lists
(:data:`attn.store.base.ITEM_UPDATE_FIELDS`), never from caller text.
Spec: 000 §6.2 (tables), §17 (recovery reads).
"""

from __future__ import annotations

from functools import lru_cache

ITEM_COLUMNS = (
    "seq, id, agent_id, source_type, priority, status, payload, metadata, queued_at,"
    " started_at, completed_at, deferred_until, merged_into, attempt, redelivered,"
    " idempotency_key, session, reason"
)
ITEM_SELECT = f"SELECT {ITEM_COLUMNS} FROM mailbox_items"

INSERT_ITEM = """
INSERT INTO mailbox_items (id, agent_id, source_type, priority, status, payload, metadata,
    queued_at, started_at, completed_at, deferred_until, merged_into, attempt, redelivered,
    idempotency_key, session, reason)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
MAX_SEQ = "SELECT max(seq) FROM mailbox_items"
_ROW_MARKS = "(" + ", ".join("?" * 18) + ")"


def insert_items(n_rows: int) -> str:
    """One INSERT of ``n_rows`` items with explicit ``seq``: the 17 values of
    :data:`INSERT_ITEM`, then seq, per row."""
    return (
        "INSERT INTO mailbox_items (id, agent_id, source_type, priority, status, payload,"
        " metadata, queued_at, started_at, completed_at, deferred_until, merged_into, attempt,"
        " redelivered, idempotency_key, session, reason, seq) VALUES "
        + ", ".join([_ROW_MARKS] * n_rows)
    )


# The conflict target names the idempotency index, so a clash on ``id`` still raises.
INSERT_ITEM_IDEMPOTENT = INSERT_ITEM + "ON CONFLICT (agent_id, idempotency_key) DO NOTHING"
SELECT_BY_IDEMPOTENCY_KEY = f"{ITEM_SELECT} WHERE agent_id = ? AND idempotency_key = ?"
GET_ITEM = f"{ITEM_SELECT} WHERE id = ?"

# One statement: both subqueries are searches of idx_mailbox_claim
# (agent_id, status, priority, seq), the outer update a rowid lookup.
CLAIM_NEXT = f"""
UPDATE mailbox_items SET status = 'processing', started_at = ?
WHERE seq = (
    SELECT seq FROM mailbox_items
    WHERE agent_id = ? AND status = 'queued'
    ORDER BY priority, seq LIMIT 1
)
AND NOT EXISTS (
    SELECT 1 FROM mailbox_items WHERE agent_id = ? AND status = 'processing'
)
RETURNING {ITEM_COLUMNS}
"""

LOAD_QUEUE = f"{ITEM_SELECT} WHERE agent_id = ? AND status = 'queued' ORDER BY priority, seq"

COUNT_BY_STATUS = "SELECT status, count(*) FROM mailbox_items WHERE agent_id = ? GROUP BY status"
# Served by idx_mailbox_agent_type (agent_id, source_type, seq).
COUNT_BY_TYPE = (
    "SELECT source_type, count(*) FROM mailbox_items WHERE agent_id = ? GROUP BY source_type"
)
AGENT_IDS = "SELECT DISTINCT agent_id FROM mailbox_items ORDER BY agent_id"

INSERT_DECISION = """
INSERT INTO agent_decisions
    (id, agent_id, decision_type, mailbox_item_id, context, reasoning, outcome, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""
DECISION_COLUMNS = (
    "id, agent_id, decision_type, mailbox_item_id, reasoning, created_at, context, outcome, seq"
)
# Newest commit first (seq), whatever the wall clock said (created_at may jump back);
# seq is also the key a page's cursor continues from.
# Each variant has its own text so the planner walks idx_decisions_agent (agent_id, seq)
# or idx_decisions_mailbox_item (mailbox_item_id, seq) from the cursor on.
FIND_DECISIONS = f"""
SELECT {DECISION_COLUMNS} FROM agent_decisions WHERE agent_id = ?
ORDER BY seq DESC LIMIT ? OFFSET ?
"""
FIND_DECISIONS_BEFORE = f"""
SELECT {DECISION_COLUMNS} FROM agent_decisions WHERE agent_id = ? AND seq < ?
ORDER BY seq DESC LIMIT ? OFFSET ?
"""
FIND_ITEM_DECISIONS = f"""
SELECT {DECISION_COLUMNS} FROM agent_decisions
WHERE mailbox_item_id = ? AND agent_id = ? AND (? IS NULL OR seq < ?)
ORDER BY seq DESC LIMIT ? OFFSET ?
"""

INSERT_ACTIVITY = """
INSERT INTO agent_activities
    (id, agent_id, mailbox_item_id, type, label, started_at, task_id, ended_at,
     total_tokens, total_tools, success)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
ACTIVITY_COLUMNS = (
    "id, agent_id, mailbox_item_id, type, label, started_at, task_id, ended_at,"
    " total_tokens, total_tools, success"
)

GET_ACTIVITY = f"SELECT {ACTIVITY_COLUMNS} FROM agent_activities WHERE id = ?"

INSERT_LOG = """
INSERT INTO agent_activity_logs (activity_id, seq, type, content, created_at, metadata)
VALUES (?, ?, ?, ?, ?, ?)
"""
FIND_ACTIVITY_LOGS = """
SELECT activity_id, seq, type, content, created_at, metadata FROM agent_activity_logs
WHERE activity_id = ? ORDER BY seq, id
"""
# Served by idx_activity_logs_activity (activity_id, seq).
FIND_ACTIVITY_LOGS_PAGE = """
SELECT activity_id, seq, type, content, created_at, metadata FROM agent_activity_logs
WHERE activity_id = ? AND seq > ? ORDER BY seq, id LIMIT ?
"""
LOAD_QUEUE_PAGE = f"{LOAD_QUEUE} LIMIT ?"


def find_item_decisions(n_items: int) -> str:
    """Decisions of one agent about ``n_items`` item ids, oldest first."""
    marks = ", ".join("?" * n_items)
    return (
        f"SELECT {DECISION_COLUMNS} FROM agent_decisions"
        f" WHERE agent_id = ? AND mailbox_item_id IN ({marks}) ORDER BY seq"
    )


def find_activities(n_items: int) -> str:
    """Activities of one agent linked to ``n_items`` item ids, oldest first."""
    marks = ", ".join("?" * n_items)
    return (
        f"SELECT {ACTIVITY_COLUMNS} FROM agent_activities"
        f" WHERE agent_id = ? AND mailbox_item_id IN ({marks}) ORDER BY started_at, rowid"
    )


def item_filter(
    n_statuses: int | None, n_types: int | None, before: bool = False, after: bool = False
) -> str:
    """The WHERE clause of an item query: agent, then optional status and type lists,
    then (``before``, ``after``) seq bounds."""
    where = "WHERE agent_id = ?"
    if n_statuses is not None:
        where += f" AND status IN ({', '.join('?' * n_statuses)})"
    if n_types is not None:
        where += f" AND source_type IN ({', '.join('?' * n_types)})"
    if before:
        where += " AND seq < ?"
    if after:
        where += " AND seq > ?"
    return where


def find_items(
    n_statuses: int | None,
    n_types: int | None,
    oldest_first: bool,
    before: bool = False,
    after: bool = False,
) -> str:
    """A paged item query; parameters: agent, statuses…, types…, [before seq],
    [after seq], limit, offset."""
    order = "ASC" if oldest_first else "DESC"
    where = item_filter(n_statuses, n_types, before, after)
    return f"{ITEM_SELECT} {where} ORDER BY seq {order} LIMIT ? OFFSET ?"


def count_items(n_statuses: int | None, n_types: int | None) -> str:
    """Count of an item query; parameters: agent, statuses…, types…."""
    return f"SELECT count(*) FROM mailbox_items {item_filter(n_statuses, n_types)}"


@lru_cache(maxsize=256)
def update_statement(table: str, key: str, columns: tuple[str, ...], n_guard: int | None) -> str:
    """``UPDATE table SET columns… WHERE key = ?`` plus an optional status guard.

    With no columns the statement sets ``key`` to itself, so it still reports
    whether the row exists (and passes the guard).
    """
    sets = ", ".join(f"{c} = ?" for c in columns) if columns else f"{key} = {key}"
    sql = f"UPDATE {table} SET {sets} WHERE {key} = ?"
    if n_guard is not None:
        sql += f" AND status IN ({', '.join('?' * n_guard)})"
    return sql


# -- time: pending callbacks and agent settings (000 §11.3, §11.4) ----------------------

CALLBACK_COLUMNS = (
    "id, agent_id, type, delivery_mode, origin_session_id, command, note, correlation_id,"
    " due_at, recurring_s, registered_at, timeout_s, status, claimed_by, claimed_at, data"
)
INSERT_CALLBACK = f"""
INSERT INTO pending_callbacks ({CALLBACK_COLUMNS})
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
DELETE_CALLBACK = "DELETE FROM pending_callbacks WHERE id = ? AND agent_id = ?"


def delete_callback_statement(n_guard: int | None) -> str:
    """:data:`DELETE_CALLBACK` with an optional status guard of ``n_guard`` statuses."""
    if n_guard is None:
        return DELETE_CALLBACK
    return f"{DELETE_CALLBACK} AND status IN ({', '.join('?' * n_guard)})"


GET_CALLBACK = f"SELECT {CALLBACK_COLUMNS} FROM pending_callbacks WHERE id = ? AND agent_id = ?"
FIND_CALLBACKS = f"""
SELECT {CALLBACK_COLUMNS} FROM pending_callbacks WHERE agent_id = ?
ORDER BY registered_at, id
"""


def find_callbacks_of_types(n_types: int) -> str:
    """The agent's callbacks of ``n_types`` types; parameters: agent, types…."""
    marks = ", ".join("?" * n_types)
    return (
        f"SELECT {CALLBACK_COLUMNS} FROM pending_callbacks WHERE agent_id = ?"
        f" AND type IN ({marks}) ORDER BY registered_at, id"
    )


# Runs in the writer's BEGIN IMMEDIATE transaction, so two processes never
# claim one callback. Both OR terms are searches of idx_callbacks_due
# (status, due_at); only due rows are read. Parameters: claimed_by, now,
# now, stale_before (NULL: never), agent ids as a JSON array (NULL: any) twice, limit.
CLAIM_DUE_CALLBACKS = f"""
UPDATE pending_callbacks SET status = 'claimed', claimed_by = ?, claimed_at = ?
WHERE id IN (
    SELECT id FROM pending_callbacks
    WHERE ((status = 'pending' AND due_at <= ?)
           OR (status = 'claimed' AND due_at IS NOT NULL AND claimed_at < ?))
      AND (? IS NULL OR agent_id IN (SELECT value FROM json_each(?)))
    ORDER BY due_at, id LIMIT ?
)
RETURNING {CALLBACK_COLUMNS}
"""

PUT_SETTING = """
INSERT INTO agent_settings (agent_id, name, value, updated_at) VALUES (?, ?, ?, ?)
ON CONFLICT (agent_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
"""
GET_SETTINGS = "SELECT name, value FROM agent_settings WHERE agent_id = ? ORDER BY name"


@lru_cache(maxsize=256)
def update_callback_statement(
    columns: tuple[str, ...], n_guard: int | None, due_guard: bool = False
) -> str:
    """``UPDATE pending_callbacks SET columns… WHERE id = ? AND agent_id = ?`` plus an
    optional status guard and ``due_at`` guard (in that order of parameters).
    Columns come from ``CALLBACK_UPDATE_FIELDS`` only."""
    sets = ", ".join(f"{c} = ?" for c in columns) if columns else "id = id"
    sql = f"UPDATE pending_callbacks SET {sets} WHERE id = ? AND agent_id = ?"
    if n_guard is not None:
        sql += f" AND status IN ({', '.join('?' * n_guard)})"
    if due_guard:
        sql += " AND due_at = ?"
    return sql
