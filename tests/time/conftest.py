"""Fixtures of the time tests: a fake clock starting at :data:`timehelp.START` and a
runtime on the in-memory store.

Every scenario runs on :class:`~attn.testing.FakeClock` (TIME-13): timers fire
only when a test calls ``clock.advance``; ``runtime.time.drain()`` then waits
for the sweep the timer started (SQLite answers from its own threads).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from timehelp import START

from attn import Runtime
from attn.testing import FakeClock, MemoryStore


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
async def runtime(clock: FakeClock) -> AsyncIterator[Runtime]:
    rt = Runtime(MemoryStore(), clock=clock)
    await rt.start()
    yield rt
    await rt.close()
