"""The one module of generic input checks, and how attn reads stored JSON that breaks them.

One home for the rules every edge applies (the Python API, HTTP bodies, trace
files, brain tools, ``attn.toml``). Domain rules stay with their domain and
call these:

- text: :func:`check_text`, :func:`check_optional_text`, :func:`check_unicode`;
- identifiers: :func:`check_id` (at most :data:`MAX_ID_CHARS` characters);
- numbers: :func:`check_int`, :func:`check_seconds`, :func:`is_finite_number`;
- JSON values: :func:`check_json`, :func:`json_problem`, :func:`json_kind`.

Each raises :class:`~attn.errors.InvalidInput` naming the value (``what``),
the rule and, cut short, what it got. A JSON value attn accepts nests at most
:data:`MAX_JSON_DEPTH` levels, holds only finite numbers, and integers that
fit in 64 bits (:data:`MIN_JSON_INT` .. :data:`MAX_JSON_INT`). Such values
can be stored by every backend, sent back as JSON by every view and read by
any JSON client.

Data already stored may break them (written by an older version or by another
process). :func:`load_stored` reads it anyway, so that no view answers an error
for it: NaN and infinities become ``null``, an integer too long for Python to
parse becomes a string of its first digits, and nesting deeper than
:data:`MAX_JSON_DEPTH` is replaced by the text :data:`TOO_DEEP`.

Spec: DESIGN.md invariant 10 (bad input gets a clear error and changes nothing);
issue 10 C4; issue 11 §1.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, TypeGuard

from attn.errors import InvalidInput, InvalidJson, shown

#: How deep a payload, metadata or options object may nest (the value itself is level 0).
MAX_JSON_DEPTH = 32
#: Largest integer accepted in JSON (signed 64 bits: SQLite INTEGER, PostgreSQL bigint).
MAX_JSON_INT = 2**63 - 1
#: Smallest integer accepted in JSON.
MIN_JSON_INT = -(2**63)
#: What a stored value nested deeper than :data:`MAX_JSON_DEPTH` is shown as.
TOO_DEEP = "…(nested too deep to show)"
#: Longest identifier attn accepts (idempotency keys, correlation ids, item ids), in characters.
MAX_ID_CHARS = 200
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


def check_int(value: object, what: str, *, low: int, high: int) -> int:
    """``value`` if it is an int (not a bool) in ``low .. high``.

    Huge integers are compared exactly, never converted to a float.

    Args:
        value: what the caller passed.
        what: its name in the message, e.g. ``"limit"``.
        low: smallest value allowed.
        high: largest value allowed.

    Raises:
        InvalidInput: ``"limit must be an integer from 1 to 1,000, got 0"``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(
            f"{what} must be an integer from {low:,} to {high:,}, got {shown(value)}"
        )
    return value


def check_seconds(
    value: object, what: str, *, min_s: float | None = None, max_s: float | None = None
) -> float:
    """``value`` as float seconds if it is a finite number (not a bool) in range.

    Args:
        value: what the caller passed.
        what: its name in the message, e.g. ``"timeout_s"``.
        min_s: smallest value allowed, in seconds (default: no bound).
        max_s: largest value allowed, in seconds (default: no bound).

    Raises:
        InvalidInput: not a number, NaN, infinite or out of range (exact for
            integers of any size); the message names the range when there is one.
    """
    if (
        not is_finite_number(value)
        or (min_s is not None and value < min_s)
        or (max_s is not None and value > max_s)
    ):
        bounds = ""
        if min_s is not None and max_s is not None:
            bounds = f" from {min_s:g} to {max_s:g}"
        elif min_s is not None or max_s is not None:
            bounds = f" of at least {min_s:g}" if min_s is not None else f" of at most {max_s:g}"
        raise InvalidInput(f"{what} must be a number of seconds{bounds}, got {shown(value)}")
    return float(value)


def check_text(value: object, what: str, *, max_len: int, blank_ok: bool = False) -> str:
    """``value`` if it is a string of at most ``max_len`` characters that UTF-8 can hold.

    Args:
        value: what the caller passed.
        what: its name in the message, e.g. ``"note"``.
        max_len: most characters allowed.
        blank_ok: whether an empty or all-space string is allowed.

    Returns:
        ``value``, unchanged (callers strip it if their rule says so).

    Raises:
        InvalidInput: not a string, blank (unless ``blank_ok``), longer than
            ``max_len``, or holding a lone surrogate.
    """
    if not isinstance(value, str) or not (blank_ok or value.strip()):
        kind = "a string" if blank_ok else "a non-blank string"
        raise InvalidInput(f"{what} must be {kind}, got {shown(value)}")
    if len(value) > max_len:
        raise InvalidInput(f"{what} must be at most {max_len:,} characters, got {len(value):,}")
    return check_unicode(value, what)


def check_optional_text(value: object, what: str, *, max_len: int) -> str | None:
    """None, or a string (blank allowed) that keeps :func:`check_text`'s rules.

    Raises:
        InvalidInput: not None and not a string, too long, or a lone surrogate.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a string or null, got {shown(value)}")
    return check_text(value, what, max_len=max_len, blank_ok=True)


def check_id(value: object, what: str, *, max_len: int = MAX_ID_CHARS) -> str:
    """``value`` if it is a non-blank string of at most ``max_len`` characters without NUL.

    For identifiers a caller chooses or passes back (idempotency keys,
    correlation ids, item ids): every store can hold and index them.

    Raises:
        InvalidInput: ``"idempotency key must be a non-blank string of at most
            200 characters without NUL, got ''"``, or a lone surrogate.
    """
    if not isinstance(value, str) or not value.strip() or len(value) > max_len or "\x00" in value:
        raise InvalidInput(
            f"{what} must be a non-blank string of at most {max_len:,} characters "
            f"without NUL, got {shown(value)}"
        )
    return check_unicode(value, what)


def check_unicode(value: str, what: str) -> str:
    """``value`` if UTF-8 can encode it (JSON can carry lone surrogates, no store can).

    Raises:
        InvalidInput: ``"note is not valid Unicode (a lone surrogate at position 3)"``.
    """
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{what} is not valid Unicode (a lone surrogate at position {exc.start})"
            ) from None
    return value


def json_kind(value: object) -> str:
    """How a message names the JSON type of ``value``: ``"an object"``, ``"null"``, ``"int"``..."""
    return _KINDS.get(type(value), type(value).__name__)


_KINDS: dict[type, str] = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    type(None): "null",
}


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


def _no_constant(name: str) -> None:
    return None  # NaN, Infinity, -Infinity: not JSON, shown as null


def _int_or_text(digits: str) -> int | str:
    if len(digits) <= 4000:
        return int(digits)
    return digits[:_KEPT_DIGITS] + "…"


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_TOLERANT_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_int=_int_or_text)


__all__ = [
    "MAX_ID_CHARS",
    "MAX_JSON_DEPTH",
    "MAX_JSON_INT",
    "MIN_JSON_INT",
    "TOO_DEEP",
    "check_id",
    "check_int",
    "check_json",
    "check_optional_text",
    "check_seconds",
    "check_text",
    "check_unicode",
    "clip_depth",
    "is_finite_number",
    "json_kind",
    "json_problem",
    "load_stored",
    "load_stored_object",
]
