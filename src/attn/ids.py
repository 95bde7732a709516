"""Identifiers: short, sortable by creation time, prefixed by kind."""

from __future__ import annotations

import os
import time

_counter = int.from_bytes(os.urandom(3), "big")


def new_id(prefix: str) -> str:
    """Return ``"<prefix>_<hex>"``, unique across processes and sortable by time.

    The hex part is 12 digits of milliseconds since the epoch, 6 digits of a
    per-process counter and 8 random digits.
    """
    global _counter
    _counter = (_counter + 1) & 0xFFFFFF
    return f"{prefix}_{int(time.time() * 1000):012x}{_counter:06x}{os.urandom(4).hex()}"
