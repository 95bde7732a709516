"""How the API shows an agent in listings and control answers.

Used by the agent, control and creation routes alike, so it lives below all of
them (no route module imports another for it).

Spec: 000 §5 (agents: state, depth, focus).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from attn.runtime import Agent


def agent_summary(agent: Agent) -> dict[str, Any]:
    """The listing entry of one agent: name, state, depth and a short focus.

    Args:
        agent: a hosted agent.

    Returns:
        The JSON object of :class:`~attn.server.schemas_control.AgentSummaryView`.
    """
    focus = agent.focus_item
    return {
        "name": agent.name,
        "description": agent.description,
        "state": str(agent.state),
        "running": agent.running,
        "paused": agent.paused,
        "depth": agent.depth,
        "focus": None
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
