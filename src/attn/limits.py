"""The limits on JSON that attn accepts, and how it reads stored JSON that breaks them.

One home for the rules every edge applies (the Python API, HTTP bodies, trace
files): a JSON value attn accepts nests at most :data:`MAX_JSON_DEPTH` levels,
holds only finite numbers, and integers that fit in 64 bits
(:data:`MIN_JSON_INT` .. :data:`MAX_JSON_INT`). Such values can be stored by
every backend, sent back as JSON by every view and read by any JSON client.

Data already stored may break them (written by an older version or by another
process). :func:`load_stored` reads it anyway, so that no view answers an error
for it: NaN and infinities become ``null``, an integer too long for Python to
parse becomes a string of its first digits, and nesting deeper than
:data:`MAX_JSON_DEPTH` is replaced by the text :data:`TOO_DEEP`.

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes nothing);
issue 10 C4.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Literal, TypeGuard, overload

from attn.errors import InvalidInput, InvalidJson, shown

#: How deep a payload, metadata or options object may nest (the value itself is level 0).
MAX_JSON_DEPTH = 32
#: Largest integer accepted in JSON (signed 64 bits: SQLite INTEGER, PostgreSQL bigint).
MAX_JSON_INT = 2**63 - 1
#: Smallest integer accepted in JSON.
MIN_JSON_INT = -(2**63)
#: What a stored value nested deeper than :data:`MAX_JSON_DEPTH` is shown as.
TOO_DEEP = "…(nested too deep to show)"
#: Largest integer a float can hold (about 1.8e308).
_FLOAT_MAX_INT = int(sys.float_info.max)
#: Digits kept of a stored integer too long to parse.
_KEPT_DIGITS = 40


def json_problem(value: object) -> str | None:
    """What makes ``value`` break the limits, or None when it keeps them.

    Only the limits are checked here (depth, finite numbers, 64-bit integers);
    whether the value is serializable at all is the encoder's business.

    Args:
        value: a decoded JSON value (dicts, lists, str, int, float, bool, None).

    Returns:
        A message such as ``"nested more than 32 levels deep"``, or None. When
        the offending value is inside ``value``, the message ends with its
        path, as in ``"integers must fit in 64 bits ... (at steps[0].sleep_s)"``.
    """
    found = _find_problem(value)
    if found is None:
        return None
    path, problem = found
    return f"{problem} (at {path.lstrip('.')})" if path and path != _DEEP else problem


#: The path of a depth problem: not spelled out.
_DEEP = "\x00deep"


def _find_problem(value: object) -> tuple[str, str] | None:
    if isinstance(value, dict | list | tuple):
        return _container_problem(value, 0)
    problem = _scalar_problem(value)
    return None if problem is None else ("", problem)


def _container_problem(
    value: dict[Any, Any] | list[Any] | tuple[Any, ...], depth: int
) -> tuple[str, str] | None:
    # Recursion stops at MAX_JSON_DEPTH, so it never nears Python's limit.
    if depth >= MAX_JSON_DEPTH and value:
        return _DEEP, f"nested more than {MAX_JSON_DEPTH} levels deep"
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, child in items:
        kind = type(child)
        if kind is str or child is None or kind is bool:
            continue
        found: tuple[str, str] | None
        if isinstance(child, dict | list | tuple):
            found = _container_problem(child, depth + 1)
        else:
            problem = _scalar_problem(child)
            found = None if problem is None else ("", problem)
        if found is not None:  # the path is built only on the way out of a failure
            if found[0] == _DEEP:  # a path 32 levels long says less than the limit
                return found
            step = f".{str(key)[:40]}" if isinstance(value, dict) else f"[{key}]"
            return step + found[0], found[1]
    return None


def _scalar_problem(value: object) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return "numbers must be finite (no NaN or Infinity)"
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not MIN_JSON_INT <= value <= MAX_JSON_INT
    ):
        return "integers must fit in 64 bits (-2**63 .. 2**63-1)"
    return None


def check_json(value: object, what: str) -> None:
    """Raise :class:`~attn.errors.InvalidJson` if ``value`` breaks the limits.

    Args:
        value: a decoded JSON value.
        what: how to name it in the message, e.g. ``"payload"``.

    Raises:
        InvalidJson: naming ``what``, the path inside it and the limit it breaks
            (``"payload: numbers must be finite ... (at payload.a.b)"``).
    """
    found = _find_problem(value)
    if found is not None:
        path = "" if found[0] == _DEEP else f" (at {what}{found[0]})"
        raise InvalidJson(f"{what}: {found[1]}{path}")


def is_finite_number(value: object) -> TypeGuard[int | float]:
    """True for an int or float (not a bool) that is finite as a float.

    Unlike ``math.isfinite`` this never raises: an integer too large for a
    float (``10**400``) is simply not a finite number.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return -_FLOAT_MAX_INT <= value <= _FLOAT_MAX_INT
    return math.isfinite(value)


def check_number(
    value: object,
    what: str,
    *,
    minimum: float = 0.0,
    maximum: float = float(MAX_JSON_INT),
    integer: bool = False,
) -> float:
    """``value`` as a float if it is a finite number in ``minimum .. maximum``.

    Huge integers are compared exactly (never converted to a float first), so
    they get this clear error instead of an ``OverflowError``.

    Args:
        value: what the caller passed.
        what: its name in the message, e.g. ``"echo brain step_s"``.
        minimum: smallest value allowed.
        maximum: largest value allowed.
        integer: whether only integers (not bools) are allowed.

    Returns:
        ``value`` as a float.

    Raises:
        InvalidInput: not a number (bools are not), not finite, or out of range.
    """
    kinds = "an integer" if integer else "a number"
    allowed = int if integer else int | float
    if (
        isinstance(value, bool)
        or not isinstance(value, allowed)
        or (isinstance(value, float) and not math.isfinite(value))
        or not minimum <= value <= maximum
    ):  # exact for ints of any size
        raise InvalidInput(
            f"{what} must be {kinds} ≥ {_number(minimum)} and "
            f"≤ {_number(maximum)}, got {shown(value, 30)}"
        )
    return float(value)


@overload
def check_text(
    value: object, what: str, *, required: Literal[True], max_chars: int = ...
) -> str: ...
@overload
def check_text(
    value: object, what: str, *, required: bool = False, max_chars: int = ...
) -> str | None: ...
def check_text(
    value: object, what: str, *, required: bool = False, max_chars: int = 8192
) -> str | None:
    """``value`` if it is a string of at most ``max_chars`` characters that UTF-8 can hold.

    Args:
        value: what the caller passed.
        what: its name in the message, e.g. ``"note"``.
        required: whether None and blank strings are refused.
        max_chars: longest accepted string, in characters.

    Returns:
        ``value`` unchanged (not stripped), or None when it is None and not required.

    Raises:
        InvalidInput: not a string (None only when required), blank when
            required, longer than ``max_chars``, or holding a lone surrogate.
    """
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        wanted = "a non-blank string" if required else "a string or null"
        raise InvalidInput(f"{what} must be {wanted}, got {shown(value, 40)}")
    if len(value) > max_chars:
        raise InvalidInput(f"{what} must be at most {max_chars} characters, got {len(value)}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{what} is not valid Unicode (a lone surrogate at position {exc.start})"
            ) from None
    return value


def load_stored(text: str) -> Any:
    """Decode JSON text read from the store, even text that breaks the limits.

    The common case costs one decode; only text that holds an integer Python
    refuses to parse (over 4,300 digits) or many brackets takes a slower way.

    Args:
        text: the stored JSON text.

    Returns:
        The value, with NaN and infinities as None, unparseable integers as
        strings of their first digits followed by ``…``, and levels deeper
        than :data:`MAX_JSON_DEPTH` replaced by :data:`TOO_DEEP` (the whole
        value, when it is too deep for Python's parser).

    Raises:
        ValueError: the text is not JSON at all.
    """
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        return TOO_DEEP
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer longer than Python converts
        value = _TOLERANT_DECODER.decode(text)
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        return clip_depth(value)
    return value


def load_stored_object(text: str) -> dict[str, Any]:
    """Like :func:`load_stored` for a column that holds a JSON object (payload,
    metadata, context): any other stored value is returned as ``{"value": ...}``."""
    value = load_stored(text)
    return value if isinstance(value, dict) else {"value": value}


def clip_depth(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` whose containers below :data:`MAX_JSON_DEPTH` levels are
    replaced by :data:`TOO_DEEP` (``value`` itself when nothing is that deep)."""
    if not isinstance(value, dict | list):
        return value
    if depth >= MAX_JSON_DEPTH:
        return TOO_DEEP if value else value
    if isinstance(value, dict):
        return {key: clip_depth(child, depth + 1) for key, child in value.items()}
    return [clip_depth(child, depth + 1) for child in value]


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() and abs(value) < 1e16 else f"{value:g}"


def _no_constant(name: str) -> None:
    return None  # NaN, Infinity, -Infinity: not JSON, shown as null


def _int_or_text(digits: str) -> int | str:
    if len(digits) <= 4000:
        return int(digits)
    return digits[:_KEPT_DIGITS] + "…"


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_TOLERANT_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_int_or_text)


__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_JSON_INT",
    "MIN_JSON_INT",
    "TOO_DEEP",
    "check_json",
    "check_number",
    "check_text",
    "clip_depth",
    "is_finite_number",
    "json_problem",
    "load_stored",
    "load_stored_object",
]
