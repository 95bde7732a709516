"""Agent views: timeline, decisions, activity logs, statistics (000 §5)."""

from __future__ import annotations

import asyncio

import pytest

from attn import EchoBrain, InvalidInput, Runtime
from attn.errors import ActivityNotFound, ReplyTimeout
from attn.testing import FakeClock


async def test_activity_logs_belong_to_their_agent(runtime: Runtime) -> None:
    alice = await runtime.add_agent("alice", EchoBrain())
    bob = await runtime.add_agent("bob", EchoBrain())
    await alice.send_message("hi")
    (item,) = (await alice.mailbox_timeline())["history"]
    activity_id = item["activity"]["id"]
    assert [e["type"] for e in await alice.activity_logs(activity_id)] == ["status", "text"]
    for wrong in (activity_id, "act_missing", "x" * 10_000):
        with pytest.raises(ActivityNotFound) as info:
            await bob.activity_logs(wrong)
        assert len(str(info.value)) < 200


async def test_history_lists_queued_items_only_in_queued(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", EchoBrain())
    await agent.send_message("done")
    await agent.stop()
    await agent.enqueue("a2a_message", {"content": "waiting"})
    page = await agent.mailbox_timeline()
    assert [i["summary"] for i in page["queued"]] == ["waiting"]
    assert [i["status"] for i in page["history"]] == ["completed"]
    queued_only = await agent.mailbox_timeline(statuses=["queued"])
    assert [i["summary"] for i in queued_only["history"]] == ["waiting"]


@pytest.mark.parametrize(
    ("limit", "offset"), [(0, 0), (1001, 0), (10, -1), (10, 2**63), (True, 0), (10, "3")]
)
async def test_paging_bounds(runtime: Runtime, limit: object, offset: object) -> None:
    agent = await runtime.add_agent("a", EchoBrain())
    with pytest.raises(InvalidInput):
        await agent.mailbox_timeline(limit=limit, offset=offset)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        await agent.decisions(limit=limit, offset=offset)  # type: ignore[arg-type]


async def test_reply_timeout_names_the_item_that_stays(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", EchoBrain(), start=False)
    waiting = asyncio.ensure_future(agent.send_message("anyone?", timeout_s=30))
    clock = runtime.clock
    assert isinstance(clock, FakeClock)
    await clock.advance(29)
    assert not waiting.done()
    await clock.advance(2)
    with pytest.raises(ReplyTimeout) as info:
        await waiting
    assert info.value.item_id is not None and info.value.item_id in str(info.value)
    assert [i.id for i in agent.mailbox.queued_items()] == [info.value.item_id]


async def test_statistics_keys_are_camel_case(runtime: Runtime) -> None:
    agent = await runtime.add_agent("a", EchoBrain())
    await agent.send_message("hi")
    stats = agent.statistics()
    assert stats["completed"] == 1 and "waitingGetters" in stats
    assert all("_" not in key for key in stats)
