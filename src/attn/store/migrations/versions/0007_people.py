"""People: ``user_notifications``, ``approvals`` and ``session_messages``.

A notification keeps 000 §12.1's columns and its webhook delivery state (NULL
when no webhook was configured). An approval keeps every field of the record,
its options and context as JSON text. A main-session message has ``seq``, one
counter over all sessions in commit order (the table's key, as for
``channel_messages``). Types are spelled out so this revision never changes
when ``attn.store.schema`` does.

Spec: 000 §12.1 (user_notifications), §13.2 (request_user_approval), §20 (main
session); acceptance PPL-01..09, PPL-17.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")
#: bigserial on PostgreSQL; INTEGER PRIMARY KEY (the rowid) on SQLite.
_ROW_KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "user_notifications",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False, server_default=""),
        sa.Column("priority", sa.Text(), nullable=False, server_default="normal"),
        sa.Column("read", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("action_type", sa.Text(), nullable=False, server_default="none"),
        sa.Column("action_target", sa.Text()),
        sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("webhook", sa.Text()),
    )
    op.create_index("idx_notifications_user", "user_notifications", ["user_id", "created_at"])
    op.create_index("idx_notifications_webhook", "user_notifications", ["webhook", "created_at"])
    op.create_table(
        "approvals",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("item_id", sa.Text(), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("allow_freeform", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("priority", sa.Text(), nullable=False, server_default="high"),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("expires_at", _INSTANT),
        sa.Column("related_task_id", sa.Text()),
        sa.Column("state", sa.Text(), nullable=False, server_default="pending"),
        sa.Column("selected_option", sa.Text()),
        sa.Column("comment", sa.Text(), nullable=False, server_default=""),
        sa.Column("answered_by", sa.Text()),
        sa.Column("answered_at", _INSTANT),
        sa.Column("notification_id", sa.Text()),
        sa.Column("context", sa.Text(), nullable=False, server_default="{}"),
    )
    op.create_index("idx_approvals_agent_state", "approvals", ["agent_id", "state"])
    op.create_index("idx_approvals_item", "approvals", ["item_id"])
    op.create_index("idx_approvals_state", "approvals", ["state", "created_at"])
    op.create_table(
        "session_messages",
        sa.Column("seq", _ROW_KEY, primary_key=True, autoincrement=True),
        sa.Column("id", sa.Text(), nullable=False, unique=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("metadata", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("created_at", _INSTANT, nullable=False),
    )
    op.create_index(
        "idx_session_messages_session", "session_messages", ["agent_id", "session_id", "seq"]
    )


def downgrade() -> None:
    op.drop_table("session_messages")
    op.drop_table("approvals")
    op.drop_table("user_notifications")
