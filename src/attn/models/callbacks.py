"""The records of the time subsystem: pending callbacks and their kinds.

A :class:`PendingCallback` is an asynchronous operation an agent waits for: a
background command, a wakeup (one-shot or recurring) or an awaited reply from
another agent. It is persisted in ``pending_callbacks`` until it is resolved,
cancelled or expired, so it survives restarts.

Spec: 000 §3.4 (callback_result), §11.3 (PendingCallbackRegistry).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from attn.models._wire import iso
from attn.types import JSON


class CallbackType(StrEnum):
    """What the agent is waiting for (000 §11.3)."""

    BACKGROUND_EXEC = "background_exec"
    WAKEUP = "wakeup"
    A2A_REPLY = "a2a_reply"


class DeliveryMode(StrEnum):
    """How a resolved callback reaches its agent (000 §3.4).

    ``in_session`` enqueues a ``callback_result`` bound to the origin session;
    ``mailbox`` enqueues a ``system_event``, a fresh attention cycle.
    """

    IN_SESSION = "in_session"
    MAILBOX = "mailbox"


class CallbackStatus(StrEnum):
    """Where a stored callback is in its life.

    ``pending``: waiting (for its due time, its command or its reply).
    ``claimed``: a runtime took a due wakeup and is delivering it (the claim
    is transactional, so only one runtime fires it).
    ``resolved``: the outcome is stored and its item is being enqueued; a
    restart delivers it again under the same idempotency key.
    """

    PENDING = "pending"
    CLAIMED = "claimed"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class PendingCallback:
    """One asynchronous operation an agent waits for.

    Attributes:
        id: ``cb_…`` identifier (also the wakeup id tools return).
        agent_id: the agent that registered it; every query is scoped to it.
        type: background_exec, wakeup or a2a_reply.
        delivery_mode: in_session (callback_result) or mailbox (system_event).
        registered_at: when it was registered (UTC).
        origin_session_id: the session that started it, resumed on delivery.
        command: the shell command of a background_exec.
        note: free text: the wakeup's reason, the delegation's goal.
        correlation_id: the conversation id of an awaited reply.
        due_at: when a wakeup is due (UTC); None for other types.
        recurring_s: re-arm interval of a recurring wakeup, in seconds.
        timeout_s: seconds after ``registered_at`` when it counts as timed out;
            None for never (wakeups).
        status: see :class:`CallbackStatus`.
        claimed_by: the runtime that claimed or resolved it.
        claimed_at: when it was claimed or resolved.
        data: JSON object: the stored outcome while ``resolved``, run options.
    """

    id: str
    agent_id: str
    type: CallbackType
    delivery_mode: DeliveryMode
    registered_at: datetime
    origin_session_id: str | None = None
    command: str | None = None
    note: str | None = None
    correlation_id: str | None = None
    due_at: datetime | None = None
    recurring_s: float | None = None
    timeout_s: float | None = None
    status: CallbackStatus = CallbackStatus.PENDING
    claimed_by: str | None = None
    claimed_at: datetime | None = None
    data: JSON = field(default_factory=dict)

    @property
    def expires_at(self) -> datetime | None:
        """When it times out (``registered_at + timeout_s``), or None for never."""
        if self.timeout_s is None:
            return None
        return self.registered_at + timedelta(seconds=self.timeout_s)

    def timed_out(self, now: datetime) -> bool:
        """True when ``now`` is at or past :attr:`expires_at`."""
        expires = self.expires_at
        return expires is not None and now >= expires

    def to_dict(self) -> JSON:
        """JSON-ready form with camelCase keys, as the API shows it.

        ``nextFireAt`` is the due time of a wakeup and None for other types.
        """
        return {
            "id": self.id,
            "agentId": self.agent_id,
            "type": str(self.type),
            "deliveryMode": str(self.delivery_mode),
            "originSessionId": self.origin_session_id,
            "command": self.command,
            "note": self.note,
            "correlationId": self.correlation_id,
            "dueAt": iso(self.due_at),
            "nextFireAt": iso(self.due_at) if self.type == CallbackType.WAKEUP else None,
            "recurringS": self.recurring_s,
            "registeredAt": iso(self.registered_at),
            "timeoutS": self.timeout_s,
            "expiresAt": iso(self.expires_at),
            "status": str(self.status),
        }
