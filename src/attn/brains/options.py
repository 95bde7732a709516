"""Bounds of the built-in brains' options, checked so the error names the option.

Every option of a built-in brain is bounded where the brain is built, so the
same limits hold at every edge that builds one: the Python API, ``attn.toml``
(and ``attn config check``), ``POST /api/agents``. A value out of bounds, of the
wrong type, not finite, or an integer too large for a float is an
:class:`~attn.errors.OptionError` naming the option, never an ``OverflowError`` or a brain
that runs for hours (an echo brain with 10^400 steps once held a server's
event loop for twelve minutes and grew it to 24 GB). The checks themselves
are :mod:`attn.limits`'; these wrappers add the option's name.
"""

from __future__ import annotations

from attn.errors import InvalidInput, OptionError, shown
from attn.limits import check_int, check_seconds, check_text, is_finite_number

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
    """``value`` as an int in ``low .. high`` (:func:`attn.limits.check_int`).

    Raises:
        OptionError: a bool, a non-integer, or a value out of bounds (any size).
    """
    try:
        return check_int(value, f"{brain} brain {option}", low=low, high=high)
    except InvalidInput as exc:
        raise OptionError(option, exc.message) from None


def bounded_seconds(
    brain: str,
    option: str,
    value: object,
    high_s: float,
    *,
    label: str | None = None,
    low_s: float = 0.0,
) -> float:
    """``value`` as finite seconds in ``low_s .. high_s`` (``label`` names it in the message).

    Raises:
        OptionError: a bool, a non-number, NaN, infinity, or out of bounds (any size).
    """
    try:
        return check_seconds(value, f"{brain} brain {label or option}", min_s=low_s, max_s=high_s)
    except InvalidInput as exc:
        raise OptionError(option, exc.message) from None


def bounded_text(
    brain: str, option: str, value: object, high: int, *, label: str | None = None
) -> str:
    """``value`` as a string of at most ``high`` characters (``label`` names it in the message).

    Raises:
        OptionError: not a string, too long, or a lone surrogate.
    """
    try:
        return check_text(value, f"{brain} brain {label or option}", max_len=high, blank_ok=True)
    except InvalidInput as exc:
        raise OptionError(option, exc.message) from None


def bounded_number(brain: str, option: str, value: object, low: float, high: float) -> float:
    """``value`` as a finite float in ``low .. high`` (an int is taken as a float).

    Raises:
        OptionError: a bool, a non-number, NaN, infinity, or out of bounds (any size).
    """
    if not is_finite_number(value) or not low <= value <= high:
        raise OptionError(
            option,
            f"{brain} brain {option} must be a number from {low:g} to {high:g}, got {shown(value)}",
        )
    return float(value)


def bounded_choice(brain: str, option: str, value: object, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices`` (exactly, case included).

    Raises:
        OptionError: anything else; the message lists the choices.
    """
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise OptionError(
            option, f"{brain} brain {option} must be one of {listed}, got {shown(value)}"
        )
    return value
