"""People's events on the live connection: which events every subscriber gets.

``notification``, ``notification:read``, ``approval:requested`` and
``approval:answered`` are about people, not about one agent's work: a person's
bell and the approvals waiting on them must update wherever they look, so the
hub (:mod:`attn.server.hub`) sends them to every subscribed connection,
whatever agents, channels or trees it named (a subscribe with ``"agents": []``
gets only these). They keep their agent (the asking agent of an approval, the
agent that notified; null for a notification no agent made) and are numbered,
buffered and replayed after a reconnect like every other event (SRV-10, SRV-11).
``session:message`` belongs to its agent and goes, like agent events, to the
connections subscribed to that agent or to every agent.

Spec: 000 §12.5 (real-time delivery), §13.2, §20; acceptance PPL-09 (the
bell live), SRV-10, SRV-11; issue 15.
"""

from __future__ import annotations

from attn.core import events as ev

#: The events every subscribed connection gets.
PEOPLE_EVENTS = frozenset(
    {ev.NOTIFICATION, ev.NOTIFICATIONS_READ, ev.APPROVAL_REQUESTED, ev.APPROVAL_ANSWERED}
)


def people_agent(name: str, agent_id: str | None) -> str | None:
    """The agent a live event names: a people event without one (emitted with ``""``)
    names none (``agentId`` null, like channel events); others keep theirs."""
    if name in PEOPLE_EVENTS and not agent_id:
        return None
    return agent_id


__all__ = ["PEOPLE_EVENTS", "people_agent"]
