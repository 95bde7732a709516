"""How ``attn tail`` shows one event: a coloured line per WebSocket event frame.

Spec: 000 §5 (WebSocket events), §12.5 (people's); acceptance SRV-20.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rich.text import Text

from attn.cli.output import clip_words, plural, shorten

#: Colour of each protocol event name (others are plain).
EVENT_STYLES: dict[str, str] = {
    "agent:mailbox": "bold cyan",
    "agent:item": "blue",
    "agent:decision": "magenta",
    "agent:attention": "yellow",
    "agent:focus": "green",
    "agent:triage": "bright_magenta",
    "agent:incomplete": "bold red",
    "agent:stream": "dim",
    "agent:started": "bold green",
    "agent:stopped": "bold red",
    "agent:paused": "bold yellow",
    "agent:resumed": "bold green",
    "agent:created": "bold",
    "agent:removed": "bold",
    "agent:status-logged": "cyan",
    "channel:created": "bold blue",
    "channel:message": "bold cyan",
    "channel:delegation": "bold magenta",
    "time:callback-registered": "cyan",
    "time:callback-resolved": "green",
    "time:callback-expired": "yellow",
    "tree:spawned": "bold green",
    "tree:removed": "bold red",
    "tree:agent-state": "yellow",
    "tree:result": "bold cyan",
    "notification": "bold yellow",
    "notification:read": "dim",
    "approval:requested": "bold magenta",
    "approval:answered": "magenta",
    "session:message": "cyan",
    "filebox:message": "bold blue",
    "filebox:status": "dim",
    "filebox:event": "blue",
}

_PEOPLE_EVENTS = frozenset(
    {"notification", "notification:read", "approval:requested", "approval:answered"}
    | {"session:message"}
)

#: Colour of each delivery outcome (A2A-06).
OUTCOME_STYLES: dict[str, str] = {
    "started": "green",
    "steered": "bright_green",
    "queued": "yellow",
    "refused": "bold red",
    "logged": "cyan",
    "pending": "dim",
}

_STATUS_STYLES = {
    "queued": "cyan",
    "processing": "yellow",
    "completed": "green",
    "deferred": "magenta",
    "merged": "blue",
    "dropped": "red",
}


def clock_text(at: object) -> str:
    """An event instant as local ``HH:MM:SS.mmm`` (the text itself when unreadable)."""
    try:
        moment = datetime.fromisoformat(str(at)).astimezone()
    except ValueError:
        return str(at)[:12]
    return moment.strftime("%H:%M:%S.%f")[:-3]


#: Longest reason shown in a one-line view (history, watch, tail), cut at a word.
REASON_WIDTH = 120


def deliveries_text(deliveries: object, *, reason_width: int | None = REASON_WIDTH) -> Text:
    """Each recipient's outcome, coloured: ``b started, c queued (busy: ...)``,
    then ``partial`` when some were refused and some were not (A2A-04).

    A reason is shown whole, or (longer than ``reason_width`` characters) cut
    after its last whole word; ``reason_width`` None: always whole."""
    text = Text()
    entries = [d for d in deliveries if isinstance(d, dict)] if isinstance(deliveries, list) else []
    for index, delivery in enumerate(entries):
        if index:
            text.append(", ")
        outcome = str(delivery.get("outcome", "?"))
        text.append(f"{delivery.get('recipient', '?')} ")
        text.append(outcome, style=OUTCOME_STYLES.get(outcome, ""))
        reason = delivery.get("reason")
        if reason:
            width = len(str(reason)) if reason_width is None else reason_width
            text.append(f" ({clip_words(reason, width)})")
    refused = sum(d.get("outcome") == "refused" for d in entries)
    if 0 < refused < len(entries):
        text.append("  partial", style="bold yellow")
    return text


def channel_message_line(message: dict[str, Any], width: int = 100) -> Text:
    """One channel message: ``#seq sender → recipients: text  [outcomes]``."""
    text = Text()
    text.append(f"#{message.get('seq', '?')} ", style="dim")
    sender = str(message.get("senderId", "?"))
    person = message.get("senderKind") == "person"
    text.append(sender, style="bold green" if person else "bold")
    if message.get("kind") == "delegation":
        text.append(" delegates", style="magenta")
    text.append(f": {shorten(message.get('text', ''), width)}")
    deliveries = message.get("deliveries")
    if deliveries:
        text.append("  [")
        text.append_text(deliveries_text(deliveries))
        text.append("]")
    return text


def _describe_channel(event: str, data: dict[str, Any]) -> Text:
    text = Text()
    if event == "channel:message":
        message = data.get("message") or {}
        text.append(f"{message.get('channelKey', '?')} ")
        text.append_text(channel_message_line(message, 60))
    elif event == "channel:created":
        channel = data.get("channel") or {}
        members = channel.get("members") or []
        text.append(f"{channel.get('key', '?')} ", style="bold")
        text.append(f"{shorten(channel.get('name', ''), 40)!r} ({len(members)} members: ")
        text.append(shorten(", ".join(str(m) for m in members), 60) + ")")
    elif event == "channel:delegation":
        record = data.get("delegation") or {}
        text.append(f"{record.get('delegator', '?')} → {record.get('delegate', '?')} ")
        status = str(record.get("status", "?"))
        text.append(status, style="green" if status == "answered" else "yellow")
        text.append(f"  {shorten(record.get('goal', ''), 60)!r}")
    else:  # agent:status-logged
        log = data.get("log") or {}
        sender = (log.get("metadata") or {}).get("senderId", "?")
        text.append(f"status from {sender}: {shorten(log.get('content', ''), 80)}")
    return text


#: What each ``time:`` event with a ``callback`` says happened to it.
_CALLBACK_VERBS = {
    "time:callback-registered": ("registered", "cyan"),
    "time:callback-resolved": ("resolved", "green"),
    "time:callback-expired": ("timed out", "bold yellow"),
    "time:callback-cancelled": ("cancelled", "yellow"),
    "time:wakeup-fired": ("fired", "green"),
    "time:wakeup-missed": ("missed", "yellow"),
}


def _describe_callback(event: str, data: dict[str, Any]) -> Text:
    """``a2a_reply cb_1 registered  correlation conv_1  'ETA?'  → mbx_2``."""
    raw = data.get("callback")
    callback: dict[str, Any] = raw if isinstance(raw, dict) else {}
    verb, style = _CALLBACK_VERBS.get(event, ("late result", "yellow"))
    text = Text()
    text.append(f"{callback.get('type') or data.get('callbackType') or '?'} ")
    text.append(str(callback.get("id") or data.get("callbackId") or "?"), style="bold")
    text.append(f" {verb}", style=style)
    if callback.get("correlationId"):
        text.append(f"  correlation {callback['correlationId']}")
    if callback.get("command"):
        text.append(f"  $ {shorten(callback['command'], 60)}")
    if callback.get("note"):
        text.append(f"  {shorten(callback['note'], 60)!r}")
    if event == "time:callback-registered" and callback.get("expiresAt"):
        text.append(f"  until {clock_text(callback['expiresAt'])}", style="dim")
    if data.get("mailboxItemId"):
        text.append(f"  → {data['mailboxItemId']}")
    if data.get("missedFires"):
        text.append(f"  ({data['missedFires']} missed)")
    return text


def _describe_tree(event: str, data: dict[str, Any]) -> Text:
    """``/root/ada running  unread 1  slots 1/3``, ``lead.ada → lead completed (mail)``."""
    text = Text()
    if event == "tree:result":
        text.append(f"{data.get('from', '?')} → {data.get('to', '?')} ")
        outcome = str(data.get("outcome", "?"))
        text.append(outcome, style={"completed": "green", "errored": "red"}.get(outcome, "yellow"))
        text.append(f" ({data.get('consumedBy', '?')})  {data.get('mailboxItemId', '')}")
    elif event == "tree:agent-state":
        text.append(f"{data.get('path', '?')} ", style="bold")
        text.append(str(data.get("state", "?")))
        text.append(f"  unread {data.get('unread', 0)}")
        text.append(f"  slots {data.get('slotsInUse', 0)}/{data.get('capacity', '?')}")
        if data.get("readOnly"):
            text.append("  read-only", style="magenta")
    else:  # tree:spawned, tree:removed
        node = data.get("node") or {}
        text.append(f"{node.get('path', '?')} ", style="bold")
        text.append(f"in tree {node.get('treeId', '?')}")
        if node.get("description"):
            text.append(f"  {shorten(node['description'], 60)}")
    return text


def _describe_people(event: str, data: dict[str, Any]) -> Text:
    """``ntf_… for ann (high): title``, ``apr_… pending: title``, a session line."""
    text = Text()
    if event == "notification":
        shown = data.get("notification") or {}
        text.append(str(shown.get("id", "?")), style="bold")
        text.append(f" for {shown.get('userId', '?')} ({shown.get('priority', '?')}): ")
        text.append(shorten(shown.get("title"), 80))
    elif event == "notification:read":
        ids = data.get("ids")
        which = ", ".join(str(i) for i in ids[:3]) if isinstance(ids, list) else "all"
        unread = data.get("unreadCount", "?")
        text.append(f"{data.get('userId', '?')} read {which}; {unread} unread")
    elif event == "session:message":
        message = data.get("message") or {}
        text.append(f"{message.get('role', '?')}: ", style="bold")
        text.append(shorten(message.get("content"), 90))
    else:  # approval:requested, approval:answered
        approval = data.get("approval") or {}
        text.append(str(approval.get("id", "?")), style="bold")
        text.append(f" {approval.get('state', '?')}")
        if approval.get("selectedOption"):
            text.append(f" ({approval['selectedOption']})")
        text.append(f": {shorten(approval.get('title'), 70)}")
        if data.get("resumed"):
            text.append("  resumed", style="green")
    return text


def _describe_run(event: str, data: dict[str, Any]) -> Text:
    """``r1 supervisor.contact build: Deploy v2?``, ``r1 + steering nudge leader→build``,
    ``r1 2 messages acknowledged`` (runs of command-line workers, seed 003)."""
    text = Text(f"{data.get('runId', '?')} ", style="bold")
    if event == "filebox:event":
        record = data.get("event") or {}
        text.append(str(record.get("type", "?")))
        if record.get("taskId"):
            text.append(f" {record['taskId']}")
        if record.get("message"):
            text.append(f": {shorten(record['message'], 80)}")
    elif event == "filebox:message":
        message = data.get("message") or {}
        text.append(f"+ {message.get('box', '?')} {message.get('kind', '?')} ")
        text.append(f"{message.get('from', '?')}→{message.get('to', '?')}")
        text.append(f": {shorten(message.get('body'), 70)}")
    else:
        changed = data.get("messages") or []
        statuses = sorted({str(m.get("status", "?")) for m in changed if isinstance(m, dict)})
        text.append(f"{plural(len(changed), 'message')} {', '.join(statuses)}")
    return text


def describe(event: str, data: dict[str, Any]) -> Text:
    """A short, coloured description of one event's data."""
    if event in _PEOPLE_EVENTS:
        return _describe_people(event, data)
    if event.startswith("filebox:"):
        return _describe_run(event, data)
    if event.startswith("tree:"):
        return _describe_tree(event, data)
    if event.startswith("channel:") or event == "agent:status-logged":
        return _describe_channel(event, data)
    if event in _CALLBACK_VERBS or event == "time:late-result":
        return _describe_callback(event, data)
    text = Text()
    if event in ("agent:mailbox", "agent:item"):
        item = data.get("item") or {}
        status = str(item.get("status", ""))
        if event == "agent:mailbox":
            text.append("+ ")
        text.append(f"{item.get('sourceType', '?')} P{item.get('priority', '?')} ")
        text.append(str(item.get("id", "")), style="bold")
        text.append(" ")
        text.append(status, style=_STATUS_STYLES.get(status, ""))
        if item.get("mergedInto"):
            text.append(f" → {item['mergedInto']}")
        summary = item.get("summary")
        if summary:
            text.append(f"  {shorten(summary, 60)!r}")
        if data.get("mergedItemId"):
            text.append(f"  (merged {data['mergedItemId']})")
    elif event == "agent:decision":
        decision = data.get("decision") or {}
        text.append(str(decision.get("decisionType", "?")), style="bold")
        text.append(f" {decision.get('mailboxItemId') or ''}")
        if decision.get("reasoning"):
            text.append(f"  {shorten(decision['reasoning'], 80)}")
    elif event == "agent:attention":
        focus = data.get("currentFocus") or {}
        text.append(f"{data.get('state', '?')}", style="bold")
        if focus:
            text.append(f"  on {focus.get('id', '')}")
    elif event == "agent:focus":
        focus = data.get("currentFocus") or {}
        text.append(f"focus {focus.get('id', 'none') if focus else 'none'}")
        text.append(f"  queue depth {data.get('queueDepth', '?')}")
    elif event == "agent:incomplete":
        text.append(f"{data.get('mailboxItemId', '')} ({data.get('sourceType', '')}): ")
        text.append(str(data.get("reason", "")), style="red")
    elif event == "agent:stream":
        if data.get("reset"):
            text.append("(reply revised; it follows whole)", style="italic")
        text.append(shorten(data.get("text", ""), 100))
    elif event == "agent:triage":
        result = data.get("deliberation") or {}
        text.append(f"process {result.get('processItemId', '?')}")
        if result.get("reasoning"):
            text.append(f"  {shorten(result['reasoning'], 80)}")
    elif set(data) != {"agentId"}:
        text.append(shorten(json.dumps(data, ensure_ascii=False), 100))
    return text


def render_event(message: dict[str, Any]) -> Text:
    """One line for an event frame: time, agent, event name (coloured), description."""
    event = str(message.get("event", "?"))
    data = message.get("data") if isinstance(message.get("data"), dict) else {}
    line = Text()
    line.append(clock_text(message.get("at")), style="dim")
    line.append(f" {message.get('agentId') or '-':<12} ")
    line.append(f"{event:<17}", style=EVENT_STYLES.get(event, ""))
    line.append(" ")
    line.append_text(describe(event, data or {}))
    return line


__all__ = [
    "EVENT_STYLES",
    "OUTCOME_STYLES",
    "channel_message_line",
    "clock_text",
    "deliveries_text",
    "describe",
    "render_event",
]
