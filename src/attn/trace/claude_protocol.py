"""What Claude Code agent-team protocol messages become in attn.

A protocol message carries a JSON object with a string ``type`` encoded in its
``text`` (:func:`decode_protocol`). Each known ``type`` gets its own user item
type (:data:`PROTOCOL_TYPES`); unknown ones get a generic ``claude_<type>``
notification type (:func:`protocol_item_type`). Plain text is an
:data:`A2A_TYPE` message. Used by :mod:`attn.trace.claude_team`.

Spec: 000 §11.1 (agent-to-agent messages); CORE-76 (idle pings supersede).
"""

from __future__ import annotations

import json
import re

from attn.core.item_type import HOUR_S, Category, ItemType, Recovery, Supersede
from attn.types import JSON

#: The built-in item type of a plain-text message between agents.
A2A_TYPE = "a2a_message"

_T, _N, _S = Category.TASK, Category.NOTIFICATION, Category.SYSTEM

#: Claude Code protocol ``type`` -> the attn item type its messages get.
#: Work a teammate must act on (tasks, plans, shutdown requests) is high
#: priority; results are normal; idle pings are low-priority system noise that
#: only restates a state, so a teammate's newer ping supersedes its queued older
#: one (CORE-76): the lead spends one model call per idle teammate, not per ping.
PROTOCOL_TYPES: dict[str, ItemType] = {
    "task_assignment": ItemType(
        "claude_task_assignment",
        "Task Assignment",
        1,
        _T,
        "📌",
        "task",
        requires_text=True,
        description="A teammate or the lead assigns a task (taskId, subject, description).",
    ),
    "plan_approval_request": ItemType(
        "claude_plan_approval_request",
        "Plan Approval Request",
        1,
        _T,
        "📝",
        "chat",
        requires_text=True,
        description="A teammate asks the lead to approve its plan.",
    ),
    "plan_approval_response": ItemType(
        "claude_plan_approval_response",
        "Plan Approval Response",
        1,
        _T,
        "📝",
        "chat",
        requires_text=True,
        description="The lead approves or rejects a teammate's plan.",
    ),
    "shutdown_request": ItemType(
        "claude_shutdown_request",
        "Shutdown Request",
        1,
        _S,
        "⏻",
        "internal",
        requires_text=True,
        description="The lead asks a teammate to finish and shut down.",
    ),
    "shutdown_approved": ItemType(
        "claude_shutdown_approved",
        "Shutdown Approved",
        2,
        _N,
        "✔",
        "internal",
        invokes_llm=False,
        requires_text=True,
        description="A teammate agreed to shut down.",
    ),
    "shutdown_rejected": ItemType(
        "claude_shutdown_rejected",
        "Shutdown Rejected",
        2,
        _N,
        "✖",
        "internal",
        requires_text=True,
        description="A teammate refused to shut down, with a reason.",
    ),
    "idle_notification": ItemType(
        "claude_idle_notification",
        "Teammate Idle",
        3,
        _S,
        "💤",
        "internal",
        creates_activity=False,
        invokes_llm=False,
        requires_text=True,
        recovery=Recovery.DROP,
        ttl_s=4 * HOUR_S,
        supersedes=Supersede.SENDER,
        description="A teammate finished its turn and is idle (idleReason); a newer ping "
        "from the same teammate supersedes a queued older one.",
    ),
}


def protocol_item_type(protocol: str) -> ItemType:
    """The item type for a protocol ``type`` value: from the table, else a generic one."""
    known = PROTOCOL_TYPES.get(protocol)
    if known is not None:
        return known
    slug = re.sub(r"[^a-z0-9_]+", "_", protocol.lower()).strip("_")[:56] or "message"
    return ItemType(
        f"claude_{slug}",
        f"Claude {protocol}"[:64],
        2,
        _N,
        "✉",
        "internal",
        requires_text=True,
        description=f"Claude Code protocol message {protocol!r} (no specific mapping).",
    )


def decode_protocol(text: str) -> JSON | None:
    """The decoded protocol object when ``text`` is a JSON object with a string ``type``."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return None
    if isinstance(data, dict) and isinstance(data.get("type"), str) and data["type"].strip():
        return data
    return None


def protocol_summary(kind: str, protocol: JSON, sender: str) -> str:
    """A one-line summary (at most 120 characters) of a protocol message from ``sender``."""
    if kind == "task_assignment":
        line = f"Task #{protocol.get('taskId', '?')}: {protocol.get('subject', '')}"
    elif kind == "idle_notification":
        line = f"{sender} is idle ({protocol.get('idleReason', 'unknown')})"
    elif kind == "shutdown_request":
        line = f"{sender} asks to shut down: {protocol.get('reason', '')}"
    else:
        line = f"{kind.replace('_', ' ')} from {sender}"
    line = line.strip().rstrip(":")
    return line if len(line) <= 120 else line[:119] + "…"


__all__ = [
    "A2A_TYPE",
    "PROTOCOL_TYPES",
    "decode_protocol",
    "protocol_item_type",
    "protocol_summary",
]
