"""Spawn-tree nodes on PostgreSQL: the statements, rows ↔ records, the write and the reads.

A put runs in a transaction: it looks for another id holding the node's
``(tree_id, path)``, then upserts by id, replacing every column. Two
concurrent puts that both miss each other are settled by the unique index:
the later one fails (a :class:`~attn.errors.StoreError`) and is rolled back.
Ids order by code point (``COLLATE "C"``), as on the other stores.
:class:`TreeReads` gives :class:`~attn.store.postgres.PostgresStore` the tree
reads of the port.

Spec: seed 002 (retained agents); acceptance A2A-10..22.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import asyncpg

from attn.errors import StoreError
from attn.models import TreeAgent, TreeAgentState
from attn.store._tree import brain_of, brain_text, check_tree_lookup, path_taken, stored

if TYPE_CHECKING:
    from attn.store.postgres.writes import Connection

#: A write that runs its own statements on the transaction's connection.
Call = Callable[["Connection"], Awaitable[Any]]

_COLUMNS = "id, tree_id, path, parent_id, created_at, state, description, brain, capacity"
_HOLDER = "SELECT id FROM tree_agents WHERE tree_id = $1 AND path = $2 AND id <> $3"
_PUT = f"""
INSERT INTO tree_agents ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (id) DO UPDATE SET tree_id = EXCLUDED.tree_id, path = EXCLUDED.path,
  parent_id = EXCLUDED.parent_id, created_at = EXCLUDED.created_at, state = EXCLUDED.state,
  description = EXCLUDED.description, brain = EXCLUDED.brain, capacity = EXCLUDED.capacity
"""
_GET = f"SELECT {_COLUMNS} FROM tree_agents WHERE id = $1"
# Served by idx_tree_agents_tree (tree_id, created_at).
_FIND_TREE = (
    f'SELECT {_COLUMNS} FROM tree_agents WHERE tree_id = $1 ORDER BY created_at, id COLLATE "C"'
)
_FIND_ALL = f'SELECT {_COLUMNS} FROM tree_agents ORDER BY created_at, id COLLATE "C"'


def decode_tree_agent(row: asyncpg.Record) -> TreeAgent:
    """A :class:`~attn.models.TreeAgent` from a row of ``tree_agents``."""
    return TreeAgent(
        id=row["id"],
        tree_id=row["tree_id"],
        path=row["path"],
        parent_id=row["parent_id"],
        created_at=row["created_at"],
        state=TreeAgentState(row["state"]),
        description=row["description"],
        brain=brain_of(row["brain"]),
        capacity=row["capacity"],
    )


def put_tree_agent(agent: TreeAgent) -> Call:
    """A ``PutTreeAgent`` as a call on the transaction's connection (the stored node).

    The call raises :class:`~attn.errors.StoreError` when another id holds the
    node's path in its tree, which rolls the write back.
    """
    a = agent
    args = (a.id, a.tree_id, a.path, a.parent_id, a.created_at, str(a.state), a.description,
            brain_text(a.brain), a.capacity)  # fmt: skip

    async def call(conn: Connection) -> TreeAgent:
        holder = await conn.fetchval(_HOLDER, a.tree_id, a.path, a.id)
        if holder is not None:
            raise StoreError(path_taken(agent, holder))
        await conn.execute(_PUT, *args)
        return stored(agent)

    return call


class TreeReads(ABC):
    """The spawn-tree reads of the :class:`~attn.store.base.Store` port (seed 002);
    the store supplies :meth:`_fetch` (one pooled statement)."""

    @abstractmethod
    async def _fetch(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """The rows of one statement."""

    async def get_tree_agent(self, agent_id: str) -> TreeAgent | None:
        """The stored node with that agent id (whatever its state), or None.

        Raises:
            InvalidInput: ``agent_id`` is not a non-blank string of at most 200 characters.
        """
        rows = await self._fetch(_GET, check_tree_lookup(agent_id, "agent id"))
        return decode_tree_agent(rows[0]) if rows else None

    async def find_tree_agents(self, tree_id: str | None = None) -> list[TreeAgent]:
        """Stored nodes of one tree (None: of all trees), ordered by ``created_at`` then id.

        Raises:
            InvalidInput: ``tree_id`` is neither None nor a non-blank string of at
                most 200 characters.
        """
        if tree_id is None:
            rows = await self._fetch(_FIND_ALL)
        else:
            rows = await self._fetch(_FIND_TREE, check_tree_lookup(tree_id, "tree id"))
        return [decode_tree_agent(row) for row in rows]
