"""What the spawn-tree tools answer a model: paths, states, slots and results, no ids.

A model names retained agents by canonical path (``/root/ada``); it never
sees an agent id, an item id, a message id or an acknowledgement (seed 002:
"There are no model-facing message IDs, replay controls, or
acknowledgements"). A RESULT is shown as its text: the outcome line and the
bounded preview the tree stored (its transcript pointer, when the result was
cut, is the read-only resource that holds the whole turn).

Spec: seed 002 (SendMessage's result shapes; observation tools keep their own
shapes); acceptance A2A-12, A2A-20, A2A-21.
"""

from __future__ import annotations

from attn.models import AgentRunState, Delivery, DeliveryOutcome, MailboxItem, TreeAgent
from attn.tree import Tree, TreeGate
from attn.types import JSON

#: Characters of a description shown per listed agent.
LISTED_DESCRIPTION_CHARS = 200
#: Characters of the last RESULT shown by ``InspectAgent``.
RESULT_PREVIEW_CHARS = 2_000


def delivery_view(delivery: Delivery) -> JSON:
    """SendMessage's answer: nothing when the mail started a turn, joined the running
    one or waits for a busy recipient; otherwise a note saying why it waits (at
    capacity with the limit and the slots' holders, self-mail, a stopped recipient)."""
    reason = delivery.reason or ""
    if delivery.outcome in (DeliveryOutcome.STARTED, DeliveryOutcome.STEERED):
        return {}
    if delivery.outcome == DeliveryOutcome.QUEUED and reason.startswith(("busy", "duplicate")):
        return {}
    return {"note": f"{delivery.outcome}: {reason}" if reason else str(delivery.outcome)}


def state_of(gate: TreeGate | None) -> str:
    """``idle``, ``running``, ``waiting`` (for a slot) or ``stopped``."""
    return str(gate.state) if gate is not None else str(AgentRunState.STOPPED)


def parent_path(tree: Tree, node: TreeAgent) -> str | None:
    parent = tree.nodes.get(node.parent_id) if node.parent_id is not None else None
    return parent.path if parent is not None else None


def listed(tree: Tree, node: TreeAgent) -> JSON:
    """One agent of ``ListAgents``."""
    gate = tree.gates.get(node.id)
    description = node.description
    if len(description) > LISTED_DESCRIPTION_CHARS:
        description = description[: LISTED_DESCRIPTION_CHARS - 1] + "…"
    return {
        "path": node.path,
        "parent": parent_path(tree, node),
        "state": state_of(gate),
        "unread": gate.unread() if gate is not None else 0,
        "description": description,
    }


def slots_view(tree: Tree, tree_id: str) -> JSON | None:
    """A tree's turn slots: capacity, how many are in use, and who holds or waits for one."""
    slots = tree.slots.get(tree_id)
    if slots is None:
        return None
    return {
        "capacity": slots.capacity,
        "inUse": len(slots.holders) + len(slots.reserved),
        "heldBy": sorted({*slots.holders.values(), *slots.reserved.values()}),
        "waiting": sorted(w.path for w in slots.waiting.values()),
    }


def result_text(item: MailboxItem) -> str:
    """A RESULT's text as the model reads it (outcome line and bounded preview)."""
    return item.content or item.summary or ""


def last_result_view(item: MailboxItem | None) -> JSON | None:
    """The last RESULT of an agent, for ``InspectAgent``: outcome, a preview, whether
    its parent has read it (or taken it), and when it came."""
    if item is None:
        return None
    text = result_text(item)
    view: JSON = {
        "outcome": item.extra("outcome"),
        "preview": text[:RESULT_PREVIEW_CHARS],
        "unread": str(item.status) == "queued",
        "queuedAt": item.queued_at.isoformat(),
    }
    if len(text) > RESULT_PREVIEW_CHARS:
        view["previewTruncated"] = True
    return view


__all__ = [
    "LISTED_DESCRIPTION_CHARS",
    "RESULT_PREVIEW_CHARS",
    "delivery_view",
    "last_result_view",
    "listed",
    "parent_path",
    "result_text",
    "slots_view",
    "state_of",
]
