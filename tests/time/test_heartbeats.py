"""Heartbeats: the interval rule, live changes, no heartbeat over a waiting person, no
pile-up, no reset by self-caused items (TIME-09..12). All on the fake clock."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from attn import Focus, MailboxItem, Reply, Runtime
from attn.config import TimeConfig
from attn.core.events import HEARTBEAT_INTERVAL_CHANGED, HEARTBEAT_SKIPPED, STATE_CHANGED, Event
from attn.errors import UnknownAgent
from attn.models import ItemStatus
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock
from tests.time.timehelp import START, Recorder, heartbeat_config, items, settle_all, settle_time

HOUR_S = 3600.0


async def _runtime(clock: FakeClock, config: TimeConfig, store: Any = None) -> Runtime:
    runtime = Runtime(store, clock=clock, time=config)
    await runtime.start()
    return runtime


def _sleeper(seconds: float) -> Any:
    async def work(item: MailboxItem, focus: Focus) -> Reply:
        await focus.clock.sleep(seconds)
        return Reply(f"worked {seconds} s")

    return work


async def test_time_09_default_six_hours_and_the_clamp(clock: FakeClock) -> None:
    runtime = await _runtime(clock, TimeConfig(heartbeats=True))
    try:
        brain = Recorder(clock)
        await runtime.add_agent("alice", brain)
        info = runtime.time.heartbeat("alice")
        assert info["enabled"] is True and info["intervalS"] == 6 * HOUR_S
        assert info["nextAt"] == (START + timedelta(hours=6)).isoformat()
        cases = [
            (60, 300.0),
            (48 * HOUR_S, 86_400.0),
            ("abc", 21_600.0),
            (None, 21_600.0),
            (float("nan"), 21_600.0),
            (True, 21_600.0),
            (299.5, 300.0),
            (1800, 1800.0),
        ]
        for requested, expected in cases:
            result = await runtime.time.set_heartbeat_interval("alice", requested)
            assert result["intervalS"] == expected, requested
            assert runtime.time.heartbeat("alice")["intervalS"] == expected
        await clock.advance(HOUR_S)
        await settle_all(runtime)
        assert [c.at for c in brain.of("heartbeat")] == [1800, 3600]  # the last one applies
        with pytest.raises(UnknownAgent):
            await runtime.time.set_heartbeat_interval("nobody", 600)
    finally:
        await runtime.close()


async def test_time_09_a_new_interval_applies_at_once_persists_and_emits_an_event(
    tmp_path: Path, clock: FakeClock
) -> None:
    db = tmp_path / "attn.db"
    runtime = await _runtime(clock, TimeConfig(), SQLiteStore(db))  # heartbeats off by default
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    brain = Recorder(clock)
    await runtime.add_agent("alice", brain)
    assert runtime.time.heartbeat("alice")["enabled"] is False
    assert len(runtime.time.scheduler) == 0  # no timer for an agent without a heartbeat
    result = (
        await runtime.get_agent("alice").tools().call("set_heartbeat_interval", {"interval_s": 60})
    )
    assert result["ok"] is True and result["intervalS"] == 300.0
    [changed] = [e for e in seen if e.type == HEARTBEAT_INTERVAL_CHANGED]
    assert changed.agent_id == "alice"
    assert changed.data == {"intervalS": 300.0, "previousS": None, "requested": 60, "by": "agent"}
    assert await runtime.store.get_agent_settings("alice") == {"heartbeat_interval_s": 300.0}
    await clock.advance(300)  # applies at once: due five minutes after the change
    await settle_all(runtime)
    assert len(brain.of("heartbeat")) == 1
    await runtime.time.set_heartbeat_interval("alice", 7200)
    assert seen[-1].data["previousS"] == 300.0 and seen[-1].data["by"] == "user"
    await runtime.close()

    later = FakeClock(clock.now() + timedelta(seconds=60))
    again = await _runtime(later, TimeConfig(), SQLiteStore(db))
    try:
        brain2 = Recorder(later)
        await again.add_agent("alice", brain2)
        info = again.time.heartbeat("alice")
        assert info["enabled"] is True and info["intervalS"] == 7200.0
        # The schedule continues from the last heartbeat (300 s in), not from the restart.
        assert info["lastAt"] == (START + timedelta(seconds=300)).isoformat()
        assert info["nextAt"] == (START + timedelta(seconds=300 + 7200)).isoformat()
    finally:
        await again.close()


async def test_time_10_no_heartbeat_while_a_human_chat_is_focused(clock: FakeClock) -> None:
    runtime = await _runtime(clock, heartbeat_config(busy_retry_s=60))
    try:
        brain = Recorder(clock, {"human_chat": _sleeper(500)})  # under the 600 s backstop
        agent = await runtime.add_agent("alice", brain)
        await runtime.time.set_heartbeat_interval("alice", 300)
        await agent.enqueue(
            "human_chat",
            {"content": "help me with this"},
            metadata={"senderRole": "user", "senderId": "u1"},
        )
        for _ in range(499):
            await clock.advance(1)
            await settle_time(runtime)
            assert agent.focus_item is not None
            assert agent.focus_item.source_type == "human_chat"
        assert await items(runtime.store, "alice", "heartbeat") == []
        assert runtime.time.heartbeat("alice")["skipped"] == 4  # at 300, 360, 420, 480
        await clock.advance(41)  # the chat ended at 500; the next check (540) enqueues one
        await settle_time(runtime)
        [beat] = brain.of("heartbeat")
        assert beat.at == 540
        assert [c.source_type for c in brain.calls] == ["human_chat", "heartbeat"]
    finally:
        await runtime.close()


async def test_time_10_no_heartbeat_while_a_human_chat_is_queued(clock: FakeClock) -> None:
    runtime = await _runtime(clock, heartbeat_config())
    try:
        brain = Recorder(clock)
        agent = await runtime.add_agent("alice", brain, start=False)
        await runtime.time.set_heartbeat_interval("alice", 600)
        await agent.enqueue(
            "human_chat", {"content": "are you there?"}, metadata={"senderRole": "user"}
        )
        await clock.advance(3 * 600)
        await settle_all(runtime)
        assert agent.mailbox.queued_types() == {"human_chat": 1}
        assert runtime.time.heartbeat("alice")["skipped"] >= 3
        agent.start()
        await settle_all(runtime)
        await clock.advance(600)
        await settle_all(runtime)
        assert [c.source_type for c in brain.calls] == ["human_chat", "heartbeat"]
    finally:
        await runtime.close()


async def test_time_10_a_dequeued_heartbeat_skips_its_model_call_and_records_why(
    clock: FakeClock,
) -> None:
    runtime = await _runtime(clock, heartbeat_config())
    try:
        brain = Recorder(clock)
        agent = await runtime.add_agent("alice", brain)
        chats: list[asyncio.Task[str]] = []
        seen: list[Event] = []

        def chat_arrives_as_heartbeat_starts(event: Event) -> None:
            seen.append(event)
            focus = event.data.get("currentFocus") if event.type == STATE_CHANGED else None
            if focus and focus["sourceType"] == "heartbeat" and not chats:
                # Runs before the brain task: the chat is queued when the heartbeat starts.
                chats.append(
                    asyncio.ensure_future(
                        agent.enqueue(
                            "human_chat",
                            {"content": "quick question"},
                            metadata={"senderRole": "user"},
                        )
                    )
                )

        runtime.bus.subscribe(chat_arrives_as_heartbeat_starts)
        heartbeat_id = await agent.enqueue("heartbeat", {"content": "patrol"})
        await settle_all(runtime)
        assert [c.source_type for c in brain.calls] == ["human_chat"]  # no model call for it
        stored = await runtime.store.get_item(heartbeat_id)
        assert stored is not None and stored.status == ItemStatus.COMPLETED
        assert stored.payload["skipped"].startswith("skipped: 1 human chat(s) waiting")
        [skip] = [e for e in seen if e.type == HEARTBEAT_SKIPPED]
        assert skip.data["mailboxItemId"] == heartbeat_id
        [activity] = await runtime.store.find_activities("alice", [heartbeat_id])
        logs = await runtime.store.find_activity_logs(activity.id)
        assert any("heartbeat skipped" in entry.content for entry in logs)
    finally:
        await runtime.close()


async def test_time_11_heartbeats_never_pile_up_behind_long_work(clock: FakeClock) -> None:
    runtime = await _runtime(clock, heartbeat_config())
    try:
        brain = Recorder(clock, {"a2a_message": _sleeper(30)})
        agent = await runtime.add_agent("alice", brain)
        await runtime.time.set_heartbeat_interval("alice", 10)
        await agent.enqueue("a2a_message", {"content": "a 30 s piece of work"})
        for _ in range(29):
            await clock.advance(1)
            await settle_time(runtime)
            assert agent.mailbox.queued_types().get("heartbeat", 0) <= 1
        assert len(await items(runtime.store, "alice", "heartbeat")) == 1
        await clock.advance(1)  # t=30: the work ends, the one heartbeat runs
        await settle_time(runtime)
        assert [(c.source_type, c.at) for c in brain.calls] == [
            ("a2a_message", 0),
            ("heartbeat", 30),
        ]
        # The next is scheduled from when that one was handled.
        assert (
            runtime.time.heartbeat("alice")["nextAt"] == (START + timedelta(seconds=40)).isoformat()
        )
        await clock.advance(10)
        await settle_time(runtime)
        assert [c.at for c in brain.of("heartbeat")] == [30, 40]
    finally:
        await runtime.close()


async def test_time_11_a_processing_heartbeat_also_counts(clock: FakeClock) -> None:
    runtime = await _runtime(clock, heartbeat_config())
    try:
        brain = Recorder(clock, {"heartbeat": _sleeper(25)})
        agent = await runtime.add_agent("alice", brain)
        await runtime.time.set_heartbeat_interval("alice", 10)
        for _ in range(44):
            await clock.advance(1)
            await settle_time(runtime)
            assert agent.mailbox.queued_types().get("heartbeat", 0) == 0 or (
                agent.focus_item is None
            )
        # One heartbeat ran 10..35; none was queued behind it; the next comes at 45.
        assert [c.at for c in brain.of("heartbeat")] == [10]
        assert len(await items(runtime.store, "alice", "heartbeat")) == 1
        await clock.advance(1)
        await settle_time(runtime)
        assert [c.at for c in brain.of("heartbeat")] == [10, 45]
    finally:
        await runtime.close()


async def test_time_12_self_caused_items_never_reset_the_heartbeat_timer(
    clock: FakeClock,
) -> None:
    runtime = await _runtime(clock, TimeConfig(heartbeats=True))

    async def patrol(item: MailboxItem, focus: Focus) -> Reply:
        # Each heartbeat causes two callbacks and one self-mail.
        for delay_s in (60, 120):
            await runtime.time.schedule_wakeup("alice", delay_s=delay_s, note="follow up")
        await runtime.time.callbacks.complete(
            await runtime.time.callbacks.register("alice", runtime_type(), timeout_s=600),
            "self-started job done",
            {"exitCode": 0},
        )
        await runtime.get_agent("alice").enqueue(
            "a2a_message", {"content": "note to self"}, metadata={"senderId": "alice"}
        )
        return Reply("patrolled")

    try:
        brain = Recorder(clock, {"heartbeat": patrol})
        await runtime.add_agent("alice", brain)
        await runtime.time.set_heartbeat_interval("alice", 1800)
        for _ in range(72):
            await clock.advance(100)
            await settle_time(runtime)
        assert [c.at for c in brain.of("heartbeat")] == [1800, 3600, 5400, 7200]
        assert len(brain.of("system_event")) == 6  # the 7200 s ones are not due yet
        assert len(brain.of("callback_result")) == 4
        assert len(brain.of("a2a_message")) == 4
    finally:
        await runtime.close()


def runtime_type() -> Any:
    from attn.models import CallbackType

    return CallbackType.BACKGROUND_EXEC


async def test_one_timer_serves_every_heartbeat_of_the_runtime(clock: FakeClock) -> None:
    runtime = await _runtime(clock, TimeConfig(heartbeats=True))
    try:
        for n in range(200):
            await runtime.add_agent(f"agent-{n}", Recorder(clock))
        assert len(runtime.time.scheduler) == 200
        assert clock.pending() == 1  # one timer for the whole runtime
        await clock.advance(6 * HOUR_S)
        await settle_time(runtime)
        # It wakes once an hour at most while idle (to notice wall-clock jumps).
        assert runtime.time.scheduler.fired == 6
        assert clock.pending() == 1
        beats = [runtime.time.heartbeat(f"agent-{n}")["enqueued"] for n in range(200)]
        assert beats == [1] * 200
    finally:
        await runtime.close()
