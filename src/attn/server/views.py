"""How the API shows an agent in listings and control answers.

Used by the agent, control and creation routes alike, so it lives below all of
them (no route module imports another for it).

Spec: 000 §5 (agents: state, queue depth, current focus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn.brains.external import desk_of

if TYPE_CHECKING:
    from attn.runtime import Agent


def agent_summary(agent: Agent) -> dict[str, Any]:
    """The listing entry of one agent: agent id, state, queue depth, whether its turns
    run in an MCP client (``external``, issue 17) and a short current focus.

    Args:
        agent: a hosted agent.

    Returns:
        The JSON object of :class:`~attn.server.schemas_control.AgentSummaryView`.
    """
    focus = agent.focus_item
    return {
        "agentId": agent.name,
        "description": agent.description,
        "state": str(agent.state),
        "running": agent.running,
        "paused": agent.paused,
        "queueDepth": agent.depth,
        "external": desk_of(agent) is not None,
        "currentFocus": None
        if focus is None
        else {
            "id": focus.id,
            "sourceType": focus.source_type,
            "priority": focus.priority,
            "summary": focus.summary,
            "startedAt": focus.started_at.isoformat() if focus.started_at else None,
        },
    }


__all__ = ["agent_summary"]
