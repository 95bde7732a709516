"""Bodies of the spawn-tree routes, and the shapes they answer with.

Request models are strict and refuse unknown fields (like :mod:`attn.server.schemas`):
snake_case in Python, camelCase on the wire. Numbers, lists and texts are
bounded here; what the tree checks itself (a child's name, the text of mail,
a capacity) is checked again by :class:`attn.tree.Tree`, which names the rule.
The answer models only document the answers: the routes return plain dicts
(:mod:`attn.server.tree_views`).

Spec: seed 002; acceptance A2A-10..22; issue 14 (trees over REST).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from attn.limits import MAX_ID_CHARS
from attn.models.tree import MAX_CAPACITY, MAX_MAIL_CHARS, MAX_SEGMENT_CHARS
from attn.server.schemas import check_json
from attn.server.schemas_channels import DeliveryView
from attn.server.schemas_control import check_utf8_strings
from attn.tree.service import MAX_DESCRIPTION_CHARS

#: Longest agent id in a body (the runtime's agent name rule).
MAX_AGENT_ID_CHARS = 64
#: Longest sender of mail: an agent id or a person's name (the tree's rule).
MAX_SENDER_CHARS = 200
#: Longest reason of an interrupt (the tree's rule).
MAX_REASON_CHARS = 500


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=to_camel)


class CreateTreeBody(_Body):
    """``POST /api/trees``: make a hosted agent the root (``/root``) of a tree.

    Attributes:
        agent_id (``agentId``): the hosted agent; it is also the tree's id.
        capacity: turn slots of the tree, 1..256 (default: the agent's configured
            ``capacity``, 3 unless ``attn.toml`` says otherwise); until a restart,
            like ``PATCH /api/trees/{treeId}``.
    """

    agent_id: str = Field(min_length=1, max_length=MAX_AGENT_ID_CHARS)
    capacity: int | None = Field(default=None, ge=1, le=MAX_CAPACITY)


class PatchTreeBody(_Body):
    """``PATCH /api/trees/{treeId}``: change the tree's turn slots (waiting agents are
    offered the new ones at once). Until a restart: the root agent's configured
    ``capacity`` (``attn.toml``) applies again when it is hosted again.

    Attributes:
        capacity: 1..256.
    """

    capacity: int = Field(ge=1, le=MAX_CAPACITY)


class BrainBody(_Body):
    """A child's own brain, as under ``[[agents]]`` of ``attn.toml``.

    Attributes:
        kind: a built-in brain (``echo``, ``script``, ``llm``).
        options: its options.
    """

    kind: str = Field(min_length=1, max_length=64, examples=["echo"])
    options: dict[str, Any] = Field(default_factory=dict)

    _text = field_validator("kind", "options")(check_utf8_strings)
    _json = field_validator("options")(check_json)


class SpawnBody(_Body):
    """``POST /api/agents/{agentId}/children``: spawn a retained child.

    Attributes:
        name: 1-32 characters of ``a-z 0-9 _ -`` (not ``root``); its path is the
            parent's and ``/<name>``, its agent id the root's and the names joined by dots.
        task: its initial task, sent as MAIL from the parent (1..100,000 characters).
        description: its role, at most 2,000 characters.
        brain: its brain; left out, a brain like its parent's.
    """

    name: str = Field(min_length=1, max_length=MAX_SEGMENT_CHARS, examples=["ada"])
    task: str | None = Field(default=None, max_length=MAX_MAIL_CHARS)
    description: str = Field(default="", max_length=MAX_DESCRIPTION_CHARS)
    brain: BrainBody | None = None

    _text = field_validator("task", "description")(check_utf8_strings)


class MailBody(_Body):
    """``POST /api/agents/{agentId}/mail``: SendMessage to a retained agent.

    Attributes:
        text: plain nonempty text, at most 100,000 characters.
        sender_id (``senderId``): an agent id, or a person's name (default ``"user"``).
        idempotency_key (``idempotencyKey``): a repeat stores nothing (200).
    """

    text: str = Field(max_length=MAX_MAIL_CHARS)
    sender_id: str = Field(default="user", min_length=1, max_length=MAX_SENDER_CHARS)
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=MAX_ID_CHARS)

    _text = field_validator("text", "sender_id", "idempotency_key")(check_utf8_strings)


class InterruptBody(_Body):
    """``POST /api/agents/{agentId}/interrupt`` (the body may be left out).

    Attributes:
        reason: why; its RESULT carries it (default ``"interrupted"``).
    """

    reason: str = Field(default="interrupted", min_length=1, max_length=MAX_REASON_CHARS)

    _text = field_validator("reason")(check_utf8_strings)


class PlanBody(_Body):
    """``PUT /api/agents/{agentId}/plan``: Plan (read-only) mode on or off.

    Attributes:
        on: True: mail it sends wakes its readers read-only (A2A-19).
    """

    on: bool


class TakeBody(_Body):
    """``POST /api/agents/{agentId}/results/take`` (the body may be left out).

    Attributes:
        child_id (``childId``): only a RESULT of this child.
    """

    child_id: str | None = Field(default=None, min_length=1, max_length=MAX_AGENT_ID_CHARS)


# ------------------------------------------------------------------- answers


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class SlotsView(_Out):
    """A tree's turn slots: who holds one, who was offered one, who waits for one."""

    treeId: str
    capacity: int
    slotsInUse: int
    holders: list[str] = Field(description="paths of the agents in a turn")
    reserved: list[str] = Field(description="paths offered a slot, not yet started")
    waiting: list[str] = Field(description="paths waiting for a slot")


class TreeSummaryView(SlotsView):
    """One tree in ``GET /api/trees``."""

    rootPath: str
    agents: int = Field(description="hosted agents of the tree, the root included")


class TreeListView(_Out):
    """``GET /api/trees``: every hosted tree, by root id."""

    trees: list[TreeSummaryView]


class NodeView(_Out):
    """One hosted agent of a tree: the stored node and what it does now.

    ``state`` is idle, running, waiting (for a slot) or stopped; ``capacity`` and
    ``slotsInUse`` are its tree's; ``unread`` counts its unread MAIL, RESULT and
    EXECUTION records; ``turns`` its settled turns since it was hosted.
    """

    agentId: str
    treeId: str
    path: str
    parentId: str | None
    createdAt: str
    description: str
    state: str
    unread: int
    readOnly: bool
    plan: bool
    slotsInUse: int
    capacity: int | None
    turns: int


class TreeView(SlotsView):
    """``GET /api/trees/{treeId}``: the slots and every hosted agent, parents first."""

    agents: list[NodeView]


class SpawnedView(_Out):
    """``POST /api/agents/{agentId}/children``: the child, and its task's delivery."""

    node: NodeView
    delivery: DeliveryView | None


class MailView(_Out):
    """``POST /api/agents/{agentId}/mail``: what became of the mail (``started``,
    ``steered``, ``queued`` with the reason)."""

    delivery: DeliveryView


class InterruptView(_Out):
    """``POST /api/agents/{agentId}/interrupt``: the item whose turn ended, or null."""

    interruptedItemId: str | None


class PlanView(_Out):
    """``PUT /api/agents/{agentId}/plan``: the agent and its Plan mode."""

    agentId: str
    plan: bool


class ResultEntryView(_Out):
    """One RESULT an agent received: the child (``from``), how its turn settled and
    whether the RESULT was read (``consumed``)."""

    item: dict[str, Any]
    from_: str = Field(alias="from", description="the child's agent id")
    outcome: str
    consumed: bool


class ResultPageView(_Out):
    """``GET /api/agents/{agentId}/results``: newest first; pass ``nextBefore`` as
    ``before`` for older ones (null at the end)."""

    results: list[ResultEntryView]
    nextBefore: int | None


class TakeView(_Out):
    """``POST /api/agents/{agentId}/results/take``: the RESULT taken, or null."""

    result: dict[str, Any] | None


class TurnView(_Out):
    """``GET /api/agents/{agentId}/turns/{mailboxItemId}``: one turn, read only: its
    item with the brain's ``session``, its activity, and a first page of its logs."""

    item: dict[str, Any]
    activity: dict[str, Any] | None
    logs: list[dict[str, Any]]
    nextCursor: str | None


__all__ = [
    "BrainBody",
    "CreateTreeBody",
    "InterruptBody",
    "InterruptView",
    "MailBody",
    "MailView",
    "NodeView",
    "PatchTreeBody",
    "PlanBody",
    "PlanView",
    "ResultEntryView",
    "ResultPageView",
    "SlotsView",
    "SpawnBody",
    "SpawnedView",
    "TakeBody",
    "TakeView",
    "TreeListView",
    "TreeSummaryView",
    "TreeView",
    "TurnView",
]
