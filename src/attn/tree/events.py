"""The live events of spawn trees (``tree:*``), emitted on the runtime's bus.

Spec: seed 002; issue 14 point 7 (surfaces).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.core.events import TREE_AGENT_STATE, TREE_REMOVED, TREE_RESULT, TREE_SPAWNED
from attn.models import TreeAgent

if TYPE_CHECKING:
    from attn.tree.gate import TreeGate
    from attn.tree.service import Tree


def spawned(tree: Tree, node: TreeAgent) -> None:
    tree.emit(TREE_SPAWNED, node.id, {"node": node.to_dict()})


def removed(tree: Tree, node: TreeAgent) -> None:
    tree.emit(TREE_REMOVED, node.id, {"node": node.to_dict()})


def state_of(tree: Tree, gate: TreeGate) -> dict[str, Any]:
    """What ``tree:agent-state`` says of one gate (also the views' runtime fields)."""
    node = tree.nodes.get(gate.agent_id)
    tree_id = node.tree_id if node is not None else gate.agent_id
    slots = tree.slots.get(tree_id)
    return {
        "agentId": gate.agent_id,
        "treeId": tree_id,
        "path": gate.path,
        "state": str(gate.state),
        "unread": gate.unread(),
        "readOnly": gate.read_only,
        "slotsInUse": len(slots.holders) if slots is not None else 0,
        "capacity": slots.capacity if slots is not None else None,
    }


def state_changed(tree: Tree, gate: TreeGate) -> None:
    if tree.bus.active:
        tree.emit(TREE_AGENT_STATE, gate.agent_id, state_of(tree, gate))


def result(tree: Tree, child: str, parent: str, outcome: str, item_id: str, by: str) -> None:
    data = {
        "from": child,
        "to": parent,
        "outcome": outcome,
        "mailboxItemId": item_id,
        "consumedBy": by,
    }
    tree.emit(TREE_RESULT, parent, data)


__all__ = ["removed", "result", "spawned", "state_changed", "state_of"]
