"""attn.testing: :func:`eventually` waits for a condition, with a clear failure."""

from __future__ import annotations

import asyncio
import threading

import pytest

from attn.testing import eventually


async def test_eventually_returns_the_first_true_value_of_a_plain_predicate() -> None:
    results = iter([0, None, "", "ready", "later"])
    assert await eventually(lambda: next(results), interval_s=0) == "ready"


async def test_eventually_awaits_an_async_predicate_until_another_thread_is_done() -> None:
    done = threading.Event()
    threading.Timer(0.02, done.set).start()

    async def finished() -> bool:
        return done.is_set()

    assert await eventually(finished, timeout_s=5) is True


async def test_eventually_fails_at_the_timeout_naming_the_condition() -> None:
    def never() -> bool:
        return False

    with pytest.raises(AssertionError, match=r"timed out after 0\.05 s waiting until .*never"):
        await eventually(never, timeout_s=0.05, interval_s=0.01)
    with pytest.raises(AssertionError, match="waiting until the lock is free"):
        await eventually(lambda: False, timeout_s=0.01, what="the lock is free")


async def test_eventually_cancels_a_check_still_running_at_the_timeout() -> None:
    started = asyncio.Event()

    async def hangs() -> bool:
        started.set()
        await asyncio.Event().wait()
        return True

    with pytest.raises(AssertionError, match="hangs"):
        await eventually(hangs, timeout_s=0.05)
    assert started.is_set()


async def test_eventually_lets_the_predicate_s_own_errors_through() -> None:
    def broken() -> bool:
        raise TimeoutError("the predicate's own")

    with pytest.raises(TimeoutError, match="the predicate's own"):
        await eventually(broken)


@pytest.mark.parametrize(("timeout_s", "interval_s"), [(0, 0.1), (-1, 0.1), (1, -0.1)])
async def test_eventually_refuses_bad_durations(timeout_s: float, interval_s: float) -> None:
    with pytest.raises(ValueError, match="seconds"):
        await eventually(lambda: True, timeout_s=timeout_s, interval_s=interval_s)
