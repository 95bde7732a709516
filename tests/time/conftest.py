"""Fixtures of the time tests: a fake clock starting at :data:`timehelp.START`; the
``runtime`` of tests/conftest.py runs on it.

Every scenario runs on :class:`~attn.testing.FakeClock` (TIME-13): timers fire
only when a test calls ``clock.advance``; ``runtime.time.drain()`` then waits
for the sweep the timer started (SQLite answers from its own threads).
"""

from __future__ import annotations

import pytest

from attn.testing import FakeClock
from tests.time.timehelp import START


@pytest.fixture
def clock() -> FakeClock:
    """The fake clock of every time test, at :data:`timehelp.START`."""
    return FakeClock(START)
