"""Spawn trees of retained agents: ``tree_agents``, one row per node.

A node keeps its canonical path, unique within its tree, its spawn parent
(NULL for the root), its state, description, how to rebuild its brain (JSON
text or NULL) and, on a root, the tree's turn slots. Types are spelled out so
this revision never changes when ``attn.store.schema`` does.

Spec: seed 002 (retained agents); acceptance A2A-10..22.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: timestamptz on PostgreSQL, ISO 8601 text on SQLite.
_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "tree_agents",
        sa.Column("id", sa.Text(), primary_key=True),
        sa.Column("tree_id", sa.Text(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("parent_id", sa.Text()),
        sa.Column("created_at", _INSTANT, nullable=False),
        sa.Column("state", sa.Text(), nullable=False, server_default="active"),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        sa.Column("brain", sa.Text()),
        sa.Column("capacity", sa.Integer()),
    )
    op.create_index("idx_tree_agents_path", "tree_agents", ["tree_id", "path"], unique=True)
    op.create_index("idx_tree_agents_tree", "tree_agents", ["tree_id", "created_at"])


def downgrade() -> None:
    op.drop_table("tree_agents")
