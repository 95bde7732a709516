"""Hosting a stored tree again after a restart, and removing a subtree.

Spec: seed 002 (the tree is stored; restart starts no turn); acceptance A2A-17.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

from attn.errors import InvalidInput
from attn.models import TreeAgent, TreeAgentState
from attn.store.base import PutTreeAgent
from attn.tree import events

if TYPE_CHECKING:
    from attn.tree.service import Tree

log = logging.getLogger("attn.tree")


async def restore(tree: Tree, root_id: str) -> list[TreeAgent]:
    """See :meth:`attn.tree.Tree.restore`."""
    stored = await tree.store.find_tree_agents(root_id)
    root = next((n for n in stored if n.is_root and n.state != TreeAgentState.REMOVED), None)
    if root is None:
        return []
    await tree.make_root(root_id, capacity=root.capacity)
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
        await tree.host_child(node, brain, None, ())
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
    await tree.host.remove_agent(node.id)  # its turn, if any, settles; the runtime detaches it
    tree.detach(node.id)
    await tree.store.write([PutTreeAgent(dataclasses.replace(node, state=TreeAgentState.REMOVED))])
    events.removed(tree, node)
    return [*removed, node.id]


__all__ = ["remove", "restore"]
