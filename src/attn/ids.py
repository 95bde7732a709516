"""Identifiers: short, sortable by creation time, prefixed by kind."""

from __future__ import annotations

import itertools
import os
import time

# A random tag per process plus a counter keeps ids unique across processes
# without asking the OS for randomness on every id (hot path: three ids per item).
_PROCESS_TAG = os.urandom(4).hex()
_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


def _retag() -> None:
    # A forked child must not continue its parent's sequence.
    global _PROCESS_TAG, _counter
    _PROCESS_TAG = os.urandom(4).hex()
    _counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


os.register_at_fork(after_in_child=_retag)


def new_id(prefix: str) -> str:
    """Return ``"<prefix>_<hex>"``, unique across processes and sortable by time.

    The hex part is 12 digits of milliseconds since the epoch, 6 digits of a
    per-process counter and 8 digits of a random per-process tag.
    """
    return f"{prefix}_{int(time.time() * 1000):012x}{next(_counter) & 0xFFFFFF:06x}{_PROCESS_TAG}"


__all__ = ["new_id"]
