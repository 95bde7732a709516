"""Wakeups: validation, exactly-once firing (also with two runtimes on one database),
recurrence, restart, catch-up after downtime (TIME-03..06). All on the fake clock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from attn import Runtime
from attn.config import CatchUp, TimeConfig
from attn.errors import CallbackNotFound, InvalidInput, UnknownAgent
from attn.models import CallbackStatus, CallbackType, DecisionType, DeliveryMode, ItemStatus
from attn.store.base import Store
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock
from tests.time.timehelp import START, Recorder, items, settle_all

DAY_S = 86_400.0


async def test_time_03_schedule_by_delay_or_absolute_time_and_cancel(
    runtime: Runtime, clock: FakeClock
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    by_delay = await runtime.time.schedule_wakeup("alice", delay_s=90, note="check the build")
    assert by_delay.type == CallbackType.WAKEUP
    assert by_delay.delivery_mode == DeliveryMode.MAILBOX
    assert by_delay.due_at == START + timedelta(seconds=90)
    assert by_delay.timeout_s is None  # wakeups never time out
    at = await runtime.time.schedule_wakeup("alice", at="2026-01-05T09:00:00Z", note="standup")
    assert at.due_at == START.replace(hour=9, minute=0)
    # A time a moment in the past (within the tolerance) is due now.
    skew = await runtime.time.schedule_wakeup("alice", at=START - timedelta(seconds=3))
    assert skew.due_at == START
    listed = await runtime.time.list_callbacks("alice")
    assert [c.id for c in listed] == [by_delay.id, at.id, skew.id]
    assert listed[0].to_dict()["nextFireAt"] == by_delay.due_at.isoformat()  # type: ignore[union-attr]

    cancelled = await runtime.time.cancel_wakeup("alice", at.id)
    assert cancelled.id == at.id
    assert [c.id for c in await runtime.time.list_callbacks("alice")] == [by_delay.id, skew.id]
    with pytest.raises(CallbackNotFound):
        await runtime.time.cancel_wakeup("alice", at.id)
    await clock.advance(4 * 3600)
    await settle_all(runtime)
    events = await items(runtime.store, "alice", "system_event")
    assert [e.payload["extra"]["callbackId"] for e in events] == [skew.id, by_delay.id]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "exactly one of delay_s"),
        ({"delay_s": 10, "at": "2026-01-05T09:00:00Z"}, "exactly one of delay_s"),
        ({"at": "2026-01-05T07:58:00Z"}, "in the past"),
        ({"at": START - timedelta(days=1)}, "in the past"),
        ({"at": "2026-01-05T09:00:00"}, "needs a timezone"),
        ({"at": "tomorrow morning"}, "ISO 8601"),
        ({"at": 1767600000}, "must be a time"),
        ({"delay_s": -1}, ">= 0"),
        ({"delay_s": float("nan")}, "number of seconds"),
        ({"delay_s": "60"}, "number of seconds"),
        ({"delay_s": True}, "number of seconds"),
        ({"delay_s": 10 * 366 * DAY_S}, "at most"),
        ({"delay_s": 10, "recurring_s": 5}, "at least 60"),
        ({"delay_s": 10, "recurring_s": "daily"}, "number of seconds"),
        ({"delay_s": 10, "note": 7}, "note"),
        ({"delay_s": 10, "note": "x" * 8193}, "at most 8,192"),
        ({"delay_s": 10, "delivery_mode": "email"}, "delivery_mode"),
    ],
)
async def test_time_03_bad_wakeups_are_errors_and_register_nothing(
    runtime: Runtime, clock: FakeClock, arguments: dict[str, Any], message: str
) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    with pytest.raises(InvalidInput, match=message):
        await runtime.time.schedule_wakeup("alice", **arguments)
    assert await runtime.store.find_callbacks("alice") == []
    assert len(runtime.time.scheduler) == 0


async def test_wakeups_are_scoped_to_their_agent(runtime: Runtime, clock: FakeClock) -> None:
    await runtime.add_agent("alice", Recorder(clock))
    await runtime.add_agent("bob", Recorder(clock))
    wakeup = await runtime.time.schedule_wakeup("alice", delay_s=60)
    with pytest.raises(CallbackNotFound):
        await runtime.time.cancel_wakeup("bob", wakeup.id)
    with pytest.raises(UnknownAgent):
        await runtime.time.schedule_wakeup("carol", delay_s=60)
    assert await runtime.time.list_callbacks("bob") == []
    background = await runtime.time.callbacks.register(
        "alice", CallbackType.BACKGROUND_EXEC, command="make", timeout_s=600
    )
    with pytest.raises(CallbackNotFound, match="not a wakeup"):
        await runtime.time.cancel_wakeup("alice", background.id)


async def test_time_04_a_due_wakeup_is_delivered_once_and_recurring_ones_re_arm(
    runtime: Runtime, clock: FakeClock
) -> None:
    brain = Recorder(clock)
    await runtime.add_agent("alice", brain)
    once = await runtime.time.schedule_wakeup("alice", delay_s=60, note="once")
    hourly = await runtime.time.schedule_wakeup(
        "alice", delay_s=120, recurring_s=3600, note="hourly"
    )
    await clock.advance(59)
    await settle_all(runtime)
    assert brain.calls == []
    await clock.advance(1)
    await settle_all(runtime)
    [first] = brain.of("system_event")
    assert first.payload["content"] == "Wakeup: once"
    assert first.payload["extra"]["callbackId"] == once.id
    assert first.payload["extra"]["catchUp"] is False
    assert first.at == 60
    await clock.advance(3 * 3600 + 60)
    await settle_all(runtime)
    fired = [(c.payload["extra"]["callbackId"], c.at) for c in brain.of("system_event")]
    assert fired == [
        (once.id, 60),
        (hourly.id, 120),
        (hourly.id, 3720),
        (hourly.id, 7320),
        (hourly.id, 10920),
    ]
    [stored] = await runtime.store.find_callbacks("alice")
    # Re-armed at "delivered time plus interval", pending again.
    assert stored.id == hourly.id and stored.status == CallbackStatus.PENDING
    assert stored.due_at == START + timedelta(seconds=10920 + 3600)
    assert runtime.time.scheduler.due_at(("wakeup", hourly.id)) == stored.due_at.timestamp()


async def test_time_04_recurrence_is_counted_from_the_delivered_time(
    runtime: Runtime, clock: FakeClock
) -> None:
    """A late delivery (the loop was busy) re-arms from when it was delivered."""
    await runtime.add_agent("alice", Recorder(clock))
    wakeup = await runtime.time.schedule_wakeup("alice", delay_s=100, recurring_s=600)
    delivered_at = START + timedelta(seconds=130)
    await runtime.time.wakeups.sweep(delivered_at)
    [stored] = await runtime.store.find_callbacks("alice")
    assert stored.id == wakeup.id
    assert stored.due_at == delivered_at + timedelta(seconds=600)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL two runtimes can share: an SQLite file or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.db'}"
    url: str = request.getfixturevalue("fresh_pg_url")
    return url


async def test_time_04_two_runtimes_on_one_database_fire_each_wakeup_once(
    shared_url: str, clock: FakeClock
) -> None:
    from attn.store import open_store

    first = Runtime(open_store(shared_url), clock=clock, host=False)
    second = Runtime(open_store(shared_url), clock=clock, host=False)
    await first.start()
    await second.start()
    try:
        await first.add_agent("alice", Recorder(clock))
        wakeups = [
            await first.time.schedule_wakeup("alice", delay_s=60 + n, note=f"w{n}")
            for n in range(20)
        ]
        recurring = await first.time.schedule_wakeup("alice", delay_s=30, recurring_s=600)
        # The second runtime hosts the same agent and restores every wakeup on its timer.
        await second.add_agent("alice", Recorder(clock))
        assert len(second.time.scheduler) == 21
        for _ in range(3):
            await clock.advance(600)
            for rt in (first, second):
                await settle_all(rt)
        delivered = await items(first.store, "alice", "system_event")
        ids = [i.payload["extra"]["callbackId"] for i in delivered]
        assert sorted(ids.count(w.id) for w in wakeups) == [1] * 20
        assert ids.count(recurring.id) == 3  # due at 30, 630, 1230: once each
        # Fake time runs ahead while the store works, so a claim can look older than
        # its lease and be taken again (celery/kombu #337); the occurrence's
        # idempotency key still lets only one item through.
        assert first.time.wakeups.fired + second.time.wakeups.fired >= 23
    finally:
        await first.close()
        await second.close()


async def test_time_05_callbacks_and_wakeups_survive_a_restart(
    tmp_path: Path, clock: FakeClock
) -> None:
    db = tmp_path / "attn.db"
    first = Runtime(SQLiteStore(db), clock=clock)
    await first.start()
    await first.add_agent("alice", Recorder(clock))
    daily = await first.time.schedule_wakeup(
        "alice", at="2026-01-05T08:00:00Z", recurring_s=DAY_S, note="morning review"
    )
    once = await first.time.schedule_wakeup(
        "alice", delay_s=3600, note="once", delivery_mode="in_session", origin_session_id="ses-9"
    )
    build = await first.time.callbacks.register(
        "alice",
        CallbackType.BACKGROUND_EXEC,
        command="make",
        origin_session_id="ses-1",
        timeout_s=660.0,
        data={"ownTimeoutS": 600.0},
    )
    ask = await first.time.await_reply(
        "alice", "conv-3", origin_session_id="ses-2", note="asked bob"
    )
    before = await first.time.list_callbacks("alice")
    await first.close()

    second = Runtime(SQLiteStore(db), clock=clock)
    await second.start()
    brain = Recorder(clock)
    await second.add_agent("alice", brain)
    try:
        after = await second.time.list_callbacks("alice")
        assert after == before
        restored = {c.id: c for c in after}
        assert restored[daily.id].recurring_s == DAY_S
        assert restored[daily.id].due_at == START.replace(minute=0, hour=8)
        assert restored[once.id].delivery_mode == DeliveryMode.IN_SESSION
        assert restored[build.id].type == CallbackType.BACKGROUND_EXEC
        assert restored[build.id].command == "make" and restored[build.id].timeout_s == 660.0
        assert restored[ask.id].correlation_id == "conv-3"
        # Both wakeups are back on the timer and fire.
        assert second.time.scheduler.due_at(("wakeup", daily.id)) is not None
        await clock.advance(3600)
        await settle_all(second)
        kinds = [(c.source_type, c.payload["extra"]["callbackId"]) for c in brain.calls]
        assert kinds == [("system_event", daily.id), ("callback_result", once.id)]
        assert brain.calls[1].metadata["sessionId"] != "ses-9"  # not seen since the restart
        assert brain.calls[1].payload["extra"]["originSessionId"] == "ses-9"
    finally:
        await second.close()


async def _restart_after(
    tmp_path: Path, down_s: float, config: TimeConfig | None = None
) -> tuple[Runtime, Recorder, FakeClock, str]:
    """A daily 08:00 wakeup; the runtime goes down at 07:59 and comes back ``down_s`` later."""
    db = tmp_path / "attn.db"
    clock = FakeClock(START)
    first = Runtime(SQLiteStore(db), clock=clock)
    await first.start()
    await first.add_agent("alice", Recorder(clock))
    daily = await first.time.schedule_wakeup(
        "alice", at="2026-01-05T08:00:00Z", recurring_s=DAY_S, note="morning review"
    )
    await first.close()
    later = FakeClock(START + timedelta(seconds=down_s))
    second = Runtime(SQLiteStore(db), clock=later, time=config)
    await second.start()
    brain = Recorder(later)
    await second.add_agent("alice", brain)
    await settle_all(second)
    return second, brain, later, daily.id


async def test_time_06_a_wakeup_missed_while_down_fires_once_as_a_catch_up(
    tmp_path: Path,
) -> None:
    down_s = 96 * 60  # 07:59 -> 09:35
    runtime, brain, clock, daily = await _restart_after(tmp_path, down_s)
    try:
        [catch_up] = brain.of("system_event")
        extra = catch_up.payload["extra"]
        assert extra["callbackId"] == daily and extra["catchUp"] is True
        assert extra["missedFires"] == 1
        assert extra["dueAt"] == "2026-01-05T08:00:00+00:00"
        assert "catch-up" in catch_up.payload["content"]
        assert catch_up.at == 0  # at once on start, not moved to tomorrow
        [stored] = await runtime.store.find_callbacks("alice")
        assert stored.due_at == START + timedelta(seconds=down_s + DAY_S)  # 09:35 tomorrow
        await clock.advance(DAY_S - 1)
        await settle_all(runtime)
        assert len(brain.of("system_event")) == 1
        await clock.advance(1)
        await settle_all(runtime)
        assert [c.payload["extra"]["catchUp"] for c in brain.of("system_event")] == [True, False]
    finally:
        await runtime.close()


async def test_time_06_three_days_down_give_exactly_one_catch_up(tmp_path: Path) -> None:
    runtime, brain, _clock, _daily = await _restart_after(tmp_path, 3 * DAY_S + 96 * 60)
    try:
        [catch_up] = brain.of("system_event")
        assert catch_up.payload["extra"]["missedFires"] == 4  # Mon..Thu 08:00, delivered once
        assert len(await items(runtime.store, "alice", "system_event")) == 1
    finally:
        await runtime.close()


async def test_time_06_missed_wakeups_can_be_recorded_instead(tmp_path: Path) -> None:
    config = TimeConfig(catch_up=CatchUp.RECORD_MISSED)
    down_s = 3 * DAY_S + 96 * 60
    runtime, brain, _clock, daily = await _restart_after(tmp_path, down_s, config)
    try:
        assert brain.calls == []  # nothing runs
        [record] = await items(runtime.store, "alice", "system_event")
        assert record.status == ItemStatus.DROPPED
        assert record.reason is not None and record.reason.startswith("missed:")
        assert record.payload["extra"] == {
            "callbackId": daily,
            "callbackType": "wakeup",
            "missed": True,
            "missedFires": 4,
        }
        [decision] = await runtime.store.find_decisions("alice", record.id)
        assert decision.decision_type == DecisionType.DROP
        [stored] = await runtime.store.find_callbacks("alice")  # still scheduled, not lost
        assert stored.due_at == START + timedelta(seconds=down_s + DAY_S)
    finally:
        await runtime.close()


async def test_a_claim_left_by_a_dead_host_is_taken_over_on_start(
    tmp_path: Path, clock: FakeClock
) -> None:
    """The crash window between claim and delivery: the next host delivers it, once."""
    db = tmp_path / "attn.db"
    store: Store = SQLiteStore(db)
    first = Runtime(store, clock=clock)
    await first.start()
    await first.add_agent("alice", Recorder(clock))
    wakeup = await first.time.schedule_wakeup("alice", delay_s=10)
    claimed = await store.claim_due_callbacks(clock.now() + timedelta(seconds=10), "rt_dead")
    assert [c.id for c in claimed] == [wakeup.id]
    await first.close()

    clock2 = FakeClock(START + timedelta(seconds=20))
    second = Runtime(SQLiteStore(db), clock=clock2)
    await second.start()
    try:
        brain = Recorder(clock2)
        await second.add_agent("alice", brain)
        await settle_all(second)
        assert [c.payload["extra"]["callbackId"] for c in brain.of("system_event")] == [wakeup.id]
        assert await second.store.find_callbacks("alice") == []
    finally:
        await second.close()
