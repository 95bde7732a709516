"""Builders of records for the store tests: items, decisions, activities, logs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from attn.ids import new_id
from attn.models import (
    Activity,
    ActivityLog,
    Decision,
    DecisionType,
    ItemStatus,
    LogType,
    MailboxItem,
)

#: A fixed instant with microseconds, so round trips are checked to the microsecond.
T0 = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """``T0`` plus ``seconds``."""
    return T0 + timedelta(seconds=seconds)


def item(agent: str = "alice", priority: int = 2, **values: Any) -> MailboxItem:
    """A queued human_chat item for ``agent``; keyword arguments override fields."""
    fields: dict[str, Any] = {
        "id": new_id("mbx"),
        "agent_id": agent,
        "source_type": "human_chat",
        "priority": priority,
        "status": ItemStatus.QUEUED,
        "payload": {"content": "hello"},
        "metadata": {"senderRole": "user", "senderId": "u1"},
        "queued_at": T0,
    }
    fields.update(values)
    return MailboxItem(**fields)


def decision(item_id: str, agent: str = "alice", seconds: float = 0.0, **values: Any) -> Decision:
    """A pick decision about ``item_id`` made at ``T0 + seconds``."""
    fields: dict[str, Any] = {
        "id": new_id("dec"),
        "agent_id": agent,
        "decision_type": DecisionType.PICK,
        "item_id": item_id,
        "reasoning": "highest priority",
        "created_at": at(seconds),
        "context": {"currentFocusId": None, "queueDepth": 1},
    }
    fields.update(values)
    return Decision(**fields)


def activity(item_id: str | None, agent: str = "alice", seconds: float = 0.0) -> Activity:
    """A chat activity for ``item_id`` started at ``T0 + seconds``."""
    return Activity(
        id=new_id("act"),
        agent_id=agent,
        item_id=item_id,
        type="chat",
        label="answering",
        started_at=at(seconds),
    )


def log(activity_id: str, seq: int, content: str = "turn") -> ActivityLog:
    """A text log entry of ``activity_id``."""
    return ActivityLog(
        activity_id=activity_id,
        seq=seq,
        type=LogType.TEXT,
        content=content,
        created_at=at(seq),
        metadata={"n": seq},
    )
