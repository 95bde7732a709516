"""Settings of the time subsystem (:class:`TimeConfig`), and the heartbeat interval rule.

Spec: 000 §11.3 (callback timeouts: background command 10 min, awaited reply
30 min, wakeups never), §11.4 (heartbeat default 6 h, clamped 5 min – 24 h);
acceptance TIME-06 (catch-up or missed), TIME-09 (interval rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from enum import StrEnum

from attn.errors import InvalidInput
from attn.limits import is_finite_number

HOUR_S = 3600.0
#: The heartbeat interval when none is set, or a non-number is given: 6 hours.
DEFAULT_HEARTBEAT_S = 6 * HOUR_S
#: Shortest and longest heartbeat interval: 5 minutes and 24 hours.
MIN_HEARTBEAT_S = 300.0
MAX_HEARTBEAT_S = 24 * HOUR_S


class CatchUp(StrEnum):
    """What happens to a wakeup whose due time passed while no runtime ran (TIME-06).

    ``fire``: it fires once on start as a catch-up, however many times it
    would have fired meanwhile. ``record_missed``: it is recorded as missed (a
    dropped ``system_event`` in the agent's history) and does not run.
    """

    FIRE = "fire"
    RECORD_MISSED = "record_missed"


@dataclass(frozen=True, slots=True)
class TimeConfig:
    """How one runtime's timekeeper behaves. Durations are seconds.

    Attributes:
        heartbeats: give every hosted agent a heartbeat (at its persisted interval
            or ``heartbeat_default_s``). When False (the default, so an idle
            runtime holds no timer), only agents whose interval was set through
            :meth:`~attn.time.Timekeeper.set_heartbeat_interval` have one.
        heartbeat_default_s, heartbeat_min_s, heartbeat_max_s: the interval
            rule (6 h, clamped to 5 min – 24 h).
        busy_retry_s: when a heartbeat is due while a human chat is focused or
            queued, check again after this long.
        catch_up: fire or record wakeups missed while no runtime ran.
        missed_after_s: a wakeup found this late counts as missed (a catch-up).
        past_tolerance_s: ``schedule_wakeup`` accepts an absolute time this far
            in the past (clock skew); earlier is an error.
        min_recurring_s: shortest recurrence of a recurring wakeup.
        max_delay_s: furthest a wakeup may be scheduled ahead (default 1 year).
        background_timeout_s: callback timeout of a background command without
            a timeout of its own (10 min).
        background_grace_s: added to a background command's own timeout.
        a2a_timeout_s: callback timeout of an awaited reply (30 min).
        claim_lease_s: a wakeup claimed this long ago by a runtime that has not
            finished delivering it is claimed again (its delivery is idempotent).
        sweep_batch: most wakeups claimed per store round trip.
        tail_bytes: bytes kept of a background command's stdout and stderr.
        max_timer_s: the runtime's single timer wakes at least this often while
            anything is scheduled, so a wall-clock jump is noticed.
    """

    heartbeats: bool = False
    heartbeat_default_s: float = DEFAULT_HEARTBEAT_S
    heartbeat_min_s: float = MIN_HEARTBEAT_S
    heartbeat_max_s: float = MAX_HEARTBEAT_S
    busy_retry_s: float = 60.0
    catch_up: CatchUp = CatchUp.FIRE
    missed_after_s: float = 60.0
    past_tolerance_s: float = 5.0
    min_recurring_s: float = 60.0
    max_delay_s: float = 366 * 24 * HOUR_S
    background_timeout_s: float = 600.0
    background_grace_s: float = 60.0
    a2a_timeout_s: float = 1800.0
    claim_lease_s: float = 300.0
    sweep_batch: int = 500
    tail_bytes: int = 4096
    max_timer_s: float = HOUR_S

    def __post_init__(self) -> None:
        if not isinstance(self.heartbeats, bool):
            raise InvalidInput(f"heartbeats must be true or false, got {self.heartbeats!r}")
        try:
            object.__setattr__(self, "catch_up", CatchUp(self.catch_up))
        except ValueError:
            allowed = ", ".join(c.value for c in CatchUp)
            raise InvalidInput(
                f"catch_up must be one of {allowed}, got {self.catch_up!r}"
            ) from None
        for name in (f.name for f in fields(self) if f.name.endswith("_s")):
            value = getattr(self, name)
            if (
                not is_finite_number(value)
                or value < 0
                or (value == 0 and name != "past_tolerance_s")
            ):
                raise InvalidInput(f"{name} must be positive seconds, got {value!r}")
        for name in ("sweep_batch", "tail_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        if not self.heartbeat_min_s <= self.heartbeat_default_s <= self.heartbeat_max_s:
            raise InvalidInput(
                "expected heartbeat_min_s <= heartbeat_default_s <= heartbeat_max_s, got "
                f"{self.heartbeat_min_s}, {self.heartbeat_default_s}, {self.heartbeat_max_s}"
            )

    def clamp_heartbeat(self, value: object) -> float:
        """The heartbeat interval ``value`` asks for, by the rule of TIME-09.

        A number is clamped to ``heartbeat_min_s`` .. ``heartbeat_max_s`` (60 s
        gives 300 s, 48 h gives 24 h); anything else (a string, None, NaN, a
        bool) gives ``heartbeat_default_s``. Never raises.
        """
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or (isinstance(value, float) and not math.isfinite(value))
        ):
            return self.heartbeat_default_s  # (an int of any size is clamped, never overflows)
        return float(min(max(value, self.heartbeat_min_s), self.heartbeat_max_s))


__all__ = [
    "DEFAULT_HEARTBEAT_S",
    "MAX_HEARTBEAT_S",
    "MIN_HEARTBEAT_S",
    "CatchUp",
    "TimeConfig",
]
