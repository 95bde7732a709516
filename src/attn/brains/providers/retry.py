"""How long to wait before trying a failed model turn again (LLM-11).

:class:`RetryPolicy` only decides; the tool loop does the waiting (on the
injected clock) and writes one activity log entry per retry. The delays are
deterministic: exponential backoff from ``base_s``, capped at ``cap_s``, no
random jitter, so a test (and a replayed trace) sees the same waits every time.
A provider's ``retry-after`` (already bounded to 0 .. 3600 s by
:mod:`attn.brains.providers.sdk_errors`) replaces the backoff.

Spec: 000 §4 (the backstop), issue 12 point 1; acceptance LLM-11.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn.errors import InvalidInput, ModelError, shown
from attn.limits import check_int, check_seconds

#: Most tries a policy may allow (each try is a whole model turn).
MAX_TRIES = 20
#: Longest base or cap delay a policy may have, in seconds.
MAX_DELAY_S = 3600.0


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Backoff for retryable :class:`~attn.errors.ModelError` s.

    Attributes:
        max_tries: most tries of one turn, the first included (1 .. 20).
        base_s: wait after the first failed try, in seconds; it doubles after
            each further failure (0 .. 3600).
        cap_s: longest backoff wait, in seconds (``base_s`` .. 3600). A
            provider's ``retry-after`` may be longer; it is honoured.

    Raises:
        InvalidInput: a field out of its range.
    """

    max_tries: int = 4
    base_s: float = 1.0
    cap_s: float = 30.0

    def __post_init__(self) -> None:
        check_int(self.max_tries, "max_tries", low=1, high=MAX_TRIES)
        check_seconds(self.base_s, "base_s", min_s=0.0, max_s=MAX_DELAY_S)
        check_seconds(self.cap_s, "cap_s", min_s=0.0, max_s=MAX_DELAY_S)
        if self.cap_s < self.base_s:
            raise InvalidInput(
                f"cap_s must be at least base_s ({self.base_s:g}), got {shown(self.cap_s)}"
            )

    def backoff_s(self, tries_so_far: int) -> float:
        """The backoff after ``tries_so_far`` failed tries (1 or more), in seconds."""
        # The exponent is bounded so a large count cannot overflow the float.
        return min(self.cap_s, self.base_s * 2.0 ** min(tries_so_far - 1, 64))

    def delay_for(
        self, error: ModelError, tries_so_far: int, remaining_s: float | None = None
    ) -> float | None:
        """Seconds to wait before the next try, or None to give up.

        Args:
            error: how the last try failed.
            tries_so_far: tries made so far, the failed one included (1 or more).
            remaining_s: seconds left before the item's backstop; None when
                there is none.

        Returns:
            The wait in seconds: the provider's ``retry_after_s`` when it sent
            one, else the backoff. None when the error is not retryable, the
            tries are used up, or the wait would reach the backstop (a try that
            starts at the backstop could not finish).

        Raises:
            InvalidInput: ``tries_so_far`` below 1 or ``remaining_s`` not a
                finite number.
        """
        check_int(tries_so_far, "tries_so_far", low=1, high=2**31)
        if remaining_s is not None:
            check_seconds(remaining_s, "remaining_s")
        if not error.retryable or tries_so_far >= self.max_tries:
            return None
        delay = error.retry_after_s
        if delay is None:
            delay = self.backoff_s(tries_so_far)
        if remaining_s is not None and delay >= remaining_s:
            return None
        return delay


__all__ = ["MAX_DELAY_S", "MAX_TRIES", "RetryPolicy"]
