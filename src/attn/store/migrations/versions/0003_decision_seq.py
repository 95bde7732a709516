"""Decisions get ``seq``, the store's commit order, and timelines are ordered by it.

Ordering decisions by their wall-clock ``created_at`` reordered a timeline
when the clock jumped (issue 10 B6). ``seq`` becomes the table's key, as
``seq`` is for ``mailbox_items``; ``id`` stays unique. Existing rows keep
their order: SQLite's ``rowid`` is its insertion order; PostgreSQL had only
``(created_at, id)``. Types are spelled out so this revision never changes
when ``attn.store.schema`` does.

Spec: 000 §6.2 (agent_decisions); DESIGN.md invariant 4.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INSTANT = sa.DateTime(timezone=True).with_variant(sa.Text(), "sqlite")
_ROW_KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_COLUMNS = "id, agent_id, decision_type, mailbox_item_id, context, reasoning, outcome, created_at"


def _create(name: str, *, with_seq: bool) -> None:
    key: list[sa.Column[object]] = (
        [
            sa.Column("seq", _ROW_KEY, primary_key=True, autoincrement=True),
            sa.Column("id", sa.Text(), nullable=False, unique=True),
        ]
        if with_seq
        else [sa.Column("id", sa.Text(), primary_key=True)]
    )
    op.create_table(
        name,
        *key,
        sa.Column("agent_id", sa.Text(), nullable=False),
        sa.Column("decision_type", sa.Text(), nullable=False),
        sa.Column("mailbox_item_id", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("reasoning", sa.Text(), nullable=False, server_default=""),
        sa.Column("outcome", sa.Text()),
        sa.Column("created_at", _INSTANT, nullable=False),
    )


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.drop_index("idx_decisions_agent", "agent_decisions")
    op.drop_index("idx_decisions_mailbox_item", "agent_decisions")
    op.rename_table("agent_decisions", "agent_decisions_0002")
    _create("agent_decisions", with_seq=True)
    order = "rowid" if sqlite else "created_at, id"
    op.execute(
        f"INSERT INTO agent_decisions (seq, {_COLUMNS}) "
        f"SELECT row_number() OVER (ORDER BY {order}), {_COLUMNS} FROM agent_decisions_0002"
    )
    op.drop_table("agent_decisions_0002")
    if not sqlite:
        op.execute(
            "SELECT setval(pg_get_serial_sequence('agent_decisions', 'seq'), "
            "coalesce(max(seq), 0) + 1, false) FROM agent_decisions"
        )
    op.create_index("idx_decisions_agent", "agent_decisions", ["agent_id", "seq"])
    op.create_index("idx_decisions_mailbox_item", "agent_decisions", ["mailbox_item_id", "seq"])


def downgrade() -> None:
    op.drop_index("idx_decisions_agent", "agent_decisions")
    op.drop_index("idx_decisions_mailbox_item", "agent_decisions")
    op.rename_table("agent_decisions", "agent_decisions_0003")
    _create("agent_decisions", with_seq=False)
    op.execute(
        f"INSERT INTO agent_decisions ({_COLUMNS}) SELECT {_COLUMNS} "
        "FROM agent_decisions_0003 ORDER BY seq"
    )
    op.drop_table("agent_decisions_0003")
    op.create_index("idx_decisions_agent", "agent_decisions", ["agent_id", "created_at"])
    op.create_index("idx_decisions_mailbox_item", "agent_decisions", ["mailbox_item_id"])
