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
        dedup: merge a new comment or channel message into a queued item of
            the same task, requirement or channel (000 §14).
        coalesce_window_ms: after a burst of mergeable mail, wait this many
            milliseconds for the rest of it before triage; 0 disables (000 §14).
        consolidate: fold queued items about one task or requirement into one
            before triage (000 §21).
        stale_after_s: informational items queued longer than this are dropped
            before triage (000 §21; default 4 hours).
        auto_complete_informational: complete informational items (status
            updates that ask for no action) without calling the brain (000 §3.4, §23).
    """

    capacity: int = 10_000
    backstop_s: float = 600.0
    approval_backstop_s: float = 86_400.0
    max_attempts: int = 3
    max_payload_bytes: int = 262_144
    dedup: bool = True
    coalesce_window_ms: int = 200
    consolidate: bool = True
    stale_after_s: float = 4 * 3600.0
    auto_complete_informational: bool = True

    def __post_init__(self) -> None:
        for name in ("capacity", "max_attempts", "max_payload_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        window = self.coalesce_window_ms
        if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window <= 60_000:
            raise InvalidInput(
                f"coalesce_window_ms must be an integer from 0 to 60000, got {window!r}")
        for name in ("dedup", "consolidate", "auto_complete_informational"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("backstop_s", "approval_backstop_s", "stale_after_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise InvalidInput(f"{name} must be positive seconds, got {value!r}")
