"""The one JSON encoder: compact text for storage, the wire and hashing.

Every JSON text attn writes (stored payloads, HTTP bodies built by hand,
WebSocket frames, SSE data, trace files, cursors) comes from here, so it is
written one way: no spaces, non-ASCII kept as is (UTF-8 on the wire).

The NaN rule: NaN and the infinities are not JSON, and never appear in the
text attn writes. :func:`dumps` and :func:`dumps_bytes` refuse them
(``ValueError``); :func:`dumps_shown`, for values attn only shows (events,
views), writes them as ``null``, the way :func:`attn.limits.load_stored`
reads them from old stored data.

The encoder calls CPython's C encoder directly, about twice as fast as
``json.dumps`` for small objects. Human-facing output (the CLI's indented
``--json``) is formatting, not this encoder.

Spec: DESIGN.md invariant 10; issue 11 §1.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _chunks(
    default: Callable[[Any], Any], *, sort_keys: bool
) -> Callable[[Any, int], Iterable[str]]:
    try:
        from _json import encode_basestring, make_encoder
    except ImportError:  # pragma: no cover - CPython always has _json
        fallback = json.JSONEncoder(
            separators=(",", ":"),
            ensure_ascii=False,
            allow_nan=False,
            sort_keys=sort_keys,
            default=default,
        )
        return lambda value, _level: fallback.iterencode(value)
    # Arguments: markers (None: no cycle check, a cycle is a RecursionError),
    # default, string encoder, indent, separators, sort_keys, skipkeys, allow_nan.
    chunks: Callable[[Any, int], Iterable[str]] = make_encoder(
        None, default, encode_basestring, None, ":", ",", sort_keys, False, False
    )
    return chunks


_plain = _chunks(_unserializable, sort_keys=False)
_sorted = _chunks(_unserializable, sort_keys=True)
_shown = _chunks(str, sort_keys=False)


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """``value`` as compact JSON text.

    Args:
        value: dicts, lists, tuples, str, int, float, bool and None.
        sort_keys: sort every object's keys (for text that is hashed or compared).

    Raises:
        TypeError: a value is not JSON-serializable.
        ValueError: NaN or an infinity.
        RecursionError: a reference cycle.
    """
    return "".join((_sorted if sort_keys else _plain)(value, 0))


def dumps_bytes(value: Any, *, sort_keys: bool = False) -> bytes:
    """:func:`dumps` as UTF-8 bytes (an HTTP body, a hash input).

    Raises:
        TypeError: a value is not JSON-serializable.
        ValueError: NaN or an infinity.
        RecursionError: a reference cycle.
    """
    return dumps(value, sort_keys=sort_keys).encode("utf-8")


def dumps_shown(value: Any) -> str:
    """``value`` as compact JSON text that never fails on a stray value.

    For data attn shows but did not check (event data, a brain's reply data):
    a value JSON cannot hold is written as its ``str()``, NaN and the
    infinities as ``null``, so publishing an event never breaks.

    Raises:
        RecursionError: a reference cycle.
    """
    try:
        return "".join(_shown(value, 0))
    except ValueError:  # NaN or an infinity somewhere: rare, so the copy is made only then
        return "".join(_shown(_finite(value), 0))


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(child) for key, child in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(child) for child in value]
    return value


__all__ = ["dumps", "dumps_bytes", "dumps_shown"]
