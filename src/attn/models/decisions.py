"""Attention decisions and the controller's state.

Spec: 000 §4 (decisions), §6.2 (``agent_decisions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON


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
            "createdAt": iso(self.created_at),
        }
