"""How ``attn tree`` shows trees, nodes, deliveries, RESULTs and turns.

Spec: seed 002; issue 14 (trees in the CLI).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from rich.tree import Tree as RichTree

from attn.cli.events import deliveries_text
from attn.cli.output import shorten

#: Colour of each run state of a retained agent.
STATE_STYLES = {"idle": "dim", "running": "bold green", "waiting": "yellow", "stopped": "red"}
#: Colour of each RESULT outcome.
RESULT_STYLES = {"completed": "green", "errored": "bold red", "interrupted": "yellow"}
#: Colour of an item's status in a turn's head line.
_STATUS_STYLES = {"queued": "cyan", "processing": "yellow", "completed": "green", "dropped": "red"}


def slots_text(view: dict[str, Any]) -> str:
    """``slots 2/3 (held by /root/a, /root/b; waiting: /root/c)``."""
    text = f"slots {view.get('slotsInUse', 0)}/{view.get('capacity', '?')}"
    parts = []
    if view.get("holders"):
        parts.append("held by " + ", ".join(view["holders"]))
    if view.get("reserved"):
        parts.append("reserved for " + ", ".join(view["reserved"]))
    if view.get("waiting"):
        parts.append("waiting: " + ", ".join(view["waiting"]))
    return f"{text} ({'; '.join(parts)})" if parts else text


def node_label(node: dict[str, Any]) -> Text:
    """``/root/ada  running  unread 2  lead.ada  research`` for one node."""
    state = str(node.get("state", "?"))
    text = Text(str(node.get("path", "?")), style="bold")
    text.append("  ")
    text.append(state, style=STATE_STYLES.get(state, ""))
    unread = node.get("unread", 0)
    if unread:
        text.append(f"  unread {unread}", style="cyan")
    if node.get("readOnly"):
        text.append("  read-only", style="magenta")
    if node.get("plan"):
        text.append("  plan", style="magenta")
    text.append(f"  {node.get('agentId', '?')}", style="dim")
    text.append(f"  turns {node.get('turns', 0)}", style="dim")
    if node.get("description"):
        text.append(f"  {shorten(node['description'], 50)}")
    return text


def tree_view(view: dict[str, Any]) -> RichTree:
    """The nodes of a tree as a Rich tree under a header line with its slots."""
    header = Text(f"tree {view.get('treeId', '?')}  ", style="bold")
    header.append(slots_text(view))
    shown = RichTree(header)
    branches: dict[str | None, RichTree] = {}
    for node in view.get("agents", []):  # parents before children
        parent = branches.get(node.get("parentId"), shown)
        branches[node.get("agentId")] = parent.add(node_label(node))
    return shown


def delivery_line(delivery: dict[str, Any]) -> Text:
    """``lead.ada queued (at capacity: ...)`` (the reason whole)."""
    return deliveries_text([delivery], reason_width=None)


def result_line(entry: dict[str, Any]) -> Text:
    """``#12 lead.ada completed  read  [result from /root/ada: completed] ...``."""
    item = entry.get("item") or {}
    outcome = str(entry.get("outcome", "?"))
    text = Text(f"#{item.get('seq', '?')} ", style="dim")
    text.append(f"{entry.get('from', '?')} ")
    text.append(outcome, style=RESULT_STYLES.get(outcome, ""))
    text.append("  read" if entry.get("consumed") else "  unread", style="dim")
    text.append(f"  {shorten(item.get('summary'), 80)}")
    return text


def turn_lines(turn: dict[str, Any]) -> list[Text]:
    """One turn: its item (status, summary, text), then its activity's log lines."""
    item = turn.get("item") or {}
    status = str(item.get("status", "?"))
    head = Text(f"{item.get('id', '?')} ", style="bold")
    head.append(f"{item.get('sourceType', '?')} ")
    head.append(status, style=_STATUS_STYLES.get(status, ""))
    if item.get("reason"):
        head.append(f"  ({item['reason']})")
    lines = [head, Text(str((item.get("payload") or {}).get("content") or item.get("summary")))]
    for log in turn.get("logs", []):
        line = Text(f"  {str(log.get('createdAt', ''))[11:19]} ", style="dim")
        line.append(f"{log.get('type', '?'):<11}")
        line.append(shorten(log.get("content"), 120))
        lines.append(line)
    if turn.get("nextCursor"):
        activity = (turn.get("activity") or {}).get("id")
        lines.append(
            Text(
                f"  more: GET /api/agents/{item.get('agentId')}/activity-logs"
                f"?activityId={activity}&cursor={turn['nextCursor']}",
                style="dim",
            )
        )
    return lines


def agent_tree_cell(agent: dict[str, Any]) -> str:
    """The ``tree`` column of ``attn agents``: ``lead /root/ada running`` or empty."""
    tree = agent.get("tree")
    if not isinstance(tree, dict):
        return ""
    unread = f" +{tree['unread']}" if tree.get("unread") else ""
    return escape(f"{tree.get('treeId')} {tree.get('path')} {tree.get('state')}{unread}")


__all__ = [
    "RESULT_STYLES",
    "STATE_STYLES",
    "agent_tree_cell",
    "delivery_line",
    "node_label",
    "result_line",
    "slots_text",
    "tree_view",
    "turn_lines",
]
