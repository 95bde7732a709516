"""The records attn keeps: mailbox items, decisions, activities, activity logs.

Spec: 000 §6 (data model, persistence lifecycle). attn adds ``seq`` (commit
order), ``attempt``, ``redelivered``, ``idempotency_key``, ``session`` (the
brain's saved context across preemption) and ``reason`` (why it ended so).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

JSON = dict[str, Any]

#: Marker an LLM reply must carry to count as finished (000 §20).
COMPLETION_MARKER = "<<HANDLE_COMPLETE>>"


class ItemStatus(StrEnum):
    """Lifecycle of a mailbox item (000 §6.5, §16)."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    DEFERRED = "deferred"
    MERGED = "merged"
    DROPPED = "dropped"


TERMINAL_STATUSES = frozenset({ItemStatus.COMPLETED, ItemStatus.MERGED, ItemStatus.DROPPED})


class DecisionType(StrEnum):
    """What the attention controller decided about an item (000 §4).

    The seed's eight decisions, plus ``requeue`` (put back after a failed or
    crashed attempt), ``resurface`` (a deferred item queued again),
    ``prioritize`` (priority changed), ``triage`` (chosen by deliberation
    instead of by priority) and ``complete`` (handled inline by deliberation).
    """

    PICK = "pick"
    CONTINUE = "continue"
    PREEMPT = "preempt"
    CANCEL = "cancel"
    MERGE = "merge"
    DEFER = "defer"
    DELEGATE = "delegate"
    DROP = "drop"
    REQUEUE = "requeue"
    RESURFACE = "resurface"
    PRIORITIZE = "prioritize"
    TRIAGE = "triage"
    COMPLETE = "complete"


class AttentionState(StrEnum):
    """The attention controller's state (000 §4)."""

    IDLE = "idle"
    FOCUSED = "focused"
    DECIDING = "deciding"


@dataclass(slots=True)
class MailboxItem:
    """One stimulus in one agent's mailbox.

    Attributes:
        id: ``mbx_…`` identifier.
        agent_id: the owning agent's name.
        source_type: a name from the type registry.
        priority: 0 (critical) .. 4 (background).
        status: see :class:`ItemStatus`.
        payload: JSON object: ``content`` (text), ``summary``, entity ids such as
            ``taskId``, and ``extra``.
        metadata: JSON object about the sender: ``senderId``, ``senderName``,
            ``senderRole`` (``"user"`` for people), ``sessionId``.
        queued_at, started_at, completed_at: lifecycle instants (UTC).
        deferred_until: when a deferred item resurfaces; None means next idle.
        merged_into: id of the absorbing item when ``status`` is merged.
        seq: commit order, assigned by the store; FIFO within a priority follows it.
        attempt: 1-based number of the current (or next) processing attempt;
            raised by failures, never by preemption or stop.
        redelivered: True when a crash interrupted an earlier attempt.
        idempotency_key: enqueuer-supplied key; a repeat enqueue returns the first item.
        session: the brain's saved context, kept across preemption and restarts.
        reason: why the item ended in its status (dropped, cancelled, expired…).
    """

    id: str
    agent_id: str
    source_type: str
    priority: int
    status: ItemStatus
    payload: JSON
    metadata: JSON
    queued_at: datetime
    started_at: datetime | None = None
    completed_at: datetime | None = None
    deferred_until: datetime | None = None
    merged_into: str | None = None
    seq: int = 0
    attempt: int = 1
    redelivered: bool = False
    idempotency_key: str | None = None
    session: JSON | None = None
    reason: str | None = None

    @property
    def content(self) -> str:
        """The item's text (``payload["content"]``), or an empty string."""
        value = self.payload.get("content", "")
        return value if isinstance(value, str) else ""

    @property
    def summary(self) -> str:
        value = self.payload.get("summary")
        return value if isinstance(value, str) else self.content[:80]

    def extra(self, key: str) -> Any:
        """``payload[key]`` or ``payload["extra"][key]``: the seed puts entity ids in both."""
        if key in self.payload:
            return self.payload[key]
        extra = self.payload.get("extra")
        return extra.get(key) if isinstance(extra, dict) else None

    @property
    def triggers_execution(self) -> bool:
        """True for task execution triggers, which are never merged (000 §14)."""
        return bool(self.extra("triggerExecution"))

    def copy(self) -> MailboxItem:
        """A copy whose payload, metadata and session are independent of this one."""
        clone = replace(self)
        clone.payload = dict(self.payload)
        clone.metadata = dict(self.metadata)
        clone.session = dict(self.session) if self.session is not None else None
        return clone

    def to_dict(self) -> JSON:
        """JSON-ready form with camelCase keys, as the API shows it (000 §5)."""
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "sourceType": self.source_type,
            "priority": self.priority,
            "status": str(self.status),
            "summary": self.summary,
            "payload": self.payload,
            "metadata": self.metadata,
            "queuedAt": _iso(self.queued_at),
            "startedAt": _iso(self.started_at),
            "completedAt": _iso(self.completed_at),
            "deferredUntil": _iso(self.deferred_until),
            "mergedInto": self.merged_into,
            "seq": self.seq,
            "attempt": self.attempt,
            "redelivered": self.redelivered,
            "idempotencyKey": self.idempotency_key,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """One attention decision about one item (000 §6.2 ``agent_decisions``).

    ``context`` holds what the controller saw: current focus id, queue depth,
    queued types, the item that triggered an interrupt.
    """

    id: str
    agent_id: str
    decision_type: DecisionType
    item_id: str
    reasoning: str
    created_at: datetime
    context: JSON = field(default_factory=dict)
    outcome: str | None = None
    #: The store's commit order of decisions (None until stored): timelines and
    #: their cursors follow it, never the wall-clock ``created_at``. Not part of
    #: equality: the same decision read back from a store is equal to the one written.
    seq: int | None = field(default=None, compare=False)

    def to_dict(self) -> JSON:
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "decisionType": str(self.decision_type),
            "mailboxItemId": self.item_id,
            "reasoning": self.reasoning,
            "context": self.context,
            "outcome": self.outcome,
            "createdAt": _iso(self.created_at),
        }


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
            "startedAt": _iso(self.started_at),
            "endedAt": _iso(self.ended_at),
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
            "createdAt": _iso(self.created_at),
        }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
