"""How ``attn notifications``, ``attn approvals`` and ``attn session`` show people's records.

Every text from the server is shown as text (never as Rich markup), on one line
where a table cell holds it.

Spec: 000 §12.4, §13.2, §20; issue 15 (people in the CLI).
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from attn.cli.events import clock_text
from attn.cli.output import shorten

#: Colour of each notification priority.
PRIORITY_STYLES = {"low": "dim", "normal": "", "high": "bold yellow", "urgent": "bold red"}
#: Colour of each approval state.
STATE_STYLES = {
    "pending": "bold yellow",
    "approved": "green",
    "rejected": "red",
    "answered": "cyan",
    "expired": "magenta",
    "cancelled": "dim",
}
#: Colour of each main-session role.
ROLE_STYLES = {"user": "bold cyan", "assistant": "green", "activity": "dim"}


def _styled(value: object, styles: dict[str, str]) -> str:
    text = escape(str(value or ""))
    style = styles.get(str(value), "")
    return f"[{style}]{text}[/]" if style else text


def notification_table(page: dict[str, Any], user: str | None) -> Table:
    """A page of notifications: id, when, type, priority, title, read or not."""
    shown: list[dict[str, Any]] = page.get("notifications", [])
    person = user or (shown[0].get("userId") if shown else None)  # None: the owner's
    whose = f"{person}: " if person else ""
    title = (
        f"{whose}{page.get('unreadCount', 0)} unread; "
        f"{len(shown)} of {page.get('totalCount', len(shown))} shown"
    )
    table = Table(title=escape(title))
    for column in ("id", "at", "type", "priority", "title", "read"):
        table.add_column(column, no_wrap=column != "title", min_width=len(column))
    for entry in shown:
        table.add_row(
            escape(str(entry.get("id", ""))),
            escape(clock_text(entry.get("createdAt"))),
            escape(str(entry.get("type", ""))),
            _styled(entry.get("priority"), PRIORITY_STYLES),
            escape(shorten(entry.get("title"), 60)),
            "read" if entry.get("read") else "[bold]unread[/]",
        )
    return table


def options_text(approval: dict[str, Any]) -> str:
    """``approve | reject`` (with ``| free text`` when the approval takes some)."""
    ids = [str(o.get("id", "?")) for o in approval.get("options") or [] if isinstance(o, dict)]
    if approval.get("allowFreeform"):
        ids.append("free text")
    return " | ".join(ids)


def approval_table(page: dict[str, Any]) -> Table:
    """A page of approvals: id, agent, state, title, options, who answered."""
    shown: list[dict[str, Any]] = page.get("approvals", [])
    table = Table(title=f"{len(shown)} of {page.get('totalCount', len(shown))} approvals")
    for column in ("id", "agent", "state", "title", "options", "answer"):
        table.add_column(column, no_wrap=column not in ("title", "answer"), min_width=len(column))
    for approval in shown:
        table.add_row(
            escape(str(approval.get("id", ""))),
            escape(str(approval.get("agentId", ""))),
            _styled(approval.get("state"), STATE_STYLES),
            escape(shorten(approval.get("title"), 60)),
            escape(options_text(approval)),
            escape(answer_text(approval)),
        )
    return table


def answer_text(approval: dict[str, Any]) -> str:
    """``reject by ann: "too risky"`` for a closed approval, '' for a pending one."""
    if approval.get("state") == "pending":
        return ""
    parts = [str(approval.get("selectedOption") or approval.get("state", ""))]
    if approval.get("answeredBy"):
        parts.append(f"by {approval['answeredBy']}")
    text = " ".join(parts)
    if approval.get("comment"):
        text += f": {shorten(approval['comment'], 60)!r}"
    return text


def approval_lines(approval: dict[str, Any]) -> list[Text]:
    """One approval in full: head line, description, options, expiry and answer."""
    state = str(approval.get("state", "?"))
    head = Text(f"{approval.get('id', '?')}  ", style="bold")
    head.append(state, style=STATE_STYLES.get(state, ""))
    head.append(f"  {approval.get('agentId', '?')} asks {approval.get('userId', '?')}")
    head.append(f"  ({approval.get('priority', '?')})", style="dim")
    lines = [head, Text(str(approval.get("title", "")), style="bold")]
    if approval.get("description"):
        lines.append(Text(str(approval["description"])))
    for option in approval.get("options") or []:
        line = Text(f"  {option.get('id', '?')}", style="cyan")
        line.append(f"  {option.get('label', '')}")
        if option.get("description"):
            line.append(f"  {option['description']}", style="dim")
        lines.append(line)
    if approval.get("allowFreeform"):
        lines.append(Text("  (free text allowed: --comment)", style="dim"))
    facts = [f"asked {clock_text(approval.get('createdAt'))}"]
    if approval.get("expiresAt"):
        facts.append(f"expires {approval['expiresAt']}")
    if approval.get("relatedTaskId"):
        facts.append(f"task {approval['relatedTaskId']}")
    lines.append(Text("; ".join(facts), style="dim"))
    if state != "pending":
        lines.append(Text(f"answer: {answer_text(approval)}"))
    return lines


def closed_line(data: dict[str, Any], verb: str) -> str:
    """``approved apr_1 (approve); the parked work resumed`` after an answer or a cancel."""
    approval = data.get("approval") or {}
    state = str(approval.get("state", verb))
    option = approval.get("selectedOption")
    text = f"{state} {approval.get('id', '?')}" + (f" ({option})" if option else "")
    if data.get("resumed"):
        return f"{text}; the parked work resumed"
    return f"{text}; its work stays parked (another approval of it is open, or it is not hosted)"


def session_line(message: dict[str, Any]) -> Text:
    """``12:00:01.000 user  hello`` (an activity line dim)."""
    role = str(message.get("role", "?"))
    line = Text(clock_text(message.get("createdAt")), style="dim")
    line.append(f" {role:<10}", style=ROLE_STYLES.get(role, ""))
    line.append(str(message.get("content", "")), style="dim" if role == "activity" else "")
    return line


__all__ = [
    "answer_text",
    "approval_lines",
    "approval_table",
    "closed_line",
    "notification_table",
    "options_text",
    "session_line",
]
