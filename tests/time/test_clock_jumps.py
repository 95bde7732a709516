"""Wakeups across jumps of the wall clock (issue 10 B5), on a fake clock that jumps.

The rule: what this process schedules "in N s" fires after N s of elapsed
(monotonic) time; a wakeup asked for at an absolute time fires when the wall
clock reads it; stored due times follow the jump, so a restart keeps the
remaining delay. ``FakeClock.jump`` steps the wall clock without moving
monotonic time, as NTP or a person setting the date does.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from attn import Runtime
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock
from tests.time.timehelp import START, Recorder, items, settle_all

HOUR_S = 3600.0


async def _fired(runtime: Runtime) -> list[tuple[str, bool]]:
    await settle_all(runtime)
    return [
        (i.payload["extra"]["callbackId"], i.payload["extra"]["catchUp"])
        for i in await items(runtime.store, "alice", "system_event")
    ]


async def test_time_03_a_wakeup_in_600_s_fires_600_s_later_after_the_clock_went_back(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    wakeup = await runtime.time.schedule_wakeup("alice", delay_s=600, note="in ten minutes")
    clock.jump(-HOUR_S)
    await clock.advance(599)
    assert await _fired(runtime) == []
    await clock.advance(1)
    assert await _fired(runtime) == [(wakeup.id, False)]  # on time, not an hour late
    assert await runtime.store.find_callbacks("alice") == []
    assert runtime.time.scheduler.jumps == 1 and runtime.time.scheduler.last_jump_s == -HOUR_S


async def test_time_03_a_jump_forward_neither_fires_early_nor_counts_as_missed(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    soon = await runtime.time.schedule_wakeup("alice", delay_s=100)
    later = await runtime.time.schedule_wakeup("alice", delay_s=600)
    clock.jump(HOUR_S)
    await clock.advance(100)
    assert await _fired(runtime) == [(soon.id, False)]
    [stored] = await runtime.store.find_callbacks("alice")
    assert stored.due_at == START + timedelta(seconds=600 + HOUR_S)  # moved with the clock
    await clock.advance(499)
    assert await _fired(runtime) == [(soon.id, False)]
    await clock.advance(1)
    assert await _fired(runtime) == [(soon.id, False), (later.id, False)]


async def test_time_03_a_wakeup_at_an_absolute_time_keeps_its_wall_clock_instant(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    at = START + timedelta(seconds=1800)
    standup = await runtime.time.schedule_wakeup("alice", at=at, note="standup")
    clock.jump(-HOUR_S)  # the wall clock was an hour fast; now it reads right
    await clock.advance(1800)
    assert await _fired(runtime) == []
    [stored] = await runtime.store.find_callbacks("alice")
    assert stored.due_at == at
    await clock.advance(HOUR_S - 1)
    assert await _fired(runtime) == []
    await clock.advance(1)
    assert clock.now() == at
    assert await _fired(runtime) == [(standup.id, False)]


async def test_time_04_a_recurring_occurrence_on_an_instant_already_used_is_delivered(
    runtime: Runtime, clock: FakeClock
) -> None:
    """The occurrence key was ``cb:<id>:<due time>``: after the clock went back, the
    next due time repeated the first one and the idempotency key swallowed it."""
    await runtime.add_agent("alice", Recorder(clock))
    every = await runtime.time.schedule_wakeup("alice", delay_s=600, recurring_s=600)
    await clock.advance(600)
    assert await _fired(runtime) == [(every.id, False)]
    clock.jump(-600)  # the next due time (+1200) now reads as +600 again
    await clock.advance(600)
    assert await _fired(runtime) == [(every.id, False)] * 2
    [first, second] = await items(runtime.store, "alice", "system_event")
    assert first.payload["extra"]["dueAt"] == second.payload["extra"]["dueAt"]
    assert first.idempotency_key != second.idempotency_key


async def test_time_05_a_restart_after_a_jump_keeps_the_remaining_delay(tmp_path: Path) -> None:
    db = tmp_path / "attn.db"
    clock = FakeClock(START)
    first = Runtime(SQLiteStore(db), clock=clock)
    await first.start()
    await first.add_agent("alice", Recorder(clock))
    nudge = await first.time.schedule_wakeup("alice", delay_s=200)
    later = await first.time.schedule_wakeup("alice", delay_s=600)
    await clock.advance(100)
    clock.jump(-HOUR_S)
    await clock.advance(100)  # the first wakeup's sweep notices the jump
    assert await _fired(first) == [(nudge.id, False)]
    await first.close()

    second = Runtime(SQLiteStore(db), clock=clock)
    await second.start()
    try:
        await second.add_agent("alice", Recorder(clock))
        await clock.advance(399)
        assert await _fired(second) == [(nudge.id, False)]
        await clock.advance(1)
        assert await _fired(second) == [(nudge.id, False), (later.id, False)]
    finally:
        await second.close()


async def test_two_runtimes_that_notice_one_jump_move_a_due_time_once(tmp_path: Path) -> None:
    clock = FakeClock(START)
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    from attn.store import open_store

    first = Runtime(open_store(url), clock=clock, host=False)
    second = Runtime(open_store(url), clock=clock, host=False)
    await first.start()
    await second.start()
    try:
        await first.add_agent("alice", Recorder(clock))
        nudge = await first.time.schedule_wakeup("alice", delay_s=100)
        later = await first.time.schedule_wakeup("alice", delay_s=600)
        await second.add_agent("alice", Recorder(clock))  # follows both wakeups too
        clock.jump(-HOUR_S)
        await clock.advance(100)
        for rt in (first, second):
            await settle_all(rt)
        assert (first.time.scheduler.jumps, second.time.scheduler.jumps) == (1, 1)
        [stored] = await first.store.find_callbacks("alice")
        assert stored.id == later.id
        assert stored.due_at == START + timedelta(seconds=600 - HOUR_S)  # moved once
        await clock.advance(500)
        for rt in (first, second):
            await settle_all(rt)
        fired = [
            i.payload["extra"]["callbackId"]
            for i in await items(first.store, "alice", "system_event")
        ]
        assert sorted(fired) == sorted([nudge.id, later.id])
    finally:
        await first.close()
        await second.close()
