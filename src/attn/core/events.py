"""Event buses: a private one per agent, forwarded to the runtime's (000 §19).

Emitting is synchronous and cheap: with no subscriber, :meth:`EventBus.emit`
returns at once, so callers check :attr:`EventBus.active` before building a
payload. A subscriber that raises is logged and kept; it never breaks the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

log = logging.getLogger("attn.events")

# Event type names (000 §5, §19).
NEW_ITEM = "mailbox:new-item"
ITEM_UPDATED = "mailbox:item-updated"
DECISION = "attention:decision"
STATE_CHANGED = "attention:state-changed"
FOCUS_CHANGED = "agent:focus-changed"
INCOMPLETE = "agent:incomplete"
ACTIVITY_LOG = "agent:activity-log"
STREAM_DELTA = "agent:stream-delta"
AGENT_STARTED = "agent:started"
AGENT_STOPPED = "agent:stopped"
AGENT_PAUSED = "agent:paused"
AGENT_RESUMED = "agent:resumed"
AGENT_CREATED = "agent:created"
AGENT_REMOVED = "agent:removed"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened: ``type`` (e.g. ``"mailbox:new-item"``), the agent, JSON data."""

    type: str
    agent_id: str | None
    data: dict[str, Any]
    at: datetime
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "agentId": self.agent_id,
            "data": self.data,
            "at": self.at.isoformat(),
        }


Subscriber = Callable[[Event], None]


class EventBus:
    """A synchronous publish/subscribe bus.

    Args:
        parent: a bus every event is forwarded to after local subscribers ran
            (an agent's private bus forwards to the runtime bus).
    """

    __slots__ = ("_parent", "_subscribers")

    def __init__(self, parent: EventBus | None = None) -> None:
        self._subscribers: list[Subscriber] = []
        self._parent = parent

    @property
    def active(self) -> bool:
        """True when an emitted event would reach at least one subscriber."""
        return bool(self._subscribers) or (self._parent is not None and self._parent.active)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(event)`` for every event; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: Event) -> None:
        """Deliver ``event`` to local subscribers, then to the parent bus."""
        for callback in tuple(self._subscribers):
            try:
                callback(event)
            except Exception:
                log.exception("event subscriber failed on %s", event.type)
        if self._parent is not None:
            self._parent.emit(event)
