"""The schema, once: SQLAlchemy table definitions shared by SQLite and PostgreSQL.

Alembic migrations (``attn/store/migrations``) create exactly these tables; a
test compares the migrated database with this metadata. The hot path does not
use SQLAlchemy; it talks to the drivers directly with the same column names.

Instants are ISO 8601 text on SQLite and ``timestamptz`` on PostgreSQL; JSON
columns are text on both. Spec: 000 §6.2, §12.1, plus attn's ``seq``, ``attempt``,
``redelivered``, ``idempotency_key``, ``session`` and ``reason``.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

#: A timestamp: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
Instant = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")
#: A 64-bit autoincrementing key; on SQLite it aliases the rowid.
RowKey = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

mailbox_items = sa.Table(
    "mailbox_items",
    metadata,
    sa.Column("seq", RowKey, primary_key=True, autoincrement=True),
    sa.Column("id", sa.Text(), nullable=False, unique=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("source_type", sa.Text(), nullable=False),
    sa.Column("priority", sa.Integer(), nullable=False, server_default="2"),
    sa.Column("status", sa.Text(), nullable=False, server_default="queued"),
    sa.Column("payload", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("queued_at", Instant, nullable=False),
    sa.Column("started_at", Instant),
    sa.Column("completed_at", Instant),
    sa.Column("deferred_until", Instant),
    sa.Column("merged_into", sa.Text()),
    sa.Column("attempt", sa.Integer(), nullable=False, server_default="1"),
    sa.Column("redelivered", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Column("idempotency_key", sa.Text()),
    sa.Column("session", sa.Text()),
    sa.Column("reason", sa.Text()),
    sa.Index("idx_mailbox_claim", "agent_id", "status", "priority", "seq"),
    sa.Index("idx_mailbox_agent_seq", "agent_id", "seq"),
    sa.Index("idx_mailbox_agent_type", "agent_id", "source_type", "seq"),
    sa.Index("idx_mailbox_idempotency", "agent_id", "idempotency_key", unique=True),
)

agent_decisions = sa.Table(
    "agent_decisions",
    metadata,
    # Commit order: timelines are ordered by it, never by the wall clock (0003).
    sa.Column("seq", RowKey, primary_key=True, autoincrement=True),
    sa.Column("id", sa.Text(), nullable=False, unique=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("decision_type", sa.Text(), nullable=False),
    sa.Column("mailbox_item_id", sa.Text(), nullable=False),
    sa.Column("context", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("reasoning", sa.Text(), nullable=False, server_default=""),
    sa.Column("outcome", sa.Text()),
    sa.Column("created_at", Instant, nullable=False),
    sa.Index("idx_decisions_agent", "agent_id", "seq"),
    sa.Index("idx_decisions_mailbox_item", "mailbox_item_id", "seq"),
)

agent_activities = sa.Table(
    "agent_activities",
    metadata,
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("mailbox_item_id", sa.Text()),
    sa.Column("type", sa.Text(), nullable=False),
    sa.Column("label", sa.Text(), nullable=False),
    sa.Column("task_id", sa.Text()),
    sa.Column("started_at", Instant, nullable=False),
    sa.Column("ended_at", Instant),
    sa.Column("total_tokens", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("total_tools", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("success", sa.Boolean(), nullable=False, server_default=sa.true()),
    sa.Index("idx_activities_agent", "agent_id", "started_at"),
    sa.Index("idx_activities_mailbox_item", "mailbox_item_id"),
)

agent_activity_logs = sa.Table(
    "agent_activity_logs",
    metadata,
    sa.Column("id", RowKey, primary_key=True, autoincrement=True),
    sa.Column(
        "activity_id",
        sa.Text(),
        sa.ForeignKey("agent_activities.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("seq", sa.Integer(), nullable=False),
    sa.Column("type", sa.Text(), nullable=False),
    sa.Column("content", sa.Text(), nullable=False, server_default=""),
    sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("created_at", Instant, nullable=False),
    sa.Index("idx_activity_logs_activity", "activity_id", "seq"),
)

# -- time: pending callbacks and per-agent settings (000 §11.3, §11.4) -----------------

pending_callbacks = sa.Table(
    "pending_callbacks",
    metadata,
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("type", sa.Text(), nullable=False),
    sa.Column("delivery_mode", sa.Text(), nullable=False),
    sa.Column("origin_session_id", sa.Text()),
    sa.Column("command", sa.Text()),
    sa.Column("note", sa.Text()),
    sa.Column("correlation_id", sa.Text()),
    sa.Column("due_at", Instant),
    sa.Column("recurring_s", sa.Double()),
    sa.Column("registered_at", Instant, nullable=False),
    sa.Column("timeout_s", sa.Double()),
    sa.Column("status", sa.Text(), nullable=False, server_default="pending"),
    sa.Column("claimed_by", sa.Text()),
    sa.Column("claimed_at", Instant),
    sa.Column("data", sa.Text(), nullable=False, server_default="{}"),
    sa.Index("idx_callbacks_agent", "agent_id", "registered_at"),
    # The due-wakeup sweep: status = 'pending' AND due_at <= now, earliest first.
    sa.Index("idx_callbacks_due", "status", "due_at"),
)

agent_settings = sa.Table(
    "agent_settings",
    metadata,
    sa.Column("agent_id", sa.Text(), primary_key=True),
    sa.Column("name", sa.Text(), primary_key=True),
    sa.Column("value", sa.Text(), nullable=False),
    sa.Column("updated_at", Instant, nullable=False),
)

# -- long-term memory (000 §8) ------------------------------------------------------

memories = sa.Table(
    "memories",
    metadata,
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("content", sa.Text(), nullable=False),
    # NULL for an unnamed entry; a named one is replaced by the next save under its key.
    sa.Column("key", sa.Text()),
    # The entry's distinct lower-case words, sorted, each framed by spaces (search).
    sa.Column("words", sa.Text(), nullable=False, server_default=" "),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("updated_at", Instant, nullable=False),
    sa.Index("idx_memories_key", "agent_id", "key", unique=True),
    sa.Index("idx_memories_agent_updated", "agent_id", "updated_at"),
)

# -- channels between agents (000 §11.1, §25.2–25.3) ------------------------------------

channels = sa.Table(
    "channels",
    metadata,
    # dm:a2a:{a}:{b}, group:<team> or group:custom:<id>.
    sa.Column("key", sa.Text(), primary_key=True),
    sa.Column("kind", sa.Text(), nullable=False),
    sa.Column("name", sa.Text(), nullable=False),
    # The member agent ids, sorted: a JSON list.
    sa.Column("members", sa.Text(), nullable=False, server_default="[]"),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("created_by", sa.Text()),
)

channel_messages = sa.Table(
    "channel_messages",
    metadata,
    # One counter over all channels, in commit order (as mailbox_items.seq).
    sa.Column("seq", RowKey, primary_key=True, autoincrement=True),
    sa.Column("id", sa.Text(), nullable=False, unique=True),
    sa.Column("channel_key", sa.Text(), sa.ForeignKey("channels.key"), nullable=False),
    sa.Column("sender_id", sa.Text(), nullable=False),
    sa.Column("sender_kind", sa.Text(), nullable=False),
    sa.Column("text", sa.Text(), nullable=False),
    sa.Column("conversation_id", sa.Text(), nullable=False),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("mentions", sa.Text(), nullable=False, server_default="[]"),
    sa.Column("reply_to", sa.Text()),
    sa.Column("expects_reply", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Column("kind", sa.Text(), nullable=False, server_default="message"),
    # One delivery per recipient: a JSON list of their wire forms.
    sa.Column("deliveries", sa.Text(), nullable=False, server_default="[]"),
    # True while some delivery is pending (restart recovery delivers those).
    sa.Column("undelivered", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Column("idempotency_key", sa.Text()),
    sa.Column("callback_id", sa.Text()),
    sa.Index("idx_channel_messages_channel", "channel_key", "seq"),
    sa.Index("idx_channel_messages_conversation", "conversation_id", "seq"),
    sa.Index("idx_channel_messages_undelivered", "undelivered", "seq"),
    # NULL keys never clash (on SQLite and PostgreSQL alike): only keyed sends are unique.
    sa.Index("idx_channel_messages_idempotency", "sender_id", "idempotency_key", unique=True),
)

delegations = sa.Table(
    "delegations",
    metadata,
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("delegator", sa.Text(), nullable=False),
    sa.Column("delegate", sa.Text(), nullable=False),
    sa.Column("goal", sa.Text(), nullable=False),
    sa.Column("channel_key", sa.Text(), nullable=False),
    sa.Column("conversation_id", sa.Text(), nullable=False),
    sa.Column("message_id", sa.Text(), nullable=False),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("status", sa.Text(), nullable=False, server_default="open"),
    sa.Column("answer_message_id", sa.Text()),
    sa.Column("answered_at", Instant),
    sa.Index("idx_delegations_delegator", "delegator", "created_at"),
    sa.Index("idx_delegations_delegate", "delegate", "created_at"),
    sa.Index("idx_delegations_conversation", "conversation_id"),
)

# -- spawn trees of retained agents (seed 002) ------------------------------------------

tree_agents = sa.Table(
    "tree_agents",
    metadata,
    # The agent's id in the runtime (lead, lead.ada, ...).
    sa.Column("id", sa.Text(), primary_key=True),
    # The id of the tree's root agent.
    sa.Column("tree_id", sa.Text(), nullable=False),
    # /root or /root/<name>/...: unique within its tree.
    sa.Column("path", sa.Text(), nullable=False),
    # The spawn parent's id, fixed for life; NULL for the root.
    sa.Column("parent_id", sa.Text()),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("state", sa.Text(), nullable=False, server_default="active"),
    sa.Column("description", sa.Text(), nullable=False, server_default=""),
    # How to build the brain again ({"kind": ..., "options": {...}}), JSON; NULL: the factory's.
    sa.Column("brain", sa.Text()),
    # Turn slots of the tree; on the root only.
    sa.Column("capacity", sa.Integer()),
    sa.Index("idx_tree_agents_path", "tree_id", "path", unique=True),
    # A tree's nodes in find order (created_at, then id).
    sa.Index("idx_tree_agents_tree", "tree_id", "created_at"),
)

# -- people: notifications, approvals, main sessions (000 §12, §13, §20) ----------------

user_notifications = sa.Table(
    "user_notifications",
    metadata,
    # 000 §12.1's columns, plus the webhook delivery state.
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("user_id", sa.Text(), nullable=False),
    sa.Column("type", sa.Text(), nullable=False),
    sa.Column("title", sa.Text(), nullable=False),
    sa.Column("body", sa.Text(), nullable=False, server_default=""),
    sa.Column("priority", sa.Text(), nullable=False, server_default="normal"),
    sa.Column("read", sa.Boolean(), nullable=False, server_default=sa.false()),
    # navigate, open_chat or none.
    sa.Column("action_type", sa.Text(), nullable=False, server_default="none"),
    # JSON: {"path"} or {"agentId", "sessionId"}; NULL for none.
    sa.Column("action_target", sa.Text()),
    sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("created_at", Instant, nullable=False),
    # NULL: no webhook configured when it was made; else pending, delivered or failed.
    sa.Column("webhook", sa.Text()),
    # A person's bell, newest first; mark all read.
    sa.Index("idx_notifications_user", "user_id", "created_at"),
    # The webhook sender's queue: webhook = 'pending', oldest first.
    sa.Index("idx_notifications_webhook", "webhook", "created_at"),
)

approvals = sa.Table(
    "approvals",
    metadata,
    sa.Column("id", sa.Text(), primary_key=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    # The mailbox item parked on it.
    sa.Column("item_id", sa.Text(), nullable=False),
    sa.Column("user_id", sa.Text(), nullable=False),
    sa.Column("title", sa.Text(), nullable=False),
    sa.Column("description", sa.Text(), nullable=False, server_default=""),
    # The choices: a JSON list of {"id", "label", "description"}.
    sa.Column("options", sa.Text(), nullable=False),
    sa.Column("allow_freeform", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Column("priority", sa.Text(), nullable=False, server_default="high"),
    sa.Column("created_at", Instant, nullable=False),
    sa.Column("expires_at", Instant),
    sa.Column("related_task_id", sa.Text()),
    sa.Column("state", sa.Text(), nullable=False, server_default="pending"),
    sa.Column("selected_option", sa.Text()),
    sa.Column("comment", sa.Text(), nullable=False, server_default=""),
    sa.Column("answered_by", sa.Text()),
    sa.Column("answered_at", Instant),
    sa.Column("notification_id", sa.Text()),
    # JSON the asking brain keeps with it.
    sa.Column("context", sa.Text(), nullable=False, server_default="{}"),
    sa.Index("idx_approvals_agent_state", "agent_id", "state"),
    sa.Index("idx_approvals_item", "item_id"),
    # Every agent's pending approvals, oldest first (restart, expiry).
    sa.Index("idx_approvals_state", "state", "created_at"),
)

session_messages = sa.Table(
    "session_messages",
    metadata,
    # One counter over all sessions, in commit order (as channel_messages.seq).
    sa.Column("seq", RowKey, primary_key=True, autoincrement=True),
    sa.Column("id", sa.Text(), nullable=False, unique=True),
    sa.Column("agent_id", sa.Text(), nullable=False),
    sa.Column("session_id", sa.Text(), nullable=False),
    # user, assistant or activity.
    sa.Column("role", sa.Text(), nullable=False),
    sa.Column("content", sa.Text(), nullable=False),
    sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
    sa.Column("created_at", Instant, nullable=False),
    sa.Index("idx_session_messages_session", "agent_id", "session_id", "seq"),
)
