"""Retained agents in a spawn tree (seed 002): the stored node of each agent.

A root agent spawns retained children, which may spawn children of their
own. Each node has a canonical path (``/root``, ``/root/ada``,
``/root/ada/probe``) and a spawn parent fixed for life; the stored node is
what a restart needs to host the tree again. What a node is doing (idle,
running, waiting for a slot, its unread count) is runtime state, not stored.

The communication records between the agents of a tree are mailbox items
of three source types: ``agent_mail`` (SendMessage text, MAIL),
``agent_result`` (one per settled child turn, to its spawn parent, RESULT)
and ``agent_execution`` (a background completion the child could no longer
read, to its spawn parent, EXECUTION).

Spec: seed 002 (all of it); acceptance A2A-10..22.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON

#: The canonical path of every tree's root agent.
ROOT_PATH = "/root"
#: Most characters of one path segment (a child's name).
MAX_SEGMENT_CHARS = 32
#: Deepest a tree goes (the root is depth 0).
MAX_TREE_DEPTH = 8
#: Most agents one tree holds, the root included.
MAX_TREE_AGENTS = 1_000
#: Most characters of one SendMessage text or initial task.
MAX_MAIL_CHARS = 100_000
#: Characters of a RESULT's inline preview: head and tail within this budget (A2A-15).
RESULT_PREVIEW_CHARS = 32_768
#: Default turn slots of one tree (A2A-12).
DEFAULT_CAPACITY = 3
#: Most turn slots one tree may be given.
MAX_CAPACITY = 256

#: The mailbox source types of the three communication records.
MAIL_TYPE = "agent_mail"
RESULT_TYPE = "agent_result"
EXECUTION_TYPE = "agent_execution"
TREE_TYPES = frozenset({MAIL_TYPE, RESULT_TYPE, EXECUTION_TYPE})


class WakePolicy(StrEnum):
    """When an agent's loop starts a turn.

    ``always``: whenever its queue holds an item, also after a restart (seed 000).
    ``on_mail``: only for live mail or an explicit start; restored mail waits
    (seed 002). Every retained child is ``on_mail``.
    """

    ALWAYS = "always"
    ON_MAIL = "on_mail"


class TreeAgentState(StrEnum):
    """The stored lifecycle of a node: hosted and served, stopped, or removed."""

    ACTIVE = "active"
    STOPPED = "stopped"
    REMOVED = "removed"


class ResultOutcome(StrEnum):
    """How a child turn settled (A2A-14)."""

    COMPLETED = "completed"
    ERRORED = "errored"
    INTERRUPTED = "interrupted"


class AgentRunState(StrEnum):
    """What a hosted retained agent is doing now (runtime only, never stored).

    ``idle``: no turn and nothing waking it. ``running``: in a turn (holds a
    slot). ``waiting``: has waking mail and waits for a free slot. ``stopped``:
    its loop is stopped; mail waits.
    """

    IDLE = "idle"
    RUNNING = "running"
    WAITING = "waiting"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class TreeAgent:
    """One stored node of a spawn tree.

    Attributes:
        id: the agent's id in the runtime (``lead`` for a root, ``lead.ada``
            for its child ``/root/ada``: the root's id and the path's segments
            joined by dots).
        tree_id: the id of the tree's root agent.
        path: the canonical path, ``/root`` or ``/root/<name>/...``.
        parent_id: the spawn parent's id, fixed for life; None for the root.
        created_at: when it was spawned (UTC).
        state: see :class:`TreeAgentState`.
        description: the role it was spawned for (shown to its model and in views).
        brain: how to build its brain again after a restart (``{"kind": ...,
            "options": {...}}`` as under ``[agents.<id>]`` of ``attn.toml``), or
            None when the spawner gave a brain object (restored by the tree's
            brain factory only).
        capacity: turn slots of the tree (root nodes only; None elsewhere).
    """

    id: str
    tree_id: str
    path: str
    parent_id: str | None
    created_at: datetime
    state: TreeAgentState = TreeAgentState.ACTIVE
    description: str = ""
    brain: JSON | None = None
    capacity: int | None = None

    @property
    def is_root(self) -> bool:
        return self.parent_id is None

    @property
    def name(self) -> str:
        """The last segment of the path (``root`` for a root)."""
        return self.path.rsplit("/", 1)[-1]

    @property
    def depth(self) -> int:
        """0 for the root, 1 for its children, ..."""
        return self.path.count("/") - 1

    def to_dict(self) -> JSON:
        return {
            "agentId": self.id,
            "treeId": self.tree_id,
            "path": self.path,
            "parentId": self.parent_id,
            "createdAt": iso(self.created_at),
            "state": str(self.state),
            "description": self.description,
            "capacity": self.capacity,
        }


__all__ = [
    "DEFAULT_CAPACITY",
    "EXECUTION_TYPE",
    "MAIL_TYPE",
    "MAX_CAPACITY",
    "MAX_MAIL_CHARS",
    "MAX_SEGMENT_CHARS",
    "MAX_TREE_AGENTS",
    "MAX_TREE_DEPTH",
    "RESULT_PREVIEW_CHARS",
    "RESULT_TYPE",
    "ROOT_PATH",
    "TREE_TYPES",
    "AgentRunState",
    "ResultOutcome",
    "TreeAgent",
    "TreeAgentState",
    "WakePolicy",
]
