"""Long-term memory on PostgreSQL: the ``memories`` statements, one save, the word search.

A save is two statements in the write's transaction: the replacement of the
entry under its key, then, when there is none, an insert guarded by the
agent's entry count (under READ COMMITTED two concurrent saves of one agent
could both pass it at 9,999; one runtime hosts an agent, by the host lock, and
its loop saves one entry at a time). The search ranks in SQL over the ``words`` column (see
:mod:`attn.store._memories`); ids order by code point (``COLLATE "C"``), as
on the other stores. Spec: 000 §8.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

import asyncpg

from attn.models import MAX_MEMORIES_PER_AGENT, Memory
from attn.store._memories import framed, words_column

if TYPE_CHECKING:
    from attn.store.postgres.writes import Connection

_COLUMNS = "id, agent_id, content, key, created_at, updated_at"

_REPLACE = """
UPDATE memories SET content = $1, words = $2, updated_at = $3 WHERE agent_id = $4 AND key = $5
RETURNING id, created_at
"""
_INSERT = """
INSERT INTO memories (id, agent_id, content, key, words, created_at, updated_at)
SELECT $1, $2, $3, $4, $5, $6, $7 WHERE (SELECT count(*) FROM memories WHERE agent_id = $2) < $8
"""
DELETE = "DELETE FROM memories WHERE id = $1 AND agent_id = $2"
COUNT = "SELECT count(*) FROM memories WHERE agent_id = $1"


@lru_cache(maxsize=64)
def search_statement(n_words: int) -> str:
    """The search for ``n_words`` words; arguments: agent, limit, then the framed words."""
    score = " + ".join(f"(strpos(words, ${i + 3}) > 0)::int" for i in range(n_words))
    return (
        f"SELECT {_COLUMNS} FROM (SELECT {_COLUMNS}, {score} AS score FROM memories"
        " WHERE agent_id = $1) AS m WHERE score > 0"
        ' ORDER BY score DESC, updated_at DESC, id COLLATE "C" DESC LIMIT $2'
    )


def search_args(agent_id: str, query_words: list[str], limit: int) -> tuple[object, ...]:
    """The arguments of :func:`search_statement`."""
    return (agent_id, limit, *framed(query_words))


async def save(conn: Connection, memory: Memory) -> Memory | None:
    """Apply a ``SaveMemory`` inside the caller's transaction; the stored entry or None."""
    words = words_column(memory)
    if memory.key is not None:
        row = await conn.fetchrow(
            _REPLACE, memory.content, words, memory.updated_at, memory.agent_id, memory.key
        )
        if row is not None:
            return replace(memory, id=row["id"], created_at=row["created_at"])
    status = await conn.execute(
        _INSERT, memory.id, memory.agent_id, memory.content, memory.key, words,
        memory.created_at, memory.updated_at, MAX_MEMORIES_PER_AGENT,
    )  # fmt: skip
    return memory if status.rsplit(" ", 1)[-1] != "0" else None


def decode(row: asyncpg.Record) -> Memory:
    """A ``memories`` row as a :class:`~attn.models.Memory`."""
    return Memory(
        id=row["id"],
        agent_id=row["agent_id"],
        content=row["content"],
        key=row["key"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )
