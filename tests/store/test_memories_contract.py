"""The Store contract for long-term memory, on every backend.

Saving (a key replaces its entry), the per-agent cap, deleting, and the word
search: same entries, same order, on memory, SQLite and PostgreSQL; refused
input changes nothing.

Spec: 000 §8 (long-term memory kept in the database), §21 (memory_save,
memory_search); issue 12 point 5.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from attn.errors import InvalidInput, StoreError
from attn.ids import new_id
from attn.models import MAX_MEMORY_CHARS, MAX_MEMORY_KEY_CHARS, Memory
from attn.store.base import DeleteMemory, SaveMemory, Store
from attn.store.memory import MemoryStore
from attn.store.memory import writes as memory_writes
from attn.store.postgres import memories as pg_memories
from attn.store.sqlite import SQLiteStore
from attn.store.sqlite import memories as sqlite_memories

from .records import T0, at


def memory(content: str, key: str | None = None, *, agent: str = "alice", **values: Any) -> Memory:
    """A memory entry saved at ``T0`` (keywords override fields)."""
    fields: dict[str, Any] = {
        "id": new_id("mem"),
        "agent_id": agent,
        "content": content,
        "key": key,
        "created_at": T0,
        "updated_at": T0,
    }
    fields.update(values)
    return Memory(**fields)


async def save(store: Store, *entries: Memory) -> list[Memory | None]:
    results: list[Memory | None] = await store.write([SaveMemory(m) for m in entries])
    return results


async def every(store: Store, agent: str = "alice") -> list[Memory]:
    """Every entry of ``agent`` (a search for all their words)."""
    return sorted(await store.search_memories(agent, "alpha beta gamma x", 50), key=lambda m: m.id)


async def test_a_saved_entry_round_trips_every_field_and_is_scoped_per_agent(store: Store) -> None:
    entry = memory("Alice prefers tea ☕, not coffee", "drinks", id="mem_1")
    assert await save(store, entry) == [entry]
    assert await store.search_memories("alice", "TEA", 5) == [entry]
    assert await store.search_memories("bob", "tea", 5) == []
    assert await store.count_memories("alice") == 1
    assert await store.count_memories("bob") == 0


async def test_saving_under_a_used_key_replaces_that_entry(store: Store) -> None:
    first = memory("deploys happen on friday", "deploy-day", id="mem_1")
    other = memory("deploys happen on friday too", "deploy-day", agent="bob", id="mem_2")
    await save(store, first, other)
    again = memory("deploys moved to monday", "deploy-day", id="mem_new", updated_at=at(60))
    [stored] = await save(store, again)
    assert stored == replace(again, id="mem_1", created_at=T0)
    assert await store.search_memories("alice", "deploys", 5) == [stored]
    assert await store.search_memories("alice", "friday", 5) == []
    assert await store.count_memories("alice") == 1
    assert await store.search_memories("bob", "friday", 5) == [other]


async def test_entries_without_a_key_never_replace_each_other(store: Store) -> None:
    await save(store, memory("alpha one", id="mem_1"), memory("alpha two", id="mem_2"))
    assert await store.count_memories("alice") == 2


async def test_search_ranks_by_matching_words_then_newest_then_id(store: Store) -> None:
    both = memory("Alpha and beta", id="mem_a")
    newer = memory("only alpha here", id="mem_b", updated_at=at(10))
    older = memory("alpha, older", id="mem_c", updated_at=at(-10))
    tie = memory("alpha tie", id="mem_d", updated_at=at(10))
    key_only = memory("nothing to see", "beta-notes", id="mem_e", updated_at=at(-20))
    none = memory("gamma", id="mem_f")
    await save(store, both, newer, older, tie, key_only, none)
    found = await store.search_memories("alice", "alpha beta alpha", 10)
    assert [m.id for m in found] == ["mem_a", "mem_d", "mem_b", "mem_c", "mem_e"]
    assert [m.id for m in await store.search_memories("alice", "alpha beta", 2)] == [
        "mem_a",
        "mem_d",
    ]


async def test_search_matches_whole_lower_case_words_only(store: Store) -> None:
    await save(store, memory("Straße déjà-vu snake_case x1", id="mem_1"))
    for query in ("straße", "DÉJÀ", "vu", "snake_case", "X1"):
        assert [m.id for m in await store.search_memories("alice", query, 5)] == ["mem_1"], query
    for query in ("stra", "snake", "case", "x", "", "  ...  "):
        assert await store.search_memories("alice", query, 5) == [], query


@pytest.mark.parametrize(
    ("query", "limit"),
    [(None, 5), ("x" * 1001, 5), ("tea", 0), ("tea", 51), ("tea", True), ("tea", 1.5)],
)
async def test_search_refuses_bad_arguments(store: Store, query: Any, limit: Any) -> None:
    with pytest.raises(InvalidInput):
        await store.search_memories("alice", query, limit)


async def test_search_takes_the_longest_query_and_largest_limit(store: Store) -> None:
    await save(store, *(memory(f"alpha {n}", id=f"mem_{n:02}") for n in range(60)))
    found = await store.search_memories("alice", "alpha " + "y" * 994, 50)
    assert len(found) == 50
    assert [m.id for m in found[:2]] == ["mem_59", "mem_58"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("content", ""),
        ("content", "   "),
        ("content", "x" * (MAX_MEMORY_CHARS + 1)),
        ("content", "nul\x00"),
        ("content", "lone \ud800"),
        ("content", 7),
        ("key", ""),
        ("key", "k" * (MAX_MEMORY_KEY_CHARS + 1)),
        ("agent_id", None),
        ("created_at", T0.replace(tzinfo=None)),
    ],
)
async def test_a_bad_entry_is_refused_and_nothing_of_the_write_is_kept(
    store: Store, field: str, value: Any
) -> None:
    await save(store, memory("alpha kept", "k", id="mem_1"))
    bad = replace(memory("alpha bad", id="mem_bad"), **{field: value})
    with pytest.raises(StoreError):
        await save(store, memory("alpha also new", id="mem_2"), bad)
    assert [m.id for m in await every(store)] == ["mem_1"]


async def test_the_largest_entry_and_key_are_kept(store: Store) -> None:
    big = memory("alpha " + "x" * (MAX_MEMORY_CHARS - 6), "k" * MAX_MEMORY_KEY_CHARS, id="mem_1")
    assert await save(store, big) == [big]
    assert await store.search_memories("alice", "alpha", 1) == [big]


async def test_a_repeated_id_is_refused(store: Store) -> None:
    await save(store, memory("alpha", id="mem_1"))
    with pytest.raises(StoreError):
        await save(store, memory("beta", id="mem_1"))
    assert [m.content for m in await every(store)] == ["alpha"]


async def test_delete_removes_only_the_agents_own_entry(store: Store) -> None:
    await save(store, memory("alpha", "k", id="mem_1"))
    assert await store.write([DeleteMemory("bob", "mem_1")]) == [False]
    assert await store.write([DeleteMemory("alice", "mem_1")]) == [True]
    assert await store.write([DeleteMemory("alice", "mem_1")]) == [False]
    assert await store.count_memories("alice") == 0
    # The key is free again: a new save under it inserts.
    [stored] = await save(store, memory("beta", "k", id="mem_2"))
    assert stored is not None and stored.id == "mem_2"


@pytest.fixture
def cap_of_three(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store keeps at most 3 entries per agent (the real cap is tested below)."""
    for module in (memory_writes, sqlite_memories, pg_memories):
        monkeypatch.setattr(module, "MAX_MEMORIES_PER_AGENT", 3)


@pytest.mark.usefixtures("cap_of_three")
async def test_a_full_memory_refuses_new_entries_but_still_replaces_keyed_ones(
    store: Store,
) -> None:
    kept = [memory("alpha", "k", id="mem_1"), memory("beta", id="mem_2"), memory("x", id="mem_3")]
    await save(store, *kept)
    assert await save(store, memory("gamma", id="mem_4")) == [None]
    assert await save(store, memory("gamma", "other", id="mem_5")) == [None]
    assert await store.count_memories("alice") == 3
    assert [m.id for m in await every(store)] == ["mem_1", "mem_2", "mem_3"]
    [replaced] = await save(store, memory("gamma", "k", id="mem_6"))
    assert replaced is not None and replaced.id == "mem_1"
    assert await save(store, memory("alpha", agent="bob", id="mem_7")) != [None]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_the_real_cap_is_ten_thousand_entries(kind: str, tmp_path: Path) -> None:
    """The real cap, on the two stores where 10,000 saves are quick (PostgreSQL runs
    the same rule with the cap patched to three, above)."""
    store: Store = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "attn.db")
    await store.open()
    try:
        await _fill_to_the_cap(store)
    finally:
        await store.close()


async def _fill_to_the_cap(store: Store) -> None:
    await save(store, *(memory(f"n{n}", id=f"mem_{n:05}") for n in range(10_000)))
    assert await save(store, memory("one more", id="mem_x")) == [None]
    assert await store.count_memories("alice") == 10_000
