"""Every event name of attn, and the buses that carry events (000 §5, §19).

This module is the one table of event names. Each name below says what
happened and the ``data`` it carries (camelCase JSON; ``?`` marks a key that
is not always there). Core, time and runtime emit *bus names* on an agent's
private :class:`EventBus`, which forwards to the runtime's. The server's live
protocol (WebSocket and SSE) renames some of them (:data:`PROTOCOL_NAMES`);
every other bus name goes out as it is. :data:`LIVE_TRIAGE` and
:data:`LIVE_STREAM` are published by the server itself.

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

# --------------------------------------------------------- mailbox (core)

#: An item was enqueued, or a queued item or the focus absorbed a new one:
#: ``{"item", "mergedItemId"?}``.
NEW_ITEM = "mailbox:new-item"
#: An item changed status (claimed, completed, deferred, dropped…): ``{"item"}``.
ITEM_UPDATED = "mailbox:item-updated"
#: A decision was recorded (pick, continue, preempt, merge, drop…): ``{"decision"}``.
DECISION = "attention:decision"

# ------------------------------------------------------- attention (core)

#: The attention state changed: ``{"state", "currentFocus"}`` (the focused item or None).
STATE_CHANGED = "attention:state-changed"
#: The focus moved to another item or to none: ``{"currentFocus", "queueDepth"}``.
FOCUS_CHANGED = "agent:focus-changed"
#: A brain call ended without completing its item: ``{"mailboxItemId", "sourceType", "reason"}``.
INCOMPLETE = "agent:incomplete"
#: A tool the brain called answered a structured error:
#: ``{"mailboxItemId", "sourceType", "tool", "error", "message"}`` (000 §20).
TOOL_ERROR = "agent:tool-error"

# ------------------------------------------------------- agents (runtime)

#: The runtime hosts a new agent: ``{"agentId"}``.
AGENT_CREATED = "agent:created"
#: The runtime stopped hosting an agent (its items stay stored): ``{"agentId"}``.
AGENT_REMOVED = "agent:removed"
#: An agent's attention loop started: ``{"agentId"}``.
AGENT_STARTED = "agent:started"
#: An agent's loop stopped (in-flight work requeued): ``{"agentId"}``.
AGENT_STOPPED = "agent:stopped"
#: An agent's loop was paused: ``{"agentId"}``.
AGENT_PAUSED = "agent:paused"
#: A paused agent's loop continues: ``{"agentId"}``.
AGENT_RESUMED = "agent:resumed"

# ----------------------------------------------- pending callbacks (time)

#: A pending callback (awaited reply, background command, wakeup) was registered:
#: ``{"callback"}``.
CALLBACK_REGISTERED = "time:callback-registered"
#: A callback got its result, delivered as an item: ``{"callback", "mailboxItemId"}``.
CALLBACK_RESOLVED = "time:callback-resolved"
#: A callback timed out and was listed for the next heartbeat: ``{"callback"}``.
CALLBACK_EXPIRED = "time:callback-expired"
#: A callback was cancelled (a background command is killed): ``{"callback"}``.
CALLBACK_CANCELLED = "time:callback-cancelled"
#: A result whose callback had timed out, was resolved already or never existed
#: (TIME-08): ``{"callbackId", "callbackType"}``.
LATE_RESULT = "time:late-result"

# -------------------------------------------------- wakeups and heartbeats (time)

#: A wakeup fired and was delivered: ``{"callback", "mailboxItemId", "catchUp", "missedFires"}``.
WAKEUP_FIRED = "time:wakeup-fired"
#: An overdue wakeup was recorded as missed, not delivered (TIME-06):
#: ``{"callback", "missedFires"}``.
WAKEUP_MISSED = "time:wakeup-missed"
#: A heartbeat item was enqueued: ``{"mailboxItemId", "intervalS"}``.
HEARTBEAT_ENQUEUED = "heartbeat:enqueued"
#: A dequeued heartbeat did not call the model (TIME-10): ``{"mailboxItemId", "reason"}``.
HEARTBEAT_SKIPPED = "heartbeat:skipped"
#: The seed's name for a changed heartbeat interval (000 §11.3):
#: ``{"intervalS", "previousS", "requested", "by"}``.
HEARTBEAT_INTERVAL_CHANGED = "agent:heartbeat-interval-changed"

# ----------------------------------------------- live protocol (server)

#: Live name of :data:`NEW_ITEM`.
LIVE_MAILBOX = "agent:mailbox"
#: Live name of :data:`ITEM_UPDATED`.
LIVE_ITEM = "agent:item"
#: Live name of :data:`DECISION`.
LIVE_DECISION = "agent:decision"
#: Live name of :data:`STATE_CHANGED`.
LIVE_ATTENTION = "agent:attention"
#: Live name of :data:`FOCUS_CHANGED`.
LIVE_FOCUS = "agent:focus"
#: Published by the server for each triage deliberation (000 §21): ``{"deliberation"}``.
LIVE_TRIAGE = "agent:triage"
#: Published by the streamed chat route for each reply delta:
#: ``{"mailboxItemId", "text", "reset"?}``.
LIVE_STREAM = "agent:stream"

#: A channel was created or its members changed; data ``{"channel": …}``.
CHANNEL_CREATED = "channel:created"
#: A channel message was stored and delivered; data ``{"message": …}`` with its deliveries.
CHANNEL_MESSAGE = "channel:message"
#: A delegation was made or answered; data ``{"delegation": …}``.
CHANNEL_DELEGATION = "channel:delegation"

#: A colleague's status line was written to the agent's activity log, with no
#: turn (``agent_broadcast_status``); data ``{"activity": …, "log": …}``.
STATUS_LOGGED = "agent:status-logged"

#: A spawn tree gained a node (a root, or a spawned child); data ``{"node": …}`` (seed 002).
TREE_SPAWNED = "tree:spawned"
#: A node was removed from its tree; data ``{"node": …}``.
TREE_REMOVED = "tree:removed"
#: What a retained agent is doing changed (idle, running, waiting, stopped), or its
#: unread count or its tree's slots did; data ``{"agentId", "treeId", "path",
#: "state", "unread", "slotsInUse", "capacity"}``.
TREE_AGENT_STATE = "tree:agent-state"
#: A settled child turn's RESULT was committed for its spawn parent; data
#: ``{"from", "to", "outcome", "mailboxItemId", "consumedBy"}`` (``consumedBy``:
#: ``"mail"``, ``"handler"``, ``"wait"`` or ``"fetch"``).
TREE_RESULT = "tree:result"

# ------------------------------------------------------------- people

#: A notification was stored for a person (000 §12.5); data ``{"notification"}``.
NOTIFICATION = "notification"
#: Notifications of a person were marked read; data ``{"userId", "ids", "unreadCount"}``
#: (``ids`` None: all of theirs).
NOTIFICATIONS_READ = "notification:read"
#: An agent asked a person for a decision and its item is parked on it; data ``{"approval"}``.
APPROVAL_REQUESTED = "approval:requested"
#: An approval left pending (approved, rejected, expired, cancelled); data
#: ``{"approval", "resumed"}`` (``resumed``: the parked item was queued again).
APPROVAL_ANSWERED = "approval:answered"
#: A message was added to an agent's main session (a chat, a reply, a notify_user
#: message, an activity line); data ``{"message"}`` (000 §20).
SESSION_MESSAGE = "session:message"

# ------------------------------------------------------------- file mailboxes (seed 003)

#: A message was written to a run's mailbox files (by the leader, or seen from the
#: worker); data ``{"runId", "message"}``.
FILEBOX_MESSAGE = "filebox:message"
#: Messages of a run changed status (delivered, acknowledged); data ``{"runId", "messages"}``.
FILEBOX_STATUS = "filebox:status"
#: A run event was recorded (``supervisor.contact``, ``task.responded``, ``agent.nudged``,
#: ``steer.queued``, ``steer.dropped``, ``worker.started``, …); data ``{"runId", "event"}``.
FILEBOX_EVENT = "filebox:event"

#: Bus name -> live protocol name; other bus names are sent as they are.
PROTOCOL_NAMES: dict[str, str] = {
    NEW_ITEM: LIVE_MAILBOX,
    ITEM_UPDATED: LIVE_ITEM,
    DECISION: LIVE_DECISION,
    STATE_CHANGED: LIVE_ATTENTION,
    FOCUS_CHANGED: LIVE_FOCUS,
}


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
