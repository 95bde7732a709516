"""Compact JSON text, built fast: how attn validates and stores JSON objects.

One encoder for the hot path: no spaces, non-ASCII kept as is, NaN and
infinities refused (they are not JSON). It calls CPython's C encoder
directly, about twice as fast as ``json.dumps`` for small objects.
"""

from __future__ import annotations

import json
from typing import Any

_fallback = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


try:
    from _json import encode_basestring as _encode_str
    from _json import make_encoder as _make_encoder

    _encode: Any = _make_encoder(
        None, _unserializable, _encode_str, None, ":", ",", False, False, False
    )
except ImportError:  # pragma: no cover - CPython always has _json
    _encode = None


def dumps(value: Any) -> str:
    """``value`` as compact JSON text.

    Raises:
        TypeError: a value is not JSON-serializable.
        ValueError: NaN or an infinity.
        RecursionError: a reference cycle.
    """
    if _encode is None:  # pragma: no cover
        return _fallback.encode(value)
    return "".join(_encode(value, 0))
