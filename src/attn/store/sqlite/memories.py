"""Long-term memory on SQLite: the ``memories`` statements, one save, the word search.

A save runs in the writer's ``BEGIN IMMEDIATE`` transaction: first the
replacement of the entry under its key, then, when there is none, an insert
guarded by the agent's entry count, so the cap holds also against other
processes. The search ranks in SQL over the ``words`` column (see
:mod:`attn.store._memories`). Spec: 000 §8.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from attn.models import MAX_MEMORIES_PER_AGENT, Memory
from attn.store._memories import framed, words_column
from attn.store.sqlite import codec
from attn.store.sqlite.codec import Row
from attn.store.sqlite.reads import Read

_COLUMNS = "id, agent_id, content, key, created_at, updated_at"

_REPLACE = """
UPDATE memories SET content = ?, words = ?, updated_at = ? WHERE agent_id = ? AND key = ?
RETURNING id, created_at
"""
_INSERT = """
INSERT INTO memories (id, agent_id, content, key, words, created_at, updated_at)
SELECT ?, ?, ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM memories WHERE agent_id = ?) < ?
"""
_DELETE = "DELETE FROM memories WHERE id = ? AND agent_id = ?"
_COUNT = "SELECT count(*) FROM memories WHERE agent_id = ?"


@lru_cache(maxsize=64)
def _search(n_words: int) -> str:
    score = " + ".join(["(instr(words, ?) > 0)"] * n_words)
    return (
        f"SELECT {_COLUMNS} FROM (SELECT {_COLUMNS}, {score} AS score FROM memories"
        " WHERE agent_id = ?) WHERE score > 0"
        " ORDER BY score DESC, updated_at DESC, id DESC LIMIT ?"
    )


def save(memory: Memory) -> tuple[Any, Any]:
    """The writer's run of a ``SaveMemory`` and its finisher (the stored entry or None)."""
    words = words_column(memory)
    updated = codec.encode_instant(memory.updated_at)
    created = codec.encode_instant(memory.created_at)

    def run(cur: sqlite3.Cursor) -> Row | bool:
        if memory.key is not None:
            rows = cur.execute(
                _REPLACE, (memory.content, words, updated, memory.agent_id, memory.key)
            ).fetchall()
            if rows:
                return tuple(rows[0])
        params = (memory.id, memory.agent_id, memory.content, memory.key, words, created,
                  updated, memory.agent_id, MAX_MEMORIES_PER_AGENT)  # fmt: skip
        return cur.execute(_INSERT, params).rowcount == 1

    def finish(raw: Row | bool) -> Memory | None:
        if raw is True:
            return memory
        if raw is False:
            return None
        return replace(memory, id=raw[0], created_at=_instant(raw[1]))

    return run, finish


def delete(agent_id: str, memory_id: str) -> Any:
    """The writer's run of a ``DeleteMemory``: True when a row was removed."""

    def run(cur: sqlite3.Cursor) -> bool:
        return cur.execute(_DELETE, (memory_id, agent_id)).rowcount > 0

    return run


def search(agent_id: str, query_words: list[str], limit: int) -> Read[list[Memory]]:
    """The reader's search of the agent's entries (no words: no read, no entries)."""
    params = [*framed(query_words), agent_id, limit]
    statement = _search(len(query_words))

    def run(cur: sqlite3.Cursor) -> list[Row]:
        return cur.execute(statement, params).fetchall() if query_words else []

    return Read(run, _decode_all)


def count(agent_id: str) -> Read[int]:
    """The reader's count of the agent's entries."""

    def run(cur: sqlite3.Cursor) -> int:
        return int(cur.execute(_COUNT, (agent_id,)).fetchone()[0])

    return Read(run, int)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _decode_all(rows: list[Row]) -> list[Memory]:
    return [
        Memory(
            id=row[0],
            agent_id=row[1],
            content=row[2],
            key=row[3],
            created_at=_instant(row[4]),
            updated_at=_instant(row[5]),
        )
        for row in rows
    ]
