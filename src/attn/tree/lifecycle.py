"""Making a root, hosting a stored tree again after a restart, removing a subtree.

Spec: seed 002 (the tree is stored; restart starts no turn); acceptance A2A-17.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from typing import TYPE_CHECKING

from attn.config import AgentConfig
from attn.errors import InvalidInput, ItemNotFound, shown
from attn.models import DEFAULT_CAPACITY, ROOT_PATH, TreeAgent, TreeAgentState, WakePolicy
from attn.models.tree import MAX_CAPACITY
from attn.store.base import PutTreeAgent
from attn.tree import events
from attn.tree.capacity import Slots

if TYPE_CHECKING:
    from attn.tree.service import Tree

log = logging.getLogger("attn.tree")


async def make_root(
    tree: Tree, agent_id: str, capacity: int | None, wake: WakePolicy | None
) -> TreeAgent:
    """See :meth:`attn.tree.Tree.make_root`."""
    agent = tree.hosted(agent_id)
    if wake is not None and wake not in tuple(WakePolicy):
        raise InvalidInput(f"wake must be 'always' or 'on_mail', got {shown(wake)}")
    if capacity is not None and (
        not isinstance(capacity, int)
        or isinstance(capacity, bool)
        or not 1 <= capacity <= MAX_CAPACITY
    ):
        raise InvalidInput(
            f"capacity must be an integer in 1..{MAX_CAPACITY}, got {shown(capacity)}"
        )
    known = tree.nodes.get(agent_id) or await tree.store.get_tree_agent(agent_id)
    if known is not None and not known.is_root and known.state != TreeAgentState.REMOVED:
        raise InvalidInput(f"{agent_id!r} is {known.path} in tree {known.tree_id!r}, not a root")
    config = getattr(agent, "config", None)
    configured = config.capacity if isinstance(config, AgentConfig) else DEFAULT_CAPACITY
    node = TreeAgent(
        id=agent_id,
        tree_id=agent_id,
        path=ROOT_PATH,
        parent_id=None,
        created_at=known.created_at if known and known.is_root else tree.clock.now(),
        description=agent.description if hasattr(agent, "description") else "",
        # Set live (over HTTP, Python): kept across restarts, like a live heartbeat
        # interval; None: the agent's configured capacity (attn.toml), read on each start.
        capacity=capacity if capacity is not None else (known.capacity if known else None),
    )
    await tree.store.write([PutTreeAgent(node)])
    tree.nodes[agent_id] = node
    slots = tree.slots.get(agent_id)
    if slots is None:
        tree.slots[agent_id] = Slots(agent_id, node.capacity or configured)
    else:
        slots.capacity = node.capacity or configured
        slots.offer()
    if agent_id not in tree.gates:
        policy = wake or WakePolicy(getattr(agent, "config", AgentConfig()).wake)
        tree.install(agent, node, None, policy)
    if known is None or not known.is_root:
        events.spawned(tree, node)
    return node


async def restore(tree: Tree, root_id: str) -> list[TreeAgent]:
    """See :meth:`attn.tree.Tree.restore`."""
    stored = await tree.store.find_tree_agents(root_id)
    root = next((n for n in stored if n.is_root and n.state != TreeAgentState.REMOVED), None)
    if root is None:
        return []
    await tree.make_root(root_id)
    hosted: list[TreeAgent] = []
    for node in sorted(stored, key=lambda n: (n.depth, n.created_at, n.id)):
        if node.is_root or node.state == TreeAgentState.REMOVED or node.id in tree.nodes:
            continue
        if node.parent_id not in tree.nodes:
            continue  # its parent could not be hosted
        brain = tree.brain_factory(node)
        if brain is None:
            log.warning("cannot rebuild the brain of %s (%s); not hosted", node.id, node.path)
            continue
        agent = await tree.host_child(node, brain, None, ())
        recovery = getattr(agent, "recovery", None)  # what restart recovery did (attn.Agent)
        killed = list(getattr(recovery, "requeued", ()))  # turns a crash left processing
        await tree.results.killed(tree.gates[node.id], killed)
        hosted.append(node)
    return hosted


async def remove(tree: Tree, agent_id: str) -> list[str]:
    """See :meth:`attn.tree.Tree.remove`."""
    node = tree.node(agent_id)
    if node.is_root:
        raise InvalidInput(f"{agent_id!r} is the root of its tree: remove its children instead")
    removed: list[str] = []
    for child in tree.children(node.id):
        removed += await remove(tree, child.id)
    agent = tree.hosted(node.id)
    for item in [*agent.mailbox.queued_items(), *agent.mailbox.deferred_items()]:
        # A node spawned later under the same path must not read this one's mail.
        with contextlib.suppress(ItemNotFound):
            await agent.mailbox.drop(item.id, reason=f"{node.path} was removed")
    await tree.host.remove_agent(node.id)  # its turn, if any, settles; the runtime detaches it
    tree.detach(node.id)
    await tree.store.write([PutTreeAgent(dataclasses.replace(node, state=TreeAgentState.REMOVED))])
    events.removed(tree, node)
    return [*removed, node.id]


__all__ = ["make_root", "remove", "restore"]
