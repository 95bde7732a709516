"""Mailbox ordering and queue primitives (acceptance CORE-01..07, CORE-60)."""

from __future__ import annotations

import asyncio

import pytest

from attn import AgentConfig, InvalidInput, InvalidPriority, ItemStatus, Runtime, UnknownItemType
from attn.core.events import NEW_ITEM, Event
from attn.core.mailbox import Mailbox
from attn.errors import ItemNotFound, MailboxFull, PayloadTooLarge, ProtectedItem, UnknownAgent
from attn.testing import FakeClock, MemoryStore

from .conftest import Recorder


async def _stopped_agent(runtime: Runtime, name: str = "a", **config: object):
    return await runtime.add_agent(name, Recorder(), AgentConfig(**config), start=False)  # type: ignore[arg-type]


async def _drain_order(mailbox: Mailbox) -> list[str]:
    order = []
    while (item := mailbox.queue.pop_nowait()) is not None:
        order.append(item.source_type if item.content == "" else item.content)
    return order


async def test_core_01_chat_before_agent_message_before_heartbeat(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    await agent.enqueue("heartbeat", {"summary": "hb"})
    await agent.enqueue("human_chat", {"content": "chat"})
    await agent.enqueue("a2a_message", {"content": "a2a"})
    assert await _drain_order(agent.mailbox) == ["chat", "a2a", "heartbeat"]


async def test_core_02_priorities_come_out_in_order(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    for p in (4, 2, 0, 1):
        await agent.enqueue("system_event", {"content": f"p{p}"}, priority=p)
    assert await _drain_order(agent.mailbox) == ["p0", "p1", "p2", "p4"]


async def test_core_03_fifo_within_priority(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    await asyncio.gather(
        *(agent.enqueue("a2a_message", {"content": str(i)}) for i in range(1, 101))
    )
    # A burst: concurrent enqueues are ordered by commit (seq), which follows call order here.
    order = await _drain_order(agent.mailbox)
    assert order == [str(i) for i in range(1, 101)]


async def test_core_04_reprioritize_and_reject_bad_priority(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    await agent.enqueue("heartbeat", {"content": "first"})
    second = await agent.enqueue("heartbeat", {"content": "second"})
    before = [(i.id, i.priority) for i in agent.mailbox.queued_items()]
    for bad in (5, -1, "high", 1.5, True):
        with pytest.raises(InvalidPriority, match=r"0 .*4"):
            await agent.mailbox.reprioritize(second, bad)
    assert [(i.id, i.priority) for i in agent.mailbox.queued_items()] == before
    await agent.mailbox.reprioritize(second, 0)
    assert agent.mailbox.queue.pop_nowait().id == second  # type: ignore[union-attr]


@pytest.mark.parametrize("armed", ["same_tick", "tick_before"])
async def test_core_05_no_lost_wakeup_when_armed_in_same_tick(runtime: Runtime, armed: str) -> None:
    """CORE-05: the enqueue lands in the tick that armed the wait (or right after)."""
    agent = await _stopped_agent(runtime)
    getter = asyncio.ensure_future(agent.mailbox.dequeue())
    if armed == "tick_before":
        await asyncio.sleep(0)  # the wait is armed; the enqueue comes one tick later
    # same_tick: the getter has not run yet; the enqueue starts in this very tick.
    item_id = await agent.enqueue("a2a_message", {"content": "x"})
    item = await asyncio.wait_for(getter, 5)
    assert item.id == item_id and item.status == ItemStatus.PROCESSING
    assert agent.mailbox.depth == 0


async def test_core_06_timeout_race_never_loses_items() -> None:
    rt = Runtime(MemoryStore())
    async with rt:
        agent = await rt.add_agent("a", Recorder(), start=False)
        mailbox = agent.mailbox
        total = 10_000
        got: list[str] = []

        async def consumer() -> None:
            while len(got) < total:
                try:
                    item = await mailbox.dequeue(timeout_s=0.0005)
                except TimeoutError:
                    continue
                got.append(item.content)

        async def producer() -> None:
            for i in range(total):
                await agent.enqueue("a2a_message", {"content": str(i)})
                if i % 7 == 0:
                    await asyncio.sleep(0.0004)

        await asyncio.wait_for(asyncio.gather(consumer(), producer()), 120)
        assert sorted(got, key=int) == [str(i) for i in range(total)]
        assert len(set(got)) == total
        assert mailbox.depth == 0


async def test_core_07_new_item_event_also_for_merges(
    runtime: Runtime, events: list[Event]
) -> None:
    """CORE-07: every enqueue emits a new-item event with the agent id and the
    resulting item, also one that merges into a queued item."""
    agent = await _stopped_agent(runtime)
    item_id = await agent.enqueue("task_comment", {"content": "c1", "taskId": "t1"})
    merged_into = await agent.enqueue("task_comment", {"content": "c2", "taskId": "t1"})
    assert merged_into == item_id and agent.depth == 1  # the second merged at enqueue
    new_items = [e for e in events if e.type == NEW_ITEM]
    assert [e.agent_id for e in new_items] == ["a", "a"]
    assert [e.data["item"]["id"] for e in new_items] == [item_id, item_id]
    assert "c2" in new_items[-1].data["item"]["payload"]["content"]  # the resulting item


async def test_core_60_bad_input_rejected_and_nothing_changes(runtime: Runtime) -> None:
    """CORE-60: unknown agent, unknown type, empty text, bad priority, oversized
    payload: each an error naming the problem; mailbox, store and events unchanged."""
    agent = await _stopped_agent(runtime, max_payload_bytes=1000)
    seen: list[Event] = []
    runtime.bus.subscribe(seen.append)
    cases = [
        (UnknownItemType, ("no_such_type", {"content": "x"}), {}),
        (InvalidInput, ("human_chat", {"content": ""}), {}),
        (InvalidInput, ("human_chat", {"content": "   "}), {}),
        (InvalidInput, ("a2a_message", {}), {}),
        (InvalidInput, ("human_chat", "not a dict"), {}),
        (InvalidInput, ("human_chat", {"content": "x"}), {"metadata": ["x"]}),
        (InvalidInput, ("human_chat", {"content": float("nan")}), {}),
        (InvalidPriority, ("heartbeat", {}), {"priority": 7}),
        (InvalidPriority, ("heartbeat", {}), {"priority": "urgent"}),
        (PayloadTooLarge, ("a2a_message", {"content": "x" * 2000}), {}),
        (InvalidInput, ("heartbeat", {}), {"idempotency_key": ""}),
    ]
    for error, args, kwargs in cases:
        with pytest.raises(error) as info:
            await agent.enqueue(*args, **kwargs)
        assert str(info.value)
    with pytest.raises(UnknownAgent, match="'nobody'"):
        await runtime.get_agent("nobody").enqueue("human_chat", {"content": "x"})
    assert agent.mailbox.depth == 0
    assert await runtime.store.count_by_status("a") == {}
    assert seen == []


async def test_unknown_type_error_names_the_type(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    with pytest.raises(UnknownItemType, match="'humanchat'"):
        await agent.enqueue("humanchat", {"content": "x"})


async def test_core_61_unknown_recipient(runtime: Runtime) -> None:
    await runtime.add_agent("Bob", Recorder())
    from attn import UnknownAgent

    for name in ("bob", "Bob ", "Bobb", "assistant", "", None):
        with pytest.raises(UnknownAgent, match="unknown recipient"):
            runtime.get_agent(name)
    assert [a.name for a in runtime.agents] == ["Bob"]
    assert await runtime.store.agent_ids() == []


async def test_max_queued_rejects_non_chat_but_accepts_chat(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime, max_queued=2)
    await agent.enqueue("system_event", {})
    await agent.enqueue("system_event", {})
    with pytest.raises(MailboxFull, match="max_queued 2"):
        await agent.enqueue("a2a_message", {"content": "x"})
    await agent.enqueue("human_chat", {"content": "people always get in"})
    assert agent.depth == 3


async def test_idempotency_key_returns_first_item(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    first = await agent.enqueue("a2a_message", {"content": "x"}, idempotency_key="k1")
    again = await agent.enqueue("a2a_message", {"content": "x"}, idempotency_key="k1")
    assert first == again and agent.depth == 1


async def test_a_retry_with_its_key_is_answered_even_when_the_mailbox_is_full(
    runtime: Runtime,
) -> None:
    agent = await _stopped_agent(runtime, max_queued=1)
    first = await agent.enqueue("a2a_message", {"content": "x"}, idempotency_key="k1")
    again = await agent.enqueue("a2a_message", {"content": "x"}, idempotency_key="k1")
    assert again == first and agent.depth == 1
    with pytest.raises(MailboxFull):
        await agent.enqueue("a2a_message", {"content": "y"}, idempotency_key="k2")
    assert agent.depth == 1


async def test_a_removed_agent_accepts_nothing(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    await runtime.remove_agent("a")
    with pytest.raises(UnknownAgent, match="no longer hosted"):
        await agent.enqueue("a2a_message", {"content": "late"})
    with pytest.raises(UnknownAgent):
        await agent.send_message("late", timeout_s=1)
    assert await runtime.store.count_by_status("a") == {}


async def test_nul_in_an_idempotency_key_is_refused(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    with pytest.raises(InvalidInput, match="without NUL"):
        await agent.enqueue("a2a_message", {"content": "x"}, idempotency_key="k\x00")
    assert agent.depth == 0


async def test_defer_until_and_resurface(runtime: Runtime, clock: FakeClock) -> None:
    brain = Recorder()
    agent = await runtime.add_agent("a", brain, start=False)
    item_id = await agent.enqueue("a2a_message", {"content": "later"})
    await agent.mailbox.defer(item_id, clock.now().replace(year=2026, month=1, day=2))
    agent.start()
    await runtime.run_until_idle()
    assert brain.calls == []
    await clock.advance(24 * 3600 + 1)
    await runtime.run_until_idle()
    assert brain.ids == [item_id]


async def test_agent_tools_cannot_touch_human_chat(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    chat = await agent.enqueue("human_chat", {"content": "hi"})
    for call in (
        agent.mailbox.drop(chat, by_agent=True),
        agent.mailbox.defer(chat, by_agent=True),
        agent.mailbox.reprioritize(chat, 3, by_agent=True),
    ):
        with pytest.raises(ProtectedItem):
            await call
    item = agent.mailbox.find(chat)
    assert item is not None and item.status == ItemStatus.QUEUED and item.priority == 0
    with pytest.raises(ItemNotFound):
        await agent.mailbox.drop("mbx_nope")


async def test_drop_status_updates_keeps_execution_triggers(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    stale = await agent.enqueue("task_status_update", {"taskId": "t1", "summary": "blocked"})
    run = await agent.enqueue("task_status_update", {"taskId": "t1", "triggerExecution": True})
    other = await agent.enqueue("task_status_update", {"taskId": "t2"})
    dropped = await agent.mailbox.drop_status_updates("t1")
    assert [i.id for i in dropped] == [stale]
    assert {i.id for i in agent.mailbox.queued_items()} == {run, other}


@pytest.mark.parametrize(
    ("payload", "kwargs"),
    [
        ({"content": "lone \ud800 surrogate"}, {}),
        ({"content": "ok", "note": "\udfff"}, {}),
        ({"content": "ok"}, {"metadata": {"senderName": "\ud83d"}}),
        ({"content": "ok"}, {"idempotency_key": "key-\ud800"}),
    ],
)
async def test_text_that_is_not_unicode_is_invalid_input(
    runtime: Runtime, payload: dict, kwargs: dict
) -> None:
    agent = await _stopped_agent(runtime)
    with pytest.raises(InvalidInput, match="surrogate"):
        await agent.enqueue("a2a_message", payload, **kwargs)
    with pytest.raises(InvalidInput, match="surrogate"):
        await agent.send_message(payload["content"] + "\ud800")
    assert agent.depth == 0 and await runtime.store.count_by_status("a") == {}


async def test_emoji_and_nul_are_fine(runtime: Runtime) -> None:
    agent = await _stopped_agent(runtime)
    await agent.enqueue("a2a_message", {"content": "snow ☃ \x00 🎉"})
    assert agent.mailbox.queue.pop_nowait().content == "snow ☃ \x00 🎉"  # type: ignore[union-attr]
