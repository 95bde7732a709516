"""The one events table (attn.core.events): every name, as it goes on the wire."""

from __future__ import annotations

from attn.core import events

#: Every event name, pinned: renaming one breaks clients (UI, CLI, WebSocket users).
WIRE = {
    "NEW_ITEM": "mailbox:new-item",
    "ITEM_UPDATED": "mailbox:item-updated",
    "DECISION": "attention:decision",
    "STATE_CHANGED": "attention:state-changed",
    "FOCUS_CHANGED": "agent:focus-changed",
    "INCOMPLETE": "agent:incomplete",
    "TOOL_ERROR": "agent:tool-error",
    "AGENT_CREATED": "agent:created",
    "AGENT_REMOVED": "agent:removed",
    "AGENT_STARTED": "agent:started",
    "AGENT_STOPPED": "agent:stopped",
    "AGENT_PAUSED": "agent:paused",
    "AGENT_RESUMED": "agent:resumed",
    "CALLBACK_REGISTERED": "time:callback-registered",
    "CALLBACK_RESOLVED": "time:callback-resolved",
    "CALLBACK_EXPIRED": "time:callback-expired",
    "CALLBACK_CANCELLED": "time:callback-cancelled",
    "LATE_RESULT": "time:late-result",
    "WAKEUP_FIRED": "time:wakeup-fired",
    "WAKEUP_MISSED": "time:wakeup-missed",
    "HEARTBEAT_ENQUEUED": "heartbeat:enqueued",
    "HEARTBEAT_SKIPPED": "heartbeat:skipped",
    "HEARTBEAT_INTERVAL_CHANGED": "agent:heartbeat-interval-changed",
    "CHANNEL_CREATED": "channel:created",
    "CHANNEL_MESSAGE": "channel:message",
    "CHANNEL_DELEGATION": "channel:delegation",
    "STATUS_LOGGED": "agent:status-logged",
    "TREE_SPAWNED": "tree:spawned",
    "TREE_REMOVED": "tree:removed",
    "TREE_AGENT_STATE": "tree:agent-state",
    "TREE_RESULT": "tree:result",
    "NOTIFICATION": "notification",
    "NOTIFICATIONS_READ": "notification:read",
    "APPROVAL_REQUESTED": "approval:requested",
    "APPROVAL_ANSWERED": "approval:answered",
    "SESSION_MESSAGE": "session:message",
    "FILEBOX_MESSAGE": "filebox:message",
    "FILEBOX_STATUS": "filebox:status",
    "FILEBOX_EVENT": "filebox:event",
    "LIVE_MAILBOX": "agent:mailbox",
    "LIVE_ITEM": "agent:item",
    "LIVE_DECISION": "agent:decision",
    "LIVE_ATTENTION": "agent:attention",
    "LIVE_FOCUS": "agent:focus",
    "LIVE_TRIAGE": "agent:triage",
    "LIVE_STREAM": "agent:stream",
}


def test_every_event_name_is_in_the_table_with_its_wire_string() -> None:
    names = {
        name: value
        for name, value in vars(events).items()
        if name.isupper() and isinstance(value, str)
    }
    assert names == WIRE


def test_live_names_rename_bus_names_one_to_one() -> None:
    bus = {v for k, v in WIRE.items() if not k.startswith("LIVE_")}
    live = {v for k, v in WIRE.items() if k.startswith("LIVE_")}
    assert set(events.PROTOCOL_NAMES) <= bus
    assert set(events.PROTOCOL_NAMES.values()) <= live
    assert len(set(events.PROTOCOL_NAMES.values())) == len(events.PROTOCOL_NAMES)
    # No live name is also a bus name, so a renamed event cannot be mistaken for another.
    assert not live & bus
