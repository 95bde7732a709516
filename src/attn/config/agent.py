"""Per-agent settings of the mailbox and the attention loop: :class:`AgentConfig`."""

from __future__ import annotations

from dataclasses import dataclass

from attn.errors import InvalidInput, shown


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How one agent's mailbox and attention loop behave.

    Attributes:
        max_queued: most queued items (1 .. 10,000,000); further non-chat enqueues
            raise :class:`~attn.errors.MailboxFull` (human chat is always accepted).
        backstop_s: seconds one processing attempt may run before it is
            cancelled and requeued (000 §4 backstop; default 10 minutes, at most
            a week).
        approval_backstop_s: the backstop while the brain awaits a person's
            approval (000 §13.2; default 24 hours, at most 30 days).
        max_attempts: attempts before a failing item is dropped (DESIGN.md; 1 .. 100).
        max_payload_bytes: largest JSON-encoded payload plus metadata accepted
            (at most 64 MiB).
        dedup: merge a new comment or channel message into a queued item of
            the same task, requirement or channel, and let a superseding notice
            replace the older one (000 §14, CORE-76); restart recovery follows
            the same switch (CORE-74).
        coalesce_window_ms: after a burst of mergeable mail, wait this many
            milliseconds for the rest of it before triage; 0 disables (000 §14).
        consolidate: fold queued items about one task or requirement into one
            before triage (000 §21).
        stale_after_s: informational items queued longer than this are dropped
            before triage (000 §21; default 4 hours, at most a year).
        auto_complete_informational: complete informational items (status
            updates that ask for no action) without calling the brain (000 §3.4, §23).
        wake: when the loop starts a turn: ``"always"`` (for any queued item,
            also a restored one: seed 000) or ``"on_mail"`` (for live mail or an
            explicit start only: seed 002's retained agents). Retained children
            are always ``on_mail``; ``on_mail`` takes effect for an agent in a
            spawn tree (``runtime.tree``).
        capacity: turn slots of the spawn tree this agent is the root of: how
            many of its children's turns may run at once (seed 002; 1 .. 256,
            default 3). Not the queue bound (``max_queued``).
    """

    max_queued: int = 10_000
    backstop_s: float = 600.0
    approval_backstop_s: float = 86_400.0
    max_attempts: int = 3
    max_payload_bytes: int = 262_144
    dedup: bool = True
    coalesce_window_ms: int = 200
    consolidate: bool = True
    stale_after_s: float = 4 * 3600.0
    auto_complete_informational: bool = True
    wake: str = "always"
    capacity: int = 3

    def __post_init__(self) -> None:
        for name, high in _INT_LIMITS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise InvalidInput(
                    f"{name} must be an integer from 1 to {high:,}, got {shown(value)}"
                )
        window = self.coalesce_window_ms
        if isinstance(window, bool) or not isinstance(window, int) or not 0 <= window <= 60_000:
            raise InvalidInput(
                f"coalesce_window_ms must be an integer from 0 to 60000, got {window!r}"
            )
        for name in ("dedup", "consolidate", "auto_complete_informational"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidInput(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.wake not in ("always", "on_mail"):
            raise InvalidInput(f"wake must be 'always' or 'on_mail', got {shown(self.wake)}")
        for name, high_s in _SECONDS_LIMITS.items():
            value = getattr(self, name)
            # Exact int/float comparisons: a 400-digit integer is refused, never overflows.
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (0 < value <= high_s)
            ):
                raise InvalidInput(
                    f"{name} must be positive seconds, at most {high_s:,.0f}, got {shown(value)}"
                )


#: Upper bounds of the integer settings (the lower bound is 1).
_INT_LIMITS = {
    "max_queued": 10_000_000,
    "max_attempts": 100,
    "max_payload_bytes": 64 << 20,
    "capacity": 256,
}
#: Upper bounds of the durations, in seconds: a backstop of a week, an approval
#: wait of 30 days, a stale time of a year.
_SECONDS_LIMITS = {
    "backstop_s": 7 * 86_400.0,
    "approval_backstop_s": 30 * 86_400.0,
    "stale_after_s": 365 * 86_400.0,
}


__all__ = ["AgentConfig"]
