"""The initial schema: mailbox items, decisions, activities, activity logs.

Spec: 000 §6.2, plus attn's ``seq``, ``attempt``, ``redelivered``,
``idempotency_key``, ``session`` and ``reason``. Types are spelled out here
(not imported from ``attn.store.schema``) so this revision never changes when
the schema module does; a test checks that head equals the schema module.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")
#: bigserial on PostgreSQL; INTEGER PRIMARY KEY (the rowid) on SQLite.
_ROW_KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "mailbox_items",
        sa.Column("seq", _ROW_KEY, primary_key=True, autoincrement=True),
        sa.Column("id", sa.Text(), nullable=False, unique=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("source_type", sa.Text(), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False, server_default="2"),
        sa.Column("status", sa.Text(), nullable=False, server_default="queued"),
        sa.Column("payload", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("queued_at", _INSTANT, nullable=False),
        sa.Column("started_at", _INSTANT),
        sa.Column("completed_at", _INSTANT),
        sa.Column("deferred_until", _INSTANT),
        sa.Column("merged_into", sa.Text()),
        sa.Column("attempt", sa.Integer(), nullable=False, server_default="1"),
        sa.Column("redelivered", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("idempotency_key", sa.Text()),
        sa.Column("session", sa.Text()),
        sa.Column("reason", sa.Text()),
    )
    op.create_index("idx_mailbox_claim", "mailbox_items", ["agent_id", "status", "priority", "seq"])
    op.create_index("idx_mailbox_agent_seq", "mailbox_items", ["agent_id", "seq"])
    op.create_index("idx_mailbox_agent_type", "mailbox_items", ["agent_id", "source_type", "seq"])
    op.create_index(
        "idx_mailbox_idempotency",
        "mailbox_items",
        ["agent_id", "idempotency_key"],
        unique=True,
    )

    op.create_table(
        "agent_decisions",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("decision_type", sa.Text(), nullable=False),
        sa.Column("mailbox_item_id", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("reasoning", sa.Text(), nullable=False, server_default=""),
        sa.Column("outcome", sa.Text()),
        sa.Column("created_at", _INSTANT, nullable=False),
    )
    op.create_index("idx_decisions_agent", "agent_decisions", ["agent_id", "created_at"])
    op.create_index("idx_decisions_mailbox_item", "agent_decisions", ["mailbox_item_id"])

    op.create_table(
        "agent_activities",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("mailbox_item_id", sa.Text()),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Text()),
        sa.Column("started_at", _INSTANT, nullable=False),
        sa.Column("ended_at", _INSTANT),
        sa.Column("total_tokens", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("total_tools", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("success", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.create_index("idx_activities_agent", "agent_activities", ["agent_id", "started_at"])
    op.create_index("idx_activities_mailbox_item", "agent_activities", ["mailbox_item_id"])

    op.create_table(
        "agent_activity_logs",
        sa.Column("id", _ROW_KEY, primary_key=True, autoincrement=True),
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
        sa.Column("created_at", _INSTANT, nullable=False),
    )
    op.create_index("idx_activity_logs_activity", "agent_activity_logs", ["activity_id", "seq"])


def downgrade() -> None:
    op.drop_table("agent_activity_logs")
    op.drop_table("agent_activities")
    op.drop_table("agent_decisions")
    op.drop_table("mailbox_items")
