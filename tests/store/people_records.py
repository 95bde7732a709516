"""Builders of people records for the store tests: notifications, approvals, session messages."""

from __future__ import annotations

from typing import Any

from attn.ids import new_id
from attn.models.people import (
    DEFAULT_OPTIONS,
    MAIN_SESSION,
    ActionType,
    Approval,
    ApprovalOption,
    Notification,
    NotificationPriority,
    SessionMessage,
    SessionRole,
)

from .records import at


def notification(user: str = "ada", seconds: float = 0.0, **values: Any) -> Notification:
    """An unread ``agent_report`` notification for ``user`` made at ``T0 + seconds``."""
    fields: dict[str, Any] = {
        "id": new_id("ntf"),
        "user_id": user,
        "type": "agent_report",
        "title": "Build finished",
        "body": "All 412 tests pass.",
        "priority": NotificationPriority.NORMAL,
        "created_at": at(seconds),
        "action_type": ActionType.OPEN_CHAT,
        "action_target": {"agentId": "alice", "sessionId": MAIN_SESSION},
        "metadata": {"agentId": "alice", "taskId": None},
    }
    fields.update(values)
    return Notification(**fields)


def approval(agent: str = "alice", seconds: float = 0.0, **values: Any) -> Approval:
    """A pending approval asked by ``agent`` at ``T0 + seconds`` (approve or reject)."""
    fields: dict[str, Any] = {
        "id": new_id("apr"),
        "agent_id": agent,
        "item_id": new_id("mbx"),
        "user_id": "ada",
        "title": "Deploy to production?",
        "description": "Release 1.4 is built and tested.",
        "options": DEFAULT_OPTIONS,
        "created_at": at(seconds),
        "context": {"toolCallId": "call_1"},
    }
    fields.update(values)
    return Approval(**fields)


#: Three custom options, as a design decision would offer them.
CHOICES = (
    ApprovalOption("a", "Plan A", "Rewrite the parser"),
    ApprovalOption("b", "Plan B"),
    ApprovalOption("later", "Decide later", "Park it for a week"),
)


def message(
    agent: str = "alice",
    role: SessionRole = SessionRole.USER,
    content: str = "hello",
    session: str = MAIN_SESSION,
    **values: Any,
) -> SessionMessage:
    """A message of ``agent``'s session written at ``T0``."""
    fields: dict[str, Any] = {
        "id": new_id("msg"),
        "agent_id": agent,
        "session_id": session,
        "role": role,
        "content": content,
        "created_at": at(0),
        "metadata": {"userId": "ada"},
    }
    fields.update(values)
    return SessionMessage(**fields)
