"""The input rules of channel text: what the Python API, REST and the tools refuse
before anything is stored (invariant 10: bad input changes nothing).

The store keeps text without NUL; these checks refuse it up front, so a bad
value is an :class:`~attn.errors.InvalidInput` (HTTP 422), never a store error.

Spec: DESIGN.md invariant 10; acceptance A2A-06.
"""

from __future__ import annotations

from attn.errors import InvalidInput
from attn.limits import check_text


def clean_text(value: object, what: str, *, max_len: int) -> str:
    """``value`` if it is non-blank text of at most ``max_len`` characters, without NUL.

    Raises:
        InvalidInput: not a string, blank, too long, a lone surrogate or a NUL.
    """
    text = check_text(value, what, max_len=max_len)
    if "\x00" in text:
        raise InvalidInput(f"{what} must not contain NUL characters")
    return text


def clean_optional(value: object, what: str, *, max_len: int) -> str | None:
    """None, or :func:`clean_text` of ``value`` (a blank string is refused, not None)."""
    return None if value is None else clean_text(value, what, max_len=max_len)


__all__ = ["clean_optional", "clean_text"]
