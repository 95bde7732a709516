"""Activities (what an agent did for one item) and their log lines.

Spec: 000 §6.2 (``agent_activities``, ``agent_activity_logs``), §20 (completion marker).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON

#: Marker an LLM reply must carry to count as finished (000 §20).
COMPLETION_MARKER = "<<HANDLE_COMPLETE>>"


@dataclass(slots=True)
class Activity:
    """What the agent did for one item (000 §6.2 ``agent_activities``)."""

    id: str
    agent_id: str
    item_id: str | None
    type: str
    label: str
    started_at: datetime
    task_id: str | None = None
    ended_at: datetime | None = None
    total_tokens: int = 0
    total_tools: int = 0
    success: bool = True

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "mailboxItemId": self.item_id,
            "type": self.type,
            "label": self.label,
            "taskId": self.task_id,
            "startedAt": iso(self.started_at),
            "endedAt": iso(self.ended_at),
            "totalTokens": self.total_tokens,
            "totalTools": self.total_tools,
            "success": self.success,
        }


class LogType(StrEnum):
    """Kinds of activity log entries (000 §6.2)."""

    STATUS = "status"
    TEXT = "text"
    TOOL_START = "tool_start"
    TOOL_END = "tool_end"
    ERROR = "error"
    LLM_REQUEST = "llm_request"


@dataclass(frozen=True, slots=True)
class ActivityLog:
    """One LLM turn, tool call or status line inside an activity."""

    activity_id: str
    seq: int
    type: LogType
    content: str
    created_at: datetime
    metadata: JSON = field(default_factory=dict)

    def to_dict(self) -> JSON:
        return {
            "activityId": self.activity_id,
            "seq": self.seq,
            "type": str(self.type),
            "content": self.content,
            "metadata": self.metadata,
            "createdAt": iso(self.created_at),
        }
