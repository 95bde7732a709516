"""Restart recovery on a real SQLite file (CORE-41 restart part, CORE-52..57)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from attn import DecisionType, EchoBrain, ItemStatus, MailboxItem, Reply, ReplyCancelled, Runtime
from attn.ids import new_id
from attn.models import Decision
from attn.store.base import InsertItem, ItemQuery
from attn.store.sqlite import SQLiteStore
from attn.testing import FakeClock

from .conftest import Recorder


def _item(
    clock: FakeClock,
    source_type: str,
    status: ItemStatus = ItemStatus.QUEUED,
    priority: int = 2,
    age_s: float = 0.0,
    **payload: object,
) -> MailboxItem:
    return MailboxItem(
        id=new_id("mbx"),
        agent_id="a",
        source_type=source_type,
        priority=priority,
        status=status,
        payload=dict(payload),
        metadata={},
        queued_at=clock.now() - timedelta(seconds=age_s),
        started_at=clock.now() if status == ItemStatus.PROCESSING else None,
    )


async def _seed(path: Path, *items: MailboxItem) -> None:
    store = SQLiteStore(path)
    await store.open()
    await store.write([InsertItem(i) for i in items])
    await store.close()


async def _restart(
    path: Path, clock: FakeClock, brain: Recorder | None = None, start: bool = False
) -> tuple[Runtime, Recorder]:
    brain = brain or Recorder()
    runtime = Runtime(SQLiteStore(path), clock=clock)
    await runtime.start()
    await runtime.add_agent("a", brain, start=start)
    return runtime, brain


async def _decisions(runtime: Runtime, item_id: str) -> list[Decision]:
    return list(reversed(await runtime.store.find_decisions("a", item_id)))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "attn.db"


async def test_core_52_queued_items_restored_in_priority_order(db: Path, clock: FakeClock) -> None:
    items = [_item(clock, "system_event", priority=p, content=f"p{p}") for p in (3, 0, 2)]
    await _seed(db, *items)
    runtime, brain = await _restart(db, clock, start=True)
    await runtime.run_until_idle()
    assert [c[1] for c in brain.calls] == ["p0", "p2", "p3"]
    await runtime.close()


async def test_core_53_stale_processing_items_follow_the_policy(db: Path, clock: FakeClock) -> None:
    requeue_types = [
        "human_chat",
        "a2a_message",
        "mention",
        "review_request",
        "session_reply",
        "callback_result",
        "system_event",
    ]
    drop_types = [
        "heartbeat",
        "daily_report",
        "memory_consolidation",
        "task_status_update",
        "requirement_update",
    ]
    stale = {
        t: _item(clock, t, ItemStatus.PROCESSING, content=f"{t} text")
        for t in requeue_types + drop_types
    }
    await _seed(db, *stale.values())
    runtime, _ = await _restart(db, clock)
    for t in requeue_types:
        item = await runtime.store.get_item(stale[t].id)
        assert item is not None and item.status == ItemStatus.QUEUED, t
        assert item.attempt == 2 and item.redelivered
        (decision,) = await _decisions(runtime, item.id)
        assert decision.decision_type == DecisionType.REQUEUE and "crash" in decision.reasoning
    for t in drop_types:
        item = await runtime.store.get_item(stale[t].id)
        assert item is not None and item.status == ItemStatus.DROPPED, t
        (decision,) = await _decisions(runtime, item.id)
        assert decision.decision_type == DecisionType.DROP and decision.reasoning
    assert (await runtime.store.count_by_status("a")).get("processing", 0) == 0
    await runtime.close()


async def test_core_53_redelivered_flag_reaches_the_brain(db: Path, clock: FakeClock) -> None:
    await _seed(db, _item(clock, "human_chat", ItemStatus.PROCESSING, content="hello"))
    seen: list[tuple[bool, int]] = []

    async def work(item: MailboxItem, focus: object) -> str:
        seen.append((focus.redelivered, focus.attempt))  # type: ignore[attr-defined]
        return "ok"

    runtime, _ = await _restart(db, clock, Recorder(work), start=True)
    await runtime.run_until_idle()
    assert seen == [(True, 2)]
    await runtime.close()


async def test_core_41_poisoned_item_does_not_return_after_restart(
    db: Path, clock: FakeClock
) -> None:
    poisoned = _item(clock, "a2a_message", ItemStatus.PROCESSING, content="poison")
    poisoned.attempt = 3
    await _seed(db, poisoned)
    runtime, brain = await _restart(db, clock, start=True)
    await runtime.run_until_idle()
    item = await runtime.store.get_item(poisoned.id)
    assert item is not None and item.status == ItemStatus.DROPPED and brain.calls == []
    await runtime.close()


async def test_core_54_completed_item_never_redelivered(db: Path, clock: FakeClock) -> None:
    """CORE-54 with clean restarts (the crash case is below)."""
    runtime, brain = await _restart(db, clock, start=True)
    item_id = await runtime.get_agent("a").enqueue("a2a_message", {"content": "once"})
    await runtime.run_until_idle()
    await runtime.close()
    for _ in range(3):
        runtime, again = await _restart(db, clock, start=True)
        await runtime.run_until_idle()
        assert again.calls == []
        await runtime.close()
    assert brain.ids == [item_id]


async def test_core_55_queued_heartbeats_collapse_to_newest(db: Path, clock: FakeClock) -> None:
    beats = [_item(clock, "heartbeat", priority=3, age_s=30 - i) for i in range(3)]
    await _seed(db, *beats)
    runtime, _ = await _restart(db, clock)
    statuses = [(await runtime.store.get_item(b.id)).status for b in beats]  # type: ignore[union-attr]
    assert statuses == [ItemStatus.DROPPED, ItemStatus.DROPPED, ItemStatus.QUEUED]
    for b in beats[:2]:
        (decision,) = await _decisions(runtime, b.id)
        assert "heartbeat" in decision.reasoning
    await runtime.close()


async def test_core_56_comments_on_one_task_merge_keeping_highest_priority(
    db: Path, clock: FakeClock
) -> None:
    first = _item(clock, "task_comment", priority=2, content="first text", taskId="T")
    second = _item(clock, "task_comment", priority=1, content="second text", taskId="T")
    other = _item(clock, "task_comment", priority=2, content="other", taskId="U")
    await _seed(db, first, second, other)
    runtime, _ = await _restart(db, clock)
    survivor = await runtime.store.get_item(first.id)
    absorbed = await runtime.store.get_item(second.id)
    assert survivor is not None and absorbed is not None
    assert survivor.status == ItemStatus.QUEUED and survivor.priority == 1
    assert "first text" in survivor.content and "second text" in survivor.content
    assert absorbed.status == ItemStatus.MERGED and absorbed.merged_into == first.id
    assert [m["content"] for m in survivor.payload["messages"]] == ["first text", "second text"]
    agent = runtime.get_agent("a")
    assert agent.mailbox.queue.pop_nowait().id == first.id  # type: ignore[union-attr]
    await runtime.close()


async def test_core_56_execution_triggers_never_merge(db: Path, clock: FakeClock) -> None:
    a = _item(clock, "task_comment", content="a", taskId="T", triggerExecution=True)
    b = _item(clock, "task_comment", content="b", taskId="T", triggerExecution=True)
    await _seed(db, a, b)
    runtime, _ = await _restart(db, clock)
    assert runtime.get_agent("a").depth == 2
    await runtime.close()


async def test_core_57_expired_items_dropped_never_chat(db: Path, clock: FakeClock) -> None:
    day = 24 * 3600
    old_a2a = _item(clock, "a2a_message", content="old", age_s=4 * day)
    fresh_a2a = _item(clock, "a2a_message", content="fresh", age_s=2 * day)
    old_status = _item(clock, "task_status_update", age_s=5 * 3600, taskId="T")
    old_callback = _item(clock, "callback_result", age_s=5 * 3600)
    old_chat = _item(clock, "human_chat", content="still here", age_s=30 * day)
    await _seed(db, old_a2a, fresh_a2a, old_status, old_callback, old_chat)
    runtime, _ = await _restart(db, clock)
    for item, status in (
        (old_a2a, ItemStatus.DROPPED),
        (fresh_a2a, ItemStatus.QUEUED),
        (old_status, ItemStatus.DROPPED),
        (old_callback, ItemStatus.DROPPED),
        (old_chat, ItemStatus.QUEUED),
    ):
        stored = await runtime.store.get_item(item.id)
        assert stored is not None and stored.status == status, item.source_type
        if status == ItemStatus.DROPPED:
            assert stored.reason == "expired"
    await runtime.close()


async def test_deferred_items_survive_restart_and_resurface(db: Path, clock: FakeClock) -> None:
    runtime, brain = await _restart(db, clock)
    agent = runtime.get_agent("a")
    item_id = await agent.enqueue("a2a_message", {"content": "later"})
    await agent.mailbox.defer(item_id, None)
    await runtime.close()
    runtime, brain = await _restart(db, clock, start=True)
    await runtime.run_until_idle()
    assert brain.ids == [item_id]
    await runtime.close()


async def test_core_51_a_waiting_caller_gets_one_answer_and_nothing_leaks_to_the_next_run(
    db: Path, clock: FakeClock
) -> None:
    """CORE-51: a caller waiting on a stopped agent gets exactly one answer (after
    start) or, when the runtime closes, an explicit cancellation; nothing from the
    old run reaches a caller of the next run on the same database."""
    runtime = Runtime(SQLiteStore(db), clock=clock)
    await runtime.start()
    agent = await runtime.add_agent("a", EchoBrain(steps=5, step_s=1))
    answered: list[Reply] = []
    kept = asyncio.ensure_future(agent.send_message("kept", session_id="s1"))
    kept.add_done_callback(lambda f: answered.append(f.result()))
    await clock.advance(1.5)
    await agent.stop()  # the chat goes back to queued; its caller keeps waiting
    assert not kept.done()
    agent.start()
    await clock.advance(10)
    await runtime.run_until_idle()
    assert [r.text for r in answered] == ["echo: kept"]  # one answer, not two

    old = asyncio.ensure_future(agent.send_message("old", session_id="s2"))
    await clock.advance(1.5)
    await runtime.close()
    with pytest.raises(ReplyCancelled):
        await old

    runtime = Runtime(SQLiteStore(db), clock=clock)
    await runtime.start()
    agent = await runtime.add_agent("a", EchoBrain(steps=1, step_s=1))
    new = asyncio.ensure_future(agent.send_message("new", session_id="s3"))
    await clock.advance(5)
    await runtime.run_until_idle()
    reply = new.result()
    assert reply.text == "echo: new" and not reply.cancelled
    by_text = {i.content: i for i in await runtime.store.find_items(ItemQuery("a", limit=10))}
    assert reply.item_id == by_text["new"].id != by_text["old"].id
    assert by_text["old"].status == ItemStatus.COMPLETED  # served in the new run, to no one
    assert [r.text for r in answered] == ["echo: kept"]
    await runtime.close()


CRASHING_RUN = r"""
import asyncio, json, os, signal, sys
from attn import Runtime
from attn.store.sqlite import SQLiteStore

async def main(path: str, enqueue: bool) -> None:
    seen = []

    async def brain(item, focus):
        seen.append(item.content)
        return "done"

    runtime = Runtime(SQLiteStore(path))
    await runtime.start()
    agent = await runtime.add_agent("a", brain)
    if enqueue:
        await agent.enqueue("a2a_message", {"content": "once"})
    await runtime.run_until_idle()
    print(json.dumps(seen), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # a crash: no close, no cleanup

asyncio.run(main(sys.argv[1], sys.argv[2] == "enqueue"))
"""


def _crashing_run(db: Path, enqueue: bool) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", CRASHING_RUN, str(db), "enqueue" if enqueue else "restart"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    seen: list[str] = json.loads(done.stdout)
    return seen


async def test_core_54_completed_before_a_crash_never_delivered_after_three_crashes(
    db: Path,
) -> None:
    """CORE-54 with real crashes: each run is its own process, killed with SIGKILL."""
    assert await asyncio.to_thread(_crashing_run, db, True) == ["once"]
    for _ in range(3):
        assert await asyncio.to_thread(_crashing_run, db, False) == []
    store = SQLiteStore(db)
    await store.open()
    try:
        (item,) = await store.find_items(ItemQuery("a"))
        assert item.status == ItemStatus.COMPLETED and item.attempt == 1
    finally:
        await store.close()
