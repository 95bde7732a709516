"""How the API shows spawn trees, their nodes and their RESULTs, and how it removes
an agent that belongs to a tree.

Used by the tree routes, the agent listing and ``DELETE /api/agents/{agentId}``,
so it lives below all of them (no route module imports another for it).

Spec: seed 002; acceptance A2A-12, A2A-14, A2A-21, A2A-22.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.errors import UnknownAgent, shown
from attn.models import ROOT_PATH, ItemStatus, MailboxItem, TreeAgent
from attn.tree.events import state_of

if TYPE_CHECKING:
    from attn.runtime import Runtime
    from attn.tree import Tree


def root_of(tree: Tree, tree_id: object) -> TreeAgent:
    """The hosted root of the tree ``tree_id``.

    Raises:
        UnknownAgent: no hosted tree has that id (a child's id is not a tree's).
    """
    node = tree.nodes.get(tree_id) if isinstance(tree_id, str) else None
    if node is None or not node.is_root:
        roots = ", ".join(sorted(n.id for n in tree.nodes.values() if n.is_root)[:20]) or "none"
        raise UnknownAgent(f"no spawn tree has the id {shown(tree_id)} (trees: {roots})")
    return node


def node_view(tree: Tree, node: TreeAgent) -> dict[str, Any]:
    """One hosted node: :meth:`TreeAgent.to_dict` with what it does now.

    ``state`` is the run state (idle, running, waiting, stopped) and
    ``capacity`` its tree's, as in ``tree:agent-state``; ``plan`` says whether
    it is in Plan mode and ``turns`` how many turns it settled since it was hosted.
    """
    view = node.to_dict()
    gate = tree.gates.get(node.id)
    if gate is not None:
        view.update(state_of(tree, gate))
        view["turns"] = gate.turns
    else:  # hosted again meanwhile; rare
        view.update(unread=0, readOnly=False, slotsInUse=0, turns=0)
    view["plan"] = node.id in tree.plan
    return view


def slots_view(tree: Tree, tree_id: str) -> dict[str, Any]:
    """A tree's slots: capacity, how many are in use, and the paths holding,
    reserved and waiting for one (sorted)."""
    slots = tree.slots.get(tree_id)
    if slots is None:
        return {
            "treeId": tree_id,
            "capacity": 0,
            "slotsInUse": 0,
            "holders": [],
            "reserved": [],
            "waiting": [],
        }
    return {
        "treeId": tree_id,
        "capacity": slots.capacity,
        "slotsInUse": len(slots.holders),
        "holders": sorted(slots.holders.values()),
        "reserved": sorted(slots.reserved.values()),
        "waiting": sorted(w.path for w in slots.waiting.values()),
    }


def tree_summary(tree: Tree, tree_id: str) -> dict[str, Any]:
    """One entry of ``GET /api/trees``: the slots, the root's path, how many agents."""
    return {
        **slots_view(tree, tree_id),
        "rootPath": ROOT_PATH,
        "agents": len(tree.tree_of(tree_id)),
    }


def tree_view(tree: Tree, tree_id: str) -> dict[str, Any]:
    """``GET /api/trees/{treeId}``: the slots and every hosted node, parents first."""
    nodes = [node_view(tree, node) for node in tree.tree_of(tree_id)]
    return {**slots_view(tree, tree_id), "agents": nodes}


def membership(tree: Tree, agent_id: str) -> dict[str, Any] | None:
    """The ``tree`` field of an agent in ``GET /api/agents``: its tree, path and run
    state, or None when it belongs to no tree."""
    node = tree.nodes.get(agent_id)
    gate = tree.gates.get(agent_id)
    if node is None or gate is None:
        return None
    return {
        "treeId": node.tree_id,
        "path": node.path,
        "state": str(gate.state),
        "unread": gate.unread(),
    }


def result_entry(item: MailboxItem) -> dict[str, Any]:
    """One RESULT an agent received: the item, its child, outcome and whether it was read."""
    sender = item.metadata.get("senderId")
    outcome = item.extra("outcome")
    return {
        "item": item.to_dict(),
        "from": sender if isinstance(sender, str) else "",
        "outcome": outcome if isinstance(outcome, str) else "",
        "consumed": item.status != ItemStatus.QUEUED,
    }


async def remove_hosted(runtime: Runtime, agent_id: str) -> None:
    """``DELETE /api/agents/{agentId}``: stop hosting an agent.

    A child of a spawn tree is removed with its whole subtree
    (:meth:`attn.tree.Tree.remove`: stored as removed, a ``tree:removed`` event
    each), so a restart does not bring it back. Any other agent (a root takes
    its children with it) is removed by :meth:`attn.runtime.Runtime.remove_agent`.
    Stored items stay in every case.

    Raises:
        UnknownAgent: no such agent.
    """
    name = runtime.get_agent(agent_id).name
    node = runtime.tree.nodes.get(name)
    if node is not None and not node.is_root:
        await runtime.tree.remove(name)
    else:
        await runtime.remove_agent(name)


__all__ = [
    "membership",
    "node_view",
    "remove_hosted",
    "result_entry",
    "root_of",
    "slots_view",
    "tree_summary",
    "tree_view",
]
