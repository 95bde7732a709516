"""Channels between agents: ``channels``, ``channel_messages`` and ``delegations``.

A channel message has ``seq``, one counter over all channels in commit order
(the table's key, as for ``mailbox_items``), its deliveries as JSON with the
``undelivered`` flag that restart recovery finds them by, and an optional
idempotency key unique per sender. Types are spelled out so this revision
never changes when ``attn.store.schema`` does.

Spec: 000 §11.1 (DM channels, history), §11.2 (agent_delegate_task), §25.2–25.3;
acceptance A2A-06, A2A-08.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")
#: bigserial on PostgreSQL; INTEGER PRIMARY KEY (the rowid) on SQLite.
_ROW_KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "channels",
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("members", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("created_by", sa.Text()),
    )
    op.create_table(
        "channel_messages",
        sa.Column("seq", _ROW_KEY, primary_key=True, autoincrement=True),
        sa.Column("id", sa.Text(), nullable=False, unique=True),
        sa.Column("channel_key", sa.Text(), sa.ForeignKey("channels.key"), nullable=False),
        sa.Column("sender_id", sa.Text(), nullable=False),
        sa.Column("sender_kind", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("mentions", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("reply_to", sa.Text()),
        sa.Column("expects_reply", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("kind", sa.Text(), nullable=False, server_default="message"),
        sa.Column("deliveries", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("undelivered", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("idempotency_key", sa.Text()),
        sa.Column("callback_id", sa.Text()),
    )
    op.create_index("idx_channel_messages_channel", "channel_messages", ["channel_key", "seq"])
    op.create_index(
        "idx_channel_messages_conversation", "channel_messages", ["conversation_id", "seq"]
    )
    op.create_index("idx_channel_messages_undelivered", "channel_messages", ["undelivered", "seq"])
    op.create_index(
        "idx_channel_messages_idempotency",
        "channel_messages",
        ["sender_id", "idempotency_key"],
        unique=True,
    )
    op.create_table(
        "delegations",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("delegator", sa.Text(), nullable=False),
        sa.Column("delegate", sa.Text(), nullable=False),
        sa.Column("goal", sa.Text(), nullable=False),
        sa.Column("channel_key", sa.Text(), nullable=False),
        sa.Column("conversation_id", sa.Text(), nullable=False),
        sa.Column("message_id", sa.Text(), nullable=False),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("status", sa.Text(), nullable=False, server_default="open"),
        sa.Column("answer_message_id", sa.Text()),
        sa.Column("answered_at", _INSTANT),
    )
    op.create_index("idx_delegations_delegator", "delegations", ["delegator", "created_at"])
    op.create_index("idx_delegations_delegate", "delegations", ["delegate", "created_at"])
    op.create_index("idx_delegations_conversation", "delegations", ["conversation_id"])


def downgrade() -> None:
    op.drop_table("delegations")
    op.drop_table("channel_messages")
    op.drop_table("channels")
