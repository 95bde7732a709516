"""Time: pending callbacks (background commands, wakeups, awaited replies) and agent settings.

Spec: 000 §11.3 (PendingCallbackRegistry, persisted and restored on start),
§11.4 (heartbeat interval, persisted). Types are spelled out here so this
revision never changes when ``attn.store.schema`` does.

Revision ID: 0002
Revises: 0001
Create Date: 2026-01-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "pending_callbacks",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("delivery_mode", sa.Text(), nullable=False),
        sa.Column("origin_session_id", sa.Text()),
        sa.Column("command", sa.Text()),
        sa.Column("note", sa.Text()),
        sa.Column("correlation_id", sa.Text()),
        sa.Column("due_at", _INSTANT),
        sa.Column("recurring_s", sa.Double()),
        sa.Column("registered_at", _INSTANT, nullable=False),
        sa.Column("timeout_s", sa.Double()),
        sa.Column("status", sa.Text(), nullable=False, server_default="pending"),
        sa.Column("claimed_by", sa.Text()),
        sa.Column("claimed_at", _INSTANT),
        sa.Column("data", sa.Text(), nullable=False, server_default="{}"),
    )
    op.create_index("idx_callbacks_agent", "pending_callbacks", ["agent_id", "registered_at"])
    op.create_index("idx_callbacks_due", "pending_callbacks", ["status", "due_at"])

    op.create_table(
        "agent_settings",
        sa.Column("agent_id", sa.Text(), primary_key=True),
        sa.Column("name", sa.Text(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", _INSTANT, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_settings")
    op.drop_table("pending_callbacks")
