"""How error messages show a value the caller passed: whole when short, cut when long.

Re-exported by :mod:`attn.errors` (``attn.errors.shown``), its home for callers.
"""

from __future__ import annotations

#: Longest identifier echoed whole in an error message.
MAX_ECHO_CHARS = 80


def shown(value: object, limit: int = MAX_ECHO_CHARS) -> str:
    """``value`` for an error message, never long.

    A string is its ``repr`` cut to ``limit`` characters with an ellipsis
    (``'xxx…'``); an integer of 16 digits or more is described (``"an integer
    of about 401 digits"``), since ``repr`` of a huge one is slow or refused;
    anything else is its ``repr``, cut the same way.
    """
    if isinstance(value, str) and len(value) > limit:
        return repr(value[: limit - 1] + "…")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        return f"an integer of about {int(abs(value).bit_length() * 0.30103) + 1:,} digits"
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


__all__ = ["MAX_ECHO_CHARS", "shown"]
