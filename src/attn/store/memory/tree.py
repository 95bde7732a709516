"""Spawn-tree nodes in :class:`~attn.store.memory.MemoryStore`: their write and reads.

A node's ``brain`` is the only mutable part of the record, so it goes in as
the JSON its text decodes to (as a database would give it back: tuples become
lists, keys become text) and comes out as a copy. What the ``(tree_id, path)``
unique index would refuse is refused by :func:`check_keys` before anything of
a call is applied. Spec: seed 002; acceptance A2A-10..22.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import replace

from attn.errors import StoreError
from attn.jsontext import dumps
from attn.models import TreeAgent
from attn.store._tree import path_taken, stored
from attn.store.base import PutTreeAgent, WriteOp
from attn.store.memory.tables import Tables

Key = tuple[str, str]


def check_keys(tables: Tables, ops: Sequence[WriteOp]) -> None:
    """Refuse a put whose ``(tree_id, path)`` another id holds, in the store or
    after the call's earlier puts (a node that moves frees its old path).

    Raises:
        StoreError: naming the node, its path and the id that holds it.
    """
    held: dict[Key, str | None] = {}  # the call's changes to tables.tree_paths
    where: dict[str, Key] = {}  # each node's key after the call's earlier puts
    for op in ops:
        if not isinstance(op, PutTreeAgent):
            continue
        agent = op.agent
        key = (agent.tree_id, agent.path)
        holder = held[key] if key in held else tables.tree_paths.get(key)
        if holder is not None and holder != agent.id:
            raise StoreError(path_taken(agent, holder))
        before = where.get(agent.id) or _key_of(tables.tree_agents.get(agent.id))
        if before is not None and before != key:
            held[before] = None
        held[key] = agent.id
        where[agent.id] = key


def _key_of(agent: TreeAgent | None) -> Key | None:
    return None if agent is None else (agent.tree_id, agent.path)


def put(tables: Tables, agent: TreeAgent) -> TreeAgent:
    """Apply one checked put: store ``agent`` (replacing the node with its id); a copy of it."""
    if agent.brain is not None:
        agent = replace(agent, brain=json.loads(dumps(agent.brain)))
    agent = stored(agent)
    old = _key_of(tables.tree_agents.get(agent.id))
    if old is not None:
        del tables.tree_paths[old]
    tables.tree_agents[agent.id] = agent
    tables.tree_paths[(agent.tree_id, agent.path)] = agent.id
    return copied(agent)


def copied(agent: TreeAgent) -> TreeAgent:
    """``agent`` with a brain of its own (the caller may change it)."""
    return agent if agent.brain is None else replace(agent, brain=copy.deepcopy(agent.brain))


def get(tables: Tables, agent_id: str) -> TreeAgent | None:
    """The node with that id, or None."""
    found = tables.tree_agents.get(agent_id)
    return None if found is None else copied(found)


def find(tables: Tables, tree_id: str | None) -> list[TreeAgent]:
    """Nodes of one tree (None: of all), ordered by ``created_at``, then id."""
    nodes = [a for a in tables.tree_agents.values() if tree_id is None or a.tree_id == tree_id]
    nodes.sort(key=lambda a: (a.created_at, a.id))
    return [copied(a) for a in nodes]
