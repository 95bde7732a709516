"""The Store contract for spawn-tree nodes, on every backend.

Putting a node (every field kept, a put by the same id replaces every field),
reading one back, finding a tree's nodes (or every tree's) ordered by
``created_at`` then id, a path another id holds refused as the unique index
would (nothing of that write applied, also when two puts race), bad nodes
refused with :class:`~attn.errors.InvalidInput` and the store unchanged, bad
read arguments refused, and the nodes kept across a restart: the same records
on memory, SQLite and PostgreSQL.

Spec: seed 002 (retained agents: the stored node of each agent, what a restart
needs to host the tree again); acceptance A2A-10..22.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from attn.errors import InvalidInput, StoreError
from attn.models import Channel, ChannelKind, TreeAgent, TreeAgentState
from attn.models.tree import MAX_CAPACITY, MAX_SEGMENT_CHARS, MAX_TREE_DEPTH
from attn.store import open_store
from attn.store.base import PutChannel, PutTreeAgent, Store, WriteOp
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore

from .records import T0, at

BRAIN = {"kind": "fake", "options": {"script": ["hello", {"tool": "spawn"}], "seed": 7}}


def root(agent_id: str = "lead", **values: Any) -> TreeAgent:
    """The root node of the tree ``agent_id``, made at ``T0`` (keywords override fields)."""
    fields: dict[str, Any] = {
        "id": agent_id,
        "tree_id": agent_id,
        "path": "/root",
        "parent_id": None,
        "created_at": T0,
        "description": "leads the work",
        "brain": BRAIN,
        "capacity": 3,
    }
    fields.update(values)
    return TreeAgent(**fields)


def child(name: str, parent: str = "lead", tree: str = "lead", **values: Any) -> TreeAgent:
    """The node ``/root/<name>`` of ``tree`` (id ``<tree>.<name>``), made a second after ``T0``."""
    fields: dict[str, Any] = {
        "id": f"{tree}.{name}",
        "tree_id": tree,
        "path": f"/root/{name}",
        "parent_id": parent,
        "created_at": at(1),
        "description": f"the {name} role",
    }
    fields.update(values)
    return TreeAgent(**fields)


def channel(key: str = "group:core") -> Channel:
    """A team channel made at ``T0``: a record of another kind in the same writes."""
    return Channel(key, ChannelKind.TEAM, key, ("alice", "bob"), T0)


async def put(store: Store, *agents: TreeAgent) -> list[TreeAgent]:
    """Put ``agents`` in one write; what the store answered."""
    results: list[TreeAgent] = await store.write([PutTreeAgent(a) for a in agents])
    return results


# -- put, get, replace ----------------------------------------------------------------


async def test_a_node_round_trips_with_every_field(store: Store) -> None:
    lead = root(description="Straße ☕ — 你好", state=TreeAgentState.ACTIVE)
    ada = child("ada", brain=None, state=TreeAgentState.STOPPED)
    probe = child("probe", parent="lead.ada", id="lead.ada.probe", path="/root/ada/probe",
                  description="", state=TreeAgentState.REMOVED)  # fmt: skip
    assert await put(store, lead, ada, probe) == [lead, ada, probe]
    assert await store.get_tree_agent("lead") == lead
    assert await store.get_tree_agent("lead.ada") == ada
    found = await store.get_tree_agent("lead.ada.probe")
    assert found == probe and found is not None and found.depth == 2
    assert type(found.state) is TreeAgentState
    assert await store.get_tree_agent("lead.none") is None
    assert await store.get_tree_agent("not a tree id") is None  # any id may be asked


async def test_a_put_by_the_same_id_replaces_every_field(store: Store) -> None:
    await put(store, root(), child("ada"))
    moved = TreeAgent(
        id="lead.ada",
        tree_id="other",
        path="/root/bea",
        parent_id="other",
        created_at=at(-60),
        state=TreeAgentState.STOPPED,
        description="renamed",
        brain={"kind": "echo"},
        capacity=None,
    )
    assert await put(store, moved) == [moved]
    assert await store.get_tree_agent("lead.ada") == moved
    assert await store.find_tree_agents("lead") == [root()]
    assert await store.find_tree_agents("other") == [moved]
    # The path it left is free for another id.
    newcomer = child("ada", id="lead.ada2")
    assert await put(store, newcomer) == [newcomer]
    # A root's capacity and brain can be cleared.
    bare = root(capacity=None, brain=None, description="")
    assert await put(store, bare) == [bare]
    assert await store.get_tree_agent("lead") == bare


async def test_nodes_are_found_by_tree_ordered_by_creation_then_id(store: Store) -> None:
    lead = root()
    late = child("late", created_at=at(30))
    tie_b = child("b", created_at=at(5))
    tie_a = child("a", created_at=at(5))
    other_root = root("solo", created_at=at(2))
    other_child = child("x", parent="solo", tree="solo", created_at=at(-5))
    await put(store, late, tie_b, other_child, lead, tie_a, other_root)
    assert await store.find_tree_agents("lead") == [lead, tie_a, tie_b, late]
    assert await store.find_tree_agents("solo") == [other_child, other_root]
    assert await store.find_tree_agents() == [
        other_child, lead, other_root, tie_a, tie_b, late
    ]  # fmt: skip
    assert await store.find_tree_agents(None) == await store.find_tree_agents()
    assert await store.find_tree_agents("none") == []


async def test_ids_order_by_code_point(store: Store) -> None:
    # "B" < "_" < "a" by code point, whatever the database's collation says.
    nodes = [child(n, id=f"lead{sep}{n}") for sep, n in (("_", "p"), ("B", "q"), ("a", "r"))]
    await put(store, *nodes)
    assert [a.id for a in await store.find_tree_agents("lead")] == ["leadBq", "lead_p", "leadar"]


async def test_the_largest_values_are_kept(store: Store) -> None:
    names = [f"{n}" + "s" * (MAX_SEGMENT_CHARS - 1) for n in range(MAX_TREE_DEPTH)]
    deep = child("x", id="i" * 64, tree="t" * 64, parent="p" * 64,
                 path="/root/" + "/".join(names), description="d" * 2_000)  # fmt: skip
    top = root("t" * 64, capacity=MAX_CAPACITY, brain={"a": [[[{"b": 2**63 - 1}]]], "n": -0.5})
    assert await put(store, deep, top) == [deep, top]
    assert await store.get_tree_agent(deep.id) == deep
    assert await store.get_tree_agent(top.id) == top
    assert [a.depth for a in await store.find_tree_agents("t" * 64)] == [0, MAX_TREE_DEPTH]


async def test_instants_in_other_time_zones_are_the_same_instants(store: Store) -> None:
    east = T0.astimezone(timezone(timedelta(hours=5, minutes=30)))
    await put(store, root(created_at=east), child("ada", created_at=at(-1)))
    found = await store.get_tree_agent("lead")
    assert found is not None and found.created_at == T0
    assert [a.id for a in await store.find_tree_agents("lead")] == ["lead.ada", "lead"]


async def test_a_state_given_as_text_is_answered_as_the_enum(store: Store) -> None:
    [answered] = await put(store, root(state="stopped"))
    found = await store.get_tree_agent("lead")
    assert found is not None and type(found.state) is TreeAgentState
    assert found.state == answered.state == TreeAgentState.STOPPED


async def test_a_caller_changing_a_brain_changes_nothing_stored(store: Store) -> None:
    brain: dict[str, Any] = {"kind": "fake", "options": {"steps": [1, 2]}}
    await put(store, root(brain=brain))
    brain["options"]["steps"].append(3)
    found = await store.get_tree_agent("lead")
    assert found is not None and found.brain == {"kind": "fake", "options": {"steps": [1, 2]}}
    assert found.brain is not None
    found.brain["kind"] = "changed"
    [again] = await store.find_tree_agents("lead")
    assert again.brain == {"kind": "fake", "options": {"steps": [1, 2]}}


# -- the unique path ------------------------------------------------------------------


async def test_a_path_another_id_holds_is_refused_with_nothing_written(store: Store) -> None:
    lead, ada = root(), child("ada")
    await put(store, lead, ada)
    with pytest.raises(StoreError, match=r"'/root/ada' of tree 'lead' is taken by 'lead\.ada'"):
        await put(store, child("bea"), child("ada", id="lead.ada2"))
    assert await store.find_tree_agents() == [lead, ada]
    # Two new ids on one path in one write: neither is stored.
    with pytest.raises(StoreError, match=r"taken by 'lead\.x1'"):
        await put(store, child("x", id="lead.x1"), child("x", id="lead.x2"))
    assert await store.find_tree_agents() == [lead, ada]
    # An id that moves onto a held path is refused too, and keeps its own.
    bea = child("bea")
    await put(store, bea)
    with pytest.raises(StoreError, match=r"taken by 'lead\.ada'"):
        await put(store, replace(bea, path="/root/ada"))
    assert await store.get_tree_agent("lead.bea") == bea


async def test_paths_are_unique_per_tree_and_freed_within_a_write(store: Store) -> None:
    ada = child("ada")
    same_path = child("ada", tree="solo", parent="solo")
    await put(store, root(), ada, root("solo"), same_path)
    assert await store.get_tree_agent(same_path.id) == same_path
    # A node moves away and another takes its old path in the same write.
    moved, taker = replace(ada, path="/root/zed"), child("ada", id="lead.new")
    assert await put(store, moved, taker) == [moved, taker]
    assert [a.id for a in await store.find_tree_agents("lead")] == ["lead", "lead.ada", "lead.new"]
    # A put by the holder's own id is a replace, never a clash.
    again = replace(taker, description="same path, same id")
    assert await put(store, again, again) == [again, again]


async def test_racing_puts_of_one_path_store_exactly_one(store: Store) -> None:
    await put(store, root())
    racers = [child("spot", id=f"lead.r{n}", created_at=at(n)) for n in range(12)]
    results = await asyncio.gather(
        *(store.write([PutTreeAgent(r)]) for r in racers), return_exceptions=True
    )
    won = [r for r in results if isinstance(r, list)]
    lost = [r for r in results if isinstance(r, BaseException)]
    assert len(won) == 1 and all(isinstance(e, StoreError) for e in lost), results
    [stored] = [a for a in await store.find_tree_agents("lead") if a.path == "/root/spot"]
    assert [stored] == won[0]


# -- bad input ------------------------------------------------------------------------


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"d": value}
    return value


_TOO_DEEP = "/root/" + "/".join(f"s{n}" for n in range(MAX_TREE_DEPTH + 1))
#: (which record, field, bad value): the root ``lead`` or its child ``lead.ada``.
BAD: list[tuple[str, str, Any]] = [
    ("root", "id", ""), ("root", "id", "i" * 65), ("root", "id", "a b"), ("root", "id", "a/b"),
    ("root", "id", "é"), ("root", "id", None), ("root", "id", 5), ("root", "id", "lead\n"),
    ("root", "tree_id", ""), ("root", "tree_id", "t" * 65), ("root", "tree_id", None),
    ("root", "tree_id", "a:b"),
    ("child", "path", ""), ("child", "path", "root"), ("child", "path", "/root/"),
    ("child", "path", "/root//a"), ("child", "path", "/root/Ada"), ("child", "path", "/root/_a"),
    ("child", "path", "/root/-a"), ("child", "path", "/root/a b"), ("child", "path", "/rooty"),
    ("child", "path", "/other/a"), ("child", "path", "/root/a/"), ("child", "path", "/root/a\n"),
    ("child", "path", "/root/" + "a" * (MAX_SEGMENT_CHARS + 1)), ("child", "path", _TOO_DEEP),
    ("child", "path", None),
    ("root", "parent_id", "someone"), ("child", "parent_id", None), ("child", "parent_id", ""),
    ("child", "parent_id", "p" * 65), ("child", "parent_id", "lead.ada"),
    ("root", "created_at", T0.replace(tzinfo=None)), ("root", "created_at", "2026-01-02"),
    ("root", "created_at", None),
    ("root", "state", "sleeping"), ("root", "state", None), ("root", "state", "ACTIVE"),
    ("root", "description", "d" * 2_001), ("root", "description", None),
    ("root", "description", 5), ("root", "description", "nul\x00"),
    ("root", "description", "lone \ud800"),
    ("root", "brain", []), ("root", "brain", "fake"), ("root", "brain", {"x": float("nan")}),
    ("root", "brain", {"x": 2**64}), ("root", "brain", {"x": {1, 2}}),
    ("root", "brain", {"s": "lone \ud800"}), ("root", "brain", _deep(40)),
    ("root", "capacity", 0), ("root", "capacity", MAX_CAPACITY + 1), ("root", "capacity", True),
    ("root", "capacity", 1.5), ("root", "capacity", "3"), ("child", "capacity", 2),
]  # fmt: skip


def _ids(cases: list[tuple[str, str, Any]]) -> list[str]:
    return [f"{which}.{name}={value!r}"[:48] for which, name, value in cases]


@pytest.fixture
async def with_tree(store: Store) -> Store:
    """The store with the tree ``lead`` (its root and ``/root/ada``) and one channel."""
    await put(store, root(), child("ada"))
    await store.write([PutChannel(channel())])
    return store


async def _assert_unchanged(store: Store) -> None:
    assert await store.find_tree_agents() == [root(), child("ada")]
    assert await store.find_channels() == [channel()]


@pytest.mark.parametrize(("which", "field", "value"), BAD, ids=_ids(BAD))
async def test_a_bad_node_is_refused_with_nothing_written(
    with_tree: Store, which: str, field: str, value: Any
) -> None:
    store = with_tree
    base = root("lead") if which == "root" else child("ada")
    bad = replace(base, **{field: value})
    before: list[WriteOp] = [PutTreeAgent(child("bea")), PutChannel(channel("group:new"))]
    with pytest.raises(InvalidInput, match=field.split("_")[0]):
        await store.write([*before, PutTreeAgent(bad)])
    with pytest.raises(InvalidInput, match=field.split("_")[0]):
        await store.submit([*before, PutTreeAgent(bad)])
    await _assert_unchanged(store)


@pytest.mark.parametrize("bad", ["lead", None, {"id": "lead"}], ids=["str", "none", "dict"])
async def test_a_put_of_something_else_than_a_node_is_refused(with_tree: Store, bad: Any) -> None:
    with pytest.raises(InvalidInput, match="TreeAgent"):
        await with_tree.write([PutTreeAgent(child("bea")), PutTreeAgent(bad)])
    await _assert_unchanged(with_tree)


READS: list[tuple[str, Callable[[Store], Awaitable[Any]]]] = [
    ("get ''", lambda s: s.get_tree_agent("")),
    ("get None", lambda s: s.get_tree_agent(None)),
    ("get 201", lambda s: s.get_tree_agent("x" * 201)),
    ("get NUL", lambda s: s.get_tree_agent("a\x00")),
    ("find ''", lambda s: s.find_tree_agents("")),
    ("find 5", lambda s: s.find_tree_agents(5)),
    ("find blank", lambda s: s.find_tree_agents("  ")),
]


@pytest.mark.parametrize("read", [r for _, r in READS], ids=[n for n, _ in READS])
async def test_bad_read_arguments_are_invalid_input(
    with_tree: Store, read: Callable[[Store], Awaitable[Any]]
) -> None:
    with pytest.raises(InvalidInput):
        await read(with_tree)


# -- restarts -------------------------------------------------------------------------


@pytest.fixture
async def reopen(backend: str, tmp_path: Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Opens another store on the same database as ``store`` (memory: skipped)."""
    if backend == "memory":
        pytest.skip("a memory store keeps nothing across a restart")
    opened: list[Store] = []

    async def make() -> Store:
        made: Store = (
            SQLiteStore(tmp_path / "attn.db") if backend == "sqlite" else open_store(backend)
        )
        await made.open()
        opened.append(made)
        return made

    yield make
    for made in opened:
        await made.close()


async def test_the_tree_survives_a_restart(
    store: Store, reopen: Callable[[], Awaitable[Store]]
) -> None:
    tree = [
        root(),
        child("ada", brain=None),
        child("probe", parent="lead.ada", id="lead.ada.probe", path="/root/ada/probe",
              created_at=at(2), state=TreeAgentState.STOPPED),
        root("solo", created_at=at(3), capacity=None),
    ]  # fmt: skip
    await put(store, *tree)
    await store.close()
    again = await reopen()
    assert await again.find_tree_agents() == tree
    assert await again.get_tree_agent("lead.ada.probe") == tree[2]
    # The unique path holds after the restart, and a replace still works.
    with pytest.raises(StoreError, match=r"taken by 'lead\.ada'"):
        await put(again, child("ada", id="lead.other"))
    removed = replace(tree[1], state=TreeAgentState.REMOVED)
    assert await put(again, removed) == [removed]
    assert await again.get_tree_agent("lead.ada") == removed


async def test_the_memory_store_keeps_its_own_copy_of_a_brain() -> None:
    store = MemoryStore()
    await store.open()
    brain: dict[Any, Any] = {"kind": "fake", "options": {"n": (1, 2)}, 3: "three"}
    [answered] = await put(store, root(brain=brain))
    # Kept as a database gives it back: tuples as lists, keys as text.
    assert answered.brain == {"kind": "fake", "options": {"n": [1, 2]}, "3": "three"}
    brain["kind"] = "changed"
    assert answered.brain is not None
    answered.brain["kind"] = "changed too"
    found = await store.get_tree_agent("lead")
    assert found is not None and found.brain is not None and found.brain["kind"] == "fake"
    await store.close()
