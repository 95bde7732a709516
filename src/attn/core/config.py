"""Per-agent settings of the mailbox and the attention loop."""

from __future__ import annotations

from dataclasses import dataclass

from attn.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How one agent's mailbox and attention loop behave.

    Attributes:
        capacity: most queued items; further non-chat enqueues raise
            :class:`~attn.errors.MailboxFull` (human chat is always accepted).
        backstop_s: seconds one processing attempt may run before it is
            cancelled and requeued (000 §4 backstop; default 10 minutes).
        approval_backstop_s: the backstop while the brain awaits a person's
            approval (000 §13.2; default 24 hours).
        max_attempts: attempts before a failing item is dropped (DESIGN.md).
        max_payload_bytes: largest JSON-encoded payload plus metadata accepted.
    """

    capacity: int = 10_000
    backstop_s: float = 600.0
    approval_backstop_s: float = 86_400.0
    max_attempts: int = 3
    max_payload_bytes: int = 262_144

    def __post_init__(self) -> None:
        for name in ("capacity", "max_attempts", "max_payload_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        for name in ("backstop_s", "approval_backstop_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise InvalidInput(f"{name} must be positive seconds, got {value!r}")
