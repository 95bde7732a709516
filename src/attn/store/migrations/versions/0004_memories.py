"""Long-term memory: the ``memories`` table, one row per entry an agent saved.

An entry has an optional key, unique per agent (a save under a used key
replaces that entry), and the ``words`` it is searched by. Types are spelled
out so this revision never changes when ``attn.store.schema`` does.

Spec: 000 §8 (the agent's memory layers), §21 (memory_save, memory_search).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "memories",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("key", sa.Text()),
        sa.Column("words", sa.Text(), nullable=False, server_default=" "),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("updated_at", _INSTANT, nullable=False),
    )
    op.create_index("idx_memories_key", "memories", ["agent_id", "key"], unique=True)
    op.create_index("idx_memories_agent_updated", "memories", ["agent_id", "updated_at"])


def downgrade() -> None:
    op.drop_table("memories")
