"""The SQL of the PostgreSQL store, as named queries.

asyncpg prepares each distinct statement once per connection (its statement
cache), so the hot path runs prepared statements. Update statements are built
from a fixed column allow-list (``attn.store.base.ITEM_UPDATE_FIELDS``), never
from caller text.

Lock keys: attn's advisory locks use the two-``int4`` form, whose key space is
separate from the single-``bigint`` form other applications usually take.
Spec: 000 §6 (tables), §17 (recovery reads).
"""

from __future__ import annotations

#: Channel of the wake-up notifications; the payload is the agent id.
NOTIFY_CHANNEL = "attn_mailbox"

#: First key of attn's advisory locks ("atnc": claims, "atnh": hosting, "atns":
#: channel and session message inserts, "atni": mailbox item inserts; "atnm",
#: migrations, is taken by :mod:`attn.store.migrate`).
CLAIM_LOCK_CLASS = 0x61746E63
HOST_LOCK_CLASS = 0x61746E68
SEND_LOCK_CLASS = 0x61746E73
ITEM_LOCK_CLASS = 0x61746E69

#: Taken (transaction-scoped) as the first statement of a transaction that
#: inserts mailbox items: one lock per agent ($1, the agents' ids), so an
#: agent's inserts commit one at a time and its items' ``seq`` follows commit
#: order (a catch-up read after a ``seq`` never misses an item committed later,
#: MCP-05) while other agents' inserts go on. Taken in one statement in key
#: order (volatile output is computed after the sort), before any row lock, so
#: two such transactions never wait for each other in opposite orders.
LOCK_ITEM_AGENTS = f"""
SELECT pg_advisory_xact_lock({ITEM_LOCK_CLASS}, key)
FROM (SELECT DISTINCT hashtext(agent) AS key FROM unnest($1::text[]) AS agent) AS keys
ORDER BY key
"""

#: Taken (transaction-scoped) before a channel message or a session message is
#: inserted, so their ``seq`` follows commit order. One lock for both tables, so
#: no two transactions ever wait for each other in opposite orders.
SEQ_LOCK = f"SELECT pg_advisory_xact_lock({SEND_LOCK_CLASS}, 0)"

ITEM_COLUMNS = (
    "id, agent_id, source_type, priority, status, payload, metadata, queued_at, started_at,"
    " completed_at, deferred_until, merged_into, attempt, redelivered, idempotency_key,"
    " session, reason"
)
ITEM_SELECT = f"SELECT seq, {ITEM_COLUMNS} FROM mailbox_items"

# ON CONFLICT names the idempotency index's columns, so a clash on ``id`` still
# raises. A new row notifies its agent in the same statement (delivered on
# commit; PostgreSQL folds repeats within one transaction into one).
INSERT_ITEM = f"""
WITH inserted AS (
    INSERT INTO mailbox_items ({ITEM_COLUMNS})
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
    ON CONFLICT (agent_id, idempotency_key) DO NOTHING
    RETURNING seq, agent_id
)
SELECT seq, pg_notify('{NOTIFY_CHANNEL}', agent_id)::text FROM inserted
"""

SELECT_BY_IDEMPOTENCY_KEY = f"{ITEM_SELECT} WHERE agent_id = $1 AND idempotency_key = $2"

INSERT_DECISION = """
INSERT INTO agent_decisions
    (id, agent_id, decision_type, mailbox_item_id, context, reasoning, outcome, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
"""

INSERT_ACTIVITY = """
INSERT INTO agent_activities
    (id, agent_id, mailbox_item_id, type, label, task_id, started_at, ended_at,
     total_tokens, total_tools, success)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
"""

INSERT_LOG = """
INSERT INTO agent_activity_logs (activity_id, seq, type, content, metadata, created_at)
VALUES ($1, $2, $3, $4, $5, $6)
"""

GET_ITEM = f"{ITEM_SELECT} WHERE id = $1"

_ITEM_FILTER = """
WHERE agent_id = $1
  AND ($2::text[] IS NULL OR status = ANY($2::text[]))
  AND ($3::text[] IS NULL OR source_type = ANY($3::text[]))
"""
# The cursors ($6 before, $7 after) as plain bigint range bounds (seq starts at 1),
# so even a generic plan starts the (agent_id, seq) index scan at the cursor instead
# of filtering the rows below it (``$7 IS NULL OR seq > $7`` is no index condition).
_CURSORS = "AND seq < COALESCE($6::bigint, 9223372036854775807) AND seq > COALESCE($7::bigint, 0)"
FIND_ITEMS_NEWEST = f"{ITEM_SELECT} {_ITEM_FILTER} {_CURSORS} ORDER BY seq DESC LIMIT $4 OFFSET $5"
FIND_ITEMS_OLDEST = f"{ITEM_SELECT} {_ITEM_FILTER} {_CURSORS} ORDER BY seq ASC LIMIT $4 OFFSET $5"
COUNT_ITEMS = f"SELECT count(*) FROM mailbox_items {_ITEM_FILTER}"
LOAD_QUEUE_PAGE = (
    f"{ITEM_SELECT} WHERE agent_id = $1 AND status = 'queued' ORDER BY priority, seq LIMIT $2"
)

LOAD_QUEUE = f"{ITEM_SELECT} WHERE agent_id = $1 AND status = 'queued' ORDER BY priority, seq"

# Taken first, in its own statement: the claim below must start its snapshot
# after the lock is granted, or it would not see a claim committed meanwhile.
LOCK_AGENT = f"SELECT pg_advisory_xact_lock({CLAIM_LOCK_CLASS}, hashtext($1))"

CLAIM_NEXT = f"""
WITH head AS (
    SELECT seq FROM mailbox_items
    WHERE agent_id = $1 AND status = 'queued'
      AND NOT EXISTS (
          SELECT 1 FROM mailbox_items WHERE agent_id = $1 AND status = 'processing'
      )
    ORDER BY priority, seq
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
UPDATE mailbox_items AS m SET status = 'processing', started_at = $2
FROM head WHERE m.seq = head.seq
RETURNING m.seq, {", ".join("m." + c.strip() for c in ITEM_COLUMNS.split(","))}
"""

FIND_DECISIONS = """
SELECT * FROM agent_decisions
WHERE agent_id = $1 AND ($2::text IS NULL OR mailbox_item_id = $2)
  AND ($5::bigint IS NULL OR seq < $5)
ORDER BY seq DESC
LIMIT $3 OFFSET $4
"""
FIND_ITEM_DECISIONS = """
SELECT * FROM agent_decisions
WHERE agent_id = $1 AND mailbox_item_id = ANY($2::text[])
ORDER BY seq
"""

FIND_ACTIVITIES = """
SELECT * FROM agent_activities
WHERE agent_id = $1 AND mailbox_item_id = ANY($2::text[])
ORDER BY started_at, id
"""

GET_ACTIVITY = "SELECT * FROM agent_activities WHERE id = $1"

FIND_ACTIVITY_LOGS = """
SELECT * FROM agent_activity_logs
WHERE activity_id = $1 AND ($2::integer IS NULL OR seq > $2)
ORDER BY seq, id LIMIT $3
"""

COUNT_BY_STATUS = "SELECT status, count(*) FROM mailbox_items WHERE agent_id = $1 GROUP BY status"
# Served by idx_mailbox_agent_type (agent_id, source_type, seq).
COUNT_BY_TYPE = (
    "SELECT source_type, count(*) FROM mailbox_items WHERE agent_id = $1 GROUP BY source_type"
)

# A loose index scan over idx_mailbox_agent_seq: one probe per agent, not a full scan.
AGENT_IDS = """
WITH RECURSIVE agents(agent_id) AS (
    (SELECT agent_id FROM mailbox_items ORDER BY agent_id LIMIT 1)
    UNION ALL
    SELECT (SELECT m.agent_id FROM mailbox_items m
            WHERE m.agent_id > a.agent_id ORDER BY m.agent_id LIMIT 1)
    FROM agents a WHERE a.agent_id IS NOT NULL
)
SELECT agent_id FROM agents WHERE agent_id IS NOT NULL
"""

# The host key is the schema the tables live in (advisory locks are already
# per database), so two attn deployments in two schemas of one database do not
# exclude each other.
HOST_KEY = "SELECT hashtext(current_schema())"
TRY_HOST_LOCK = f"SELECT pg_try_advisory_lock({HOST_LOCK_CLASS}, $1)"
HOST_UNLOCK = f"SELECT pg_advisory_unlock({HOST_LOCK_CLASS}, $1)"
HOST_LOCK_HOLDER = f"""
SELECT current_database() AS db, current_schema() AS schema,
       host(inet_server_addr()) AS addr, inet_server_port() AS port,
       (SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
        WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()
          AND l.classid = {HOST_LOCK_CLASS}::oid AND l.objsubid = 2
          AND l.objid = ($1::bigint & 4294967295)::oid
        LIMIT 1) AS pid
"""


def update_statement(table: str, columns: list[str]) -> str:
    """``UPDATE table SET c1 = $2, ... WHERE id = $1``.

    ``columns`` must come from a fixed allow-list. With no columns the update
    changes nothing but still reports whether the row exists.
    """
    sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=2)) or "id = id"
    return f"UPDATE {table} SET {sets} WHERE id = $1"


# -- time: pending callbacks and agent settings (000 §11.3, §11.4) ----------------------

CALLBACK_COLUMNS = (
    "id, agent_id, type, delivery_mode, origin_session_id, command, note, correlation_id,"
    " due_at, recurring_s, registered_at, timeout_s, status, claimed_by, claimed_at, data"
)
INSERT_CALLBACK = f"""
INSERT INTO pending_callbacks ({CALLBACK_COLUMNS})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
"""
DELETE_CALLBACK = "DELETE FROM pending_callbacks WHERE id = $1 AND agent_id = $2"
GET_CALLBACK = f"SELECT {CALLBACK_COLUMNS} FROM pending_callbacks WHERE id = $1 AND agent_id = $2"
FIND_CALLBACKS = f"""
SELECT {CALLBACK_COLUMNS} FROM pending_callbacks
WHERE agent_id = $1 AND ($2::text[] IS NULL OR type = ANY($2::text[]))
ORDER BY registered_at, id
"""

# FOR UPDATE SKIP LOCKED: a concurrent claimer skips rows being claimed, and a
# row claimed and committed meanwhile no longer matches when re-checked, so
# every callback is claimed once. Parameters: now, stale_before (NULL: never),
# agent ids (NULL: any), limit, claimed_by.
CLAIM_DUE_CALLBACKS = f"""
WITH due AS (
    SELECT id FROM pending_callbacks
    WHERE ((status = 'pending' AND due_at <= $1)
           OR (status = 'claimed' AND due_at IS NOT NULL AND claimed_at < $2))
      AND ($3::text[] IS NULL OR agent_id = ANY($3::text[]))
    ORDER BY due_at, id
    LIMIT $4
    FOR UPDATE SKIP LOCKED
)
UPDATE pending_callbacks AS p SET status = 'claimed', claimed_by = $5, claimed_at = $1
FROM due WHERE p.id = due.id
RETURNING {", ".join("p." + c.strip() for c in CALLBACK_COLUMNS.split(","))}
"""

PUT_SETTING = """
INSERT INTO agent_settings (agent_id, name, value, updated_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (agent_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
"""
GET_SETTINGS = "SELECT name, value FROM agent_settings WHERE agent_id = $1 ORDER BY name"


def update_callback_statement(columns: list[str]) -> str:
    """``UPDATE pending_callbacks SET c1 = $3, ... WHERE id = $1 AND agent_id = $2``.

    ``columns`` must come from ``CALLBACK_UPDATE_FIELDS``.
    """
    sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=3)) or "id = id"
    return f"UPDATE pending_callbacks SET {sets} WHERE id = $1 AND agent_id = $2"
