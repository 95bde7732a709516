"""Spawn-tree events on the live connection: what a ``tree:*`` event concerns, and
checking the trees a WebSocket subscribes to.

``tree:spawned``, ``tree:removed``, ``tree:agent-state`` and ``tree:result`` are
emitted by :class:`attn.tree.Tree` with an agent (the node; for ``tree:result``
the spawn parent). The hub (:mod:`attn.server.hub`) sends them to a connection
subscribed to that agent, to every agent, to their tree (the ``trees`` of a
subscribe: root ids), or to another agent they concern (:func:`tree_facets`):
a spawned or removed node's parent, a RESULT's child. So a person watching a
tree sees every agent's state change and every RESULT as it commits.

Spec: seed 002; issue 14 (trees live over the WebSocket).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attn.core import events as ev
from attn.errors import UnknownAgent
from attn.server.channel_live import NO_AGENTS
from attn.server.errors import clip

if TYPE_CHECKING:
    from attn.tree import Tree

#: Most trees one subscribe may name.
MAX_TREES = 1_000
#: The events of spawn trees.
TREE_EVENTS = frozenset({ev.TREE_SPAWNED, ev.TREE_REMOVED, ev.TREE_AGENT_STATE, ev.TREE_RESULT})


def tree_facets(tree: Tree, name: str, data: dict[str, Any]) -> tuple[str | None, frozenset[str]]:
    """The tree a ``tree:*`` event is about, and the agents it concerns besides its own.

    Args:
        tree: the runtime's trees (a RESULT names its agents, not their tree).
        name: the event's name.
        data: its data.

    Returns:
        ``(tree id, agents)``; ``(None, frozenset())`` for any other event.
    """
    if name not in TREE_EVENTS:
        return None, NO_AGENTS
    names: list[object] = []
    tree_id: object = data.get("treeId")
    if name == ev.TREE_RESULT:
        names = [data.get("from"), data.get("to")]
        for agent in names:
            node = tree.nodes.get(agent) if isinstance(agent, str) else None
            if node is not None:
                tree_id = node.tree_id
                break
    elif name != ev.TREE_AGENT_STATE:
        node_data = data.get("node")
        if isinstance(node_data, dict):
            tree_id = node_data.get("treeId")
            names = [node_data.get("parentId")]
    agents = frozenset(n for n in names if isinstance(n, str))
    return (tree_id if isinstance(tree_id, str) else None), agents


def check_trees(tree: Tree, names: Sequence[str]) -> list[str]:
    """The tree ids a subscribe names, each the id of a hosted root.

    Raises:
        UnknownAgent: no hosted tree has an id (the first few are named).
    """
    unknown = [
        name for name in dict.fromkeys(names) if not (n := tree.nodes.get(name)) or not n.is_root
    ]
    if unknown:
        shown = ", ".join(repr(clip(name)) for name in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise UnknownAgent(f"no spawn tree has the id {shown}{more}; the subscription is unchanged")
    return list(names)


__all__ = ["MAX_TREES", "TREE_EVENTS", "check_trees", "tree_facets"]
