"""Spawn-tree nodes on SQLite: the statements, rows ↔ records, the writer's run and the reads.

A put first looks for another id holding the node's ``(tree_id, path)``
inside the writer's ``BEGIN IMMEDIATE`` transaction (it sees the call's
earlier puts), then upserts by id, replacing every column; the unique index
refuses what the look-up missed. :class:`TreeReads` gives
:class:`~attn.store.sqlite.SQLiteStore` the tree reads of the port.

Spec: seed 002 (retained agents); acceptance A2A-10..22.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any, TypeVar

from attn.errors import StoreError
from attn.models import TreeAgent, TreeAgentState
from attn.store._tree import brain_of, brain_text, check_tree_lookup, path_taken, stored
from attn.store.sqlite.codec import Row, encode_instant
from attn.store.sqlite.reads import Read

_T = TypeVar("_T")

_COLUMNS = "id, tree_id, path, parent_id, created_at, state, description, brain, capacity"
_HOLDER = "SELECT id FROM tree_agents WHERE tree_id = ? AND path = ? AND id <> ?"
_PUT = f"""
INSERT INTO tree_agents ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET tree_id = excluded.tree_id, path = excluded.path,
  parent_id = excluded.parent_id, created_at = excluded.created_at, state = excluded.state,
  description = excluded.description, brain = excluded.brain, capacity = excluded.capacity
"""
_GET = f"SELECT {_COLUMNS} FROM tree_agents WHERE id = ?"
# Served by idx_tree_agents_tree (tree_id, created_at).
_FIND_TREE = f"SELECT {_COLUMNS} FROM tree_agents WHERE tree_id = ? ORDER BY created_at, id"
_FIND_ALL = f"SELECT {_COLUMNS} FROM tree_agents ORDER BY created_at, id"


def decode_tree_agent(row: Row) -> TreeAgent:
    """A :class:`~attn.models.TreeAgent` from a row of ``tree_agents``."""
    id_, tree_id, path, parent_id, created_at, state, description, brain, capacity = row
    return TreeAgent(
        id_, tree_id, path, parent_id, datetime.fromisoformat(created_at),
        TreeAgentState(state), description, brain_of(brain), capacity,
    )  # fmt: skip


def put_tree_agent(agent: TreeAgent) -> tuple[Any, Any]:
    """The writer's run of a ``PutTreeAgent`` and its finisher (the stored node).

    The run raises :class:`~attn.errors.StoreError` when another id holds the
    node's path in its tree (the writer rolls the call back).
    """
    a = agent
    params = (a.id, a.tree_id, a.path, a.parent_id, encode_instant(a.created_at), str(a.state),
              a.description, brain_text(a.brain), a.capacity)  # fmt: skip
    holder_key = (a.tree_id, a.path, a.id)

    def run(cur: sqlite3.Cursor) -> None:
        holder = cur.execute(_HOLDER, holder_key).fetchone()
        if holder is not None:
            raise StoreError(path_taken(agent, holder[0]))
        cur.execute(_PUT, params)

    return run, lambda _raw: stored(agent)


def _rows(statement: str, params: tuple[Any, ...]) -> Any:
    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(statement, params).fetchall()

    return run


def _first(rows: list[Row]) -> TreeAgent | None:
    return decode_tree_agent(rows[0]) if rows else None


def _all(rows: list[Row]) -> list[TreeAgent]:
    return [decode_tree_agent(row) for row in rows]


class TreeReads(ABC):
    """The spawn-tree reads of the :class:`~attn.store.base.Store` port (seed 002);
    the store supplies :meth:`_read` (the reader thread)."""

    @abstractmethod
    async def _read(self, read: Read[_T]) -> _T:
        """Run ``read`` on the reader thread."""

    async def get_tree_agent(self, agent_id: str) -> TreeAgent | None:
        """The stored node with that agent id (whatever its state), or None.

        Raises:
            InvalidInput: ``agent_id`` is not a non-blank string of at most 200 characters.
        """
        agent_id = check_tree_lookup(agent_id, "agent id")
        return await self._read(Read(_rows(_GET, (agent_id,)), _first))

    async def find_tree_agents(self, tree_id: str | None = None) -> list[TreeAgent]:
        """Stored nodes of one tree (None: of all trees), ordered by ``created_at`` then id.

        Raises:
            InvalidInput: ``tree_id`` is neither None nor a non-blank string of at
                most 200 characters.
        """
        if tree_id is None:
            return await self._read(Read(_rows(_FIND_ALL, ()), _all))
        tree_id = check_tree_lookup(tree_id, "tree id")
        return await self._read(Read(_rows(_FIND_TREE, (tree_id,)), _all))
