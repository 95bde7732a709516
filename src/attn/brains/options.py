"""Bounds of the built-in brains' options, and the error that names the option.

Every option of a built-in brain is bounded where the brain is built, so the
same limits hold at every edge that builds one: the Python API, ``attn.toml``
(and ``attn config check``), ``POST /api/agents``. A value out of bounds, of the
wrong type, not finite, or an integer too large for a float is an
:class:`OptionError` naming the option, never an ``OverflowError`` or a brain
that runs for hours (an echo brain with 10^400 steps once held a server's
event loop for twelve minutes and grew it to 24 GB).
"""

from __future__ import annotations

import math

from attn.errors import OptionError

#: Most steps of an echo brain (each is a yield point and an activity log line).
MAX_ECHO_STEPS = 10_000
#: Longest sleep of one step (echo ``step_s``, script ``sleep_s``), in seconds.
MAX_STEP_S = 3600.0
#: Longest echo ``prefix``, in characters.
MAX_PREFIX_CHARS = 1000
#: Most steps of a script brain.
MAX_SCRIPT_STEPS = 1000
#: Longest text of one script step (``say``, ``log``, ``reply``, ``fail``, ``tool``).
MAX_STEP_TEXT_CHARS = 10_000


def bounded_int(brain: str, option: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low .. high``.

    Raises:
        OptionError: a bool, a non-integer, or a value out of bounds (any size).
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise OptionError(
            option,
            f"{brain} brain {option} must be an integer from {low} to "
            f"{high:,}, got {_shown(value)}",
        )
    return value


def bounded_seconds(
    brain: str, option: str, value: object, high_s: float, *, label: str | None = None
) -> float:
    """``value`` as finite seconds in ``0 .. high_s`` (``label`` names it in the message).

    Raises:
        OptionError: a bool, a non-number, NaN, infinity, or out of bounds (any size).
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not math.isfinite(value))
        or not 0 <= value <= high_s
    ):
        raise OptionError(
            option,
            f"{brain} brain {label or option} must be a number of "
            f"seconds from 0 to {high_s:g}, got {_shown(value)}",
        )
    return float(value)


def bounded_text(
    brain: str, option: str, value: object, high: int, *, label: str | None = None
) -> str:
    """``value`` as a string of at most ``high`` characters (``label`` names it in the message).

    Raises:
        OptionError: not a string, or too long.
    """
    if not isinstance(value, str) or len(value) > high:
        got = f"{len(value):,} characters" if isinstance(value, str) else _shown(value)
        raise OptionError(
            option,
            f"{brain} brain {label or option} must be a string of at most "
            f"{high:,} characters, got {got}",
        )
    return value


def _shown(value: object) -> str:
    """A short rendering of a bad value (a 400-digit integer is not echoed whole)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        # str() of a huge int is slow and refused past 4,300 digits; estimate instead.
        return f"an integer of about {int(abs(value).bit_length() * 0.30103) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
