"""Checks of a wakeup request: when (``delay_s`` or ``at``), how often, delivered how.

:func:`check_request` turns what a caller (a person, the API or a brain's
tool) asked for into a :class:`WakeupRequest`, or raises
:class:`~attn.errors.InvalidInput` naming the bad argument; nothing is
registered before it passed. The bounds come from
:class:`~attn.config.TimeConfig`.

Spec: 000 §11.3 (schedule_wakeup); acceptance TIME-03.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from attn.config import TimeConfig
from attn.errors import InvalidInput
from attn.limits import check_seconds
from attn.models import DeliveryMode


@dataclass(frozen=True, slots=True)
class WakeupRequest:
    """A checked wakeup request.

    Attributes:
        due_at: when it is first due (never before the time it was asked).
        recurring_s: the re-arm interval in seconds, or None for a one-shot wakeup.
        delivery_mode: mailbox (a system_event) or in_session (a callback_result).
        wall: asked for at an absolute time: it keeps its wall-clock instant.
    """

    due_at: datetime
    recurring_s: float | None
    delivery_mode: DeliveryMode
    wall: bool


def parse_instant(value: object, what: str) -> datetime:
    """An aware datetime from a datetime or ISO 8601 text (``Z`` allowed).

    Raises:
        InvalidInput: not a datetime or ISO text, or without a timezone.
    """
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"{what} must be an ISO 8601 time such as 2026-01-02T08:00:00Z, got {value!r}"
            ) from None
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a time, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(
            f"{what} needs a timezone (for example a trailing Z for UTC), got {value.isoformat()}"
        )
    return value


def check_request(
    config: TimeConfig,
    now: datetime,
    *,
    delay_s: object,
    at: object,
    recurring_s: object,
    delivery_mode: object,
) -> WakeupRequest:
    """Check a wakeup request made at ``now``.

    Args:
        config: the bounds (``max_delay_s``, ``past_tolerance_s``, ``min_recurring_s``).
        now: the time of the request.
        delay_s: seconds from now (>= 0), or None when ``at`` is given.
        at: an absolute time (aware datetime or ISO 8601 text), or None.
        recurring_s: re-arm interval in seconds, or None: once.
        delivery_mode: ``mailbox`` or ``in_session``.

    Returns:
        The checked :class:`WakeupRequest`.

    Raises:
        InvalidInput: neither or both of ``delay_s`` and ``at``; a time more than
            ``past_tolerance_s`` in the past or more than ``max_delay_s`` ahead;
            a bad recurrence or mode.
    """
    if (delay_s is None) == (at is None):
        raise InvalidInput(
            "schedule_wakeup needs exactly one of delay_s (seconds from now) "
            "or at (an absolute time)"
        )
    if delay_s is not None:
        delay = check_seconds(delay_s, "delay_s")
        if delay < 0:
            raise InvalidInput(f"delay_s must be >= 0 seconds, got {delay_s!r}")
        if delay > config.max_delay_s:  # before timedelta, which overflows past ~10^14 s
            raise InvalidInput(
                f"delay_s may be at most {config.max_delay_s:.0f} s (a wakeup's furthest), "
                f"got {delay:.6g} s"
            )
        due = now + timedelta(seconds=delay)
    else:
        due = parse_instant(at, "at")
        late_s = (now - due).total_seconds()
        if late_s > config.past_tolerance_s:
            raise InvalidInput(
                f"at {due.isoformat()} is {late_s:.0f} s in the past (now is {now.isoformat()})"
            )
        due = max(due, now)
    if (due - now).total_seconds() > config.max_delay_s:
        raise InvalidInput(
            f"at may be at most {config.max_delay_s:.0f} s ahead (a wakeup's furthest), "
            f"got {(due - now).total_seconds():.0f} s"
        )
    recurring = None
    if recurring_s is not None:
        recurring = check_seconds(recurring_s, "recurring_s")
        if recurring < config.min_recurring_s:
            raise InvalidInput(
                f"recurring_s must be at least {config.min_recurring_s:.0f} s, got {recurring_s!r}"
            )
        if recurring > config.max_delay_s:  # re-arming would overflow timedelta
            raise InvalidInput(
                f"recurring_s may be at most {config.max_delay_s:.0f} s, got {recurring:.6g} s"
            )
    try:
        mode = DeliveryMode(delivery_mode if isinstance(delivery_mode, str) else "")
    except ValueError:
        raise InvalidInput(
            f"delivery_mode must be 'mailbox' or 'in_session', got {delivery_mode!r}"
        ) from None
    return WakeupRequest(due, recurring, mode, wall=at is not None)


__all__ = ["WakeupRequest", "check_request", "parse_instant"]
