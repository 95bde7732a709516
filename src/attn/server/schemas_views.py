"""The agent, mind, mailbox and chat answers: their shapes, and the agent summary.

The routes return plain dicts built by :mod:`attn.runtime.views` and
:meth:`attn.runtime.Agent.mind`; these models only describe them (FastAPI does
not validate or filter the answers through them), so a client generated from
the document, schemathesis and the glossary test (``docs/glossary.md``) all see
their field names. Nested records (items, decisions, activities) are left as
objects: :mod:`attn.models` defines their fields.

Spec: 000 §5; acceptance SRV-06; issue 11 §4 (one wire name per concept).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from attn.server.schemas_control import AgentSummaryView

if TYPE_CHECKING:
    pass


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class TreeMembershipView(_Out):
    """The spawn tree an agent belongs to (seed 002): the tree, its path there and its
    run state (idle, running, waiting, stopped), and its unread MAIL and RESULTs."""

    treeId: str
    path: str
    state: str
    unread: int


class AgentListEntryView(AgentSummaryView):
    """One agent in ``GET /api/agents``: the summary and its spawn tree (null: none)."""

    tree: TreeMembershipView | None


class AgentListView(_Out):
    """``GET /api/agents``: every hosted agent, in the order they were added."""

    agents: list[AgentListEntryView]


class AgentDetailView(AgentListEntryView):
    """``GET /api/agents/{agentId}``: the summary, its tree and the mailbox counters."""

    statistics: dict[str, Any]


class ChatReplyView(_Out):
    """``POST /api/agents/{agentId}/chat``: the reply, the item it answers, the brain's data."""

    reply: str
    mailboxItemId: str
    data: Any


class MindView(_Out):
    """``GET /api/agents/{agentId}/mind``: the Agent Mind snapshot (000 §5, §9)."""

    agentId: str
    description: str
    state: str
    running: bool
    paused: bool
    currentFocus: dict[str, Any] | None
    queue: list[dict[str, Any]]
    queueDepth: int
    deferred: list[dict[str, Any]]
    deferredCount: int
    recentDecisions: list[dict[str, Any]]
    lastTriage: dict[str, Any] | None


class TimelineView(_Out):
    """``GET /api/agents/{agentId}/mailbox``: the queue and one page of the history."""

    queued: list[dict[str, Any]]
    queueDepth: int
    countsByStatus: dict[str, int]
    countsByType: dict[str, int]
    history: list[dict[str, Any]]
    total: int
    nextCursor: str | None


class DecisionPageView(_Out):
    """``GET /api/agents/{agentId}/decisions``: one page of decisions, newest first."""

    decisions: list[dict[str, Any]]
    nextCursor: str | None


class LogPageView(_Out):
    """``GET /api/agents/{agentId}/activity-logs``: one page of an activity's log entries."""

    logs: list[dict[str, Any]]
    nextCursor: str | None


def answers(model: type[BaseModel]) -> dict[str, Any]:
    """Route options that document a 200 answer as ``model`` without validating it.

    Use as ``@app.get(path, **answers(MindView))``.
    """
    return {"response_model": None, "responses": {200: {"model": model}}}


__all__ = [
    "AgentDetailView",
    "AgentListEntryView",
    "AgentListView",
    "ChatReplyView",
    "DecisionPageView",
    "LogPageView",
    "MindView",
    "TimelineView",
    "TreeMembershipView",
    "answers",
]
