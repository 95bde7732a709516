"""One event of the live hub: its number, what it concerns, its shared JSON frame.

Spec: 000 §5 (WebSocket events), §12.5 (people's events); issue 13 point 5
(channels); seed 002 (trees); issue 15 (people); issue 16 (runs).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from attn.jsontext import dumps_shown
from attn.server.channel_live import NO_AGENTS, channel_facets
from attn.server.people_live import PEOPLE_EVENTS, people_agent
from attn.server.runs_live import RUN_EVENTS


class Entry:
    """One published event; its JSON frame is built on first use and shared.

    Besides its agent, an event may concern a channel (``channel_key``), a tree
    (``tree_id``) and other agents (``agents``), or every subscriber (``everyone``:
    people's events, :mod:`attn.server.people_live`, and runs' events,
    :mod:`attn.server.runs_live`); :meth:`Connection.wants
    <attn.server.hub.Connection.wants>` matches subscriptions against them.
    """

    __slots__ = (
        "_frame",
        "agent_id",
        "agents",
        "at",
        "channel_key",
        "data",
        "everyone",
        "name",
        "seq",
        "tree_id",
    )

    def __init__(
        self, seq: int, name: str, agent_id: str | None, at: datetime, data: dict[str, Any]
    ) -> None:
        self.seq = seq
        self.name = name
        self.everyone = name in PEOPLE_EVENTS or name in RUN_EVENTS
        agent_id = people_agent(name, agent_id)
        self.agent_id = agent_id
        self.at = at
        self.data = data
        self._frame: str | None = None
        # Agent-less channel events: the channel and the agents they concern.
        self.channel_key: str | None = None
        self.tree_id: str | None = None  # tree:* events: their tree (set by the hub)
        self.agents = NO_AGENTS
        if agent_id is None:
            self.channel_key, self.agents = channel_facets(name, data)

    def frame(self) -> str:
        if self._frame is None:
            self._frame = dumps_shown(
                {
                    "type": "event",
                    "seq": self.seq,
                    "event": self.name,
                    "agentId": self.agent_id,
                    "at": self.at.isoformat(),
                    "data": self.data,
                }
            )
        return self._frame


__all__ = ["Entry"]
