"""Mailbox items: one stimulus in one agent's mailbox, and its lifecycle.

Spec: 000 §6 (data model, persistence lifecycle). attn adds ``seq`` (commit
order), ``attempt``, ``redelivered``, ``idempotency_key``, ``session`` (the
brain's saved context across preemption) and ``reason`` (why it ended so).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from attn.models._wire import iso
from attn.types import JSON


class ItemStatus(StrEnum):
    """Lifecycle of a mailbox item (000 §6.5, §16)."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    DEFERRED = "deferred"
    #: Waiting on a person's answer (an approval, 000 §13.2): never picked,
    #: never resurfaced by time; the answer requeues it in its session.
    PARKED = "parked"
    MERGED = "merged"
    DROPPED = "dropped"


TERMINAL_STATUSES = frozenset({ItemStatus.COMPLETED, ItemStatus.MERGED, ItemStatus.DROPPED})


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
            "queuedAt": iso(self.queued_at),
            "startedAt": iso(self.started_at),
            "completedAt": iso(self.completed_at),
            "deferredUntil": iso(self.deferred_until),
            "mergedInto": self.merged_into,
            "seq": self.seq,
            "attempt": self.attempt,
            "redelivered": self.redelivered,
            "idempotencyKey": self.idempotency_key,
            "reason": self.reason,
        }
