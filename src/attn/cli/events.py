"""How ``attn tail`` shows one event: a coloured line per WebSocket event frame.

Spec: 000 §5 (WebSocket events); acceptance SRV-20.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rich.text import Text

from attn.cli.output import shorten

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
}

_STATUS_STYLES = {
    "queued": "cyan",
    "processing": "yellow",
    "completed": "green",
    "deferred": "magenta",
    "merged": "blue",
    "dropped": "red",
}


def _clock(at: object) -> str:
    try:
        moment = datetime.fromisoformat(str(at)).astimezone()
    except ValueError:
        return str(at)[:12]
    return moment.strftime("%H:%M:%S.%f")[:-3]


def describe(event: str, data: dict[str, Any]) -> Text:
    """A short, coloured description of one event's data."""
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
    line.append(_clock(message.get("at")), style="dim")
    line.append(f" {message.get('agentId') or '-':<12} ")
    line.append(f"{event:<17}", style=EVENT_STYLES.get(event, ""))
    line.append(" ")
    line.append_text(describe(event, data or {}))
    return line


__all__ = ["EVENT_STYLES", "describe", "render_event"]
