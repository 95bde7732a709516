"""Idempotency keys on the Python API (issue 10 B1): a repeat is a duplicate, never new work.

The key names one enqueue request of one agent for as long as its item is
stored: across restarts, whatever became of the item.
"""

from __future__ import annotations

from pathlib import Path

from attn import AgentConfig, Focus, MailboxItem, Runtime
from attn.store.base import ItemQuery, UpdateItem
from attn.store.sqlite import SQLiteStore
from attn.testing import MemoryStore


async def _done(item: MailboxItem, focus: Focus) -> str:
    return "ok"


async def test_coal_07_a_repeat_answers_duplicate_with_the_first_items_state() -> None:
    async with Runtime(MemoryStore()) as rt:
        agent = await rt.add_agent("a", _done, AgentConfig(max_queued=1), start=False)
        first = await agent.enqueue_result("a2a_message", {"content": "yes"}, idempotency_key="k1")
        assert (first.duplicate, first.status) == (False, "queued")
        again = await agent.enqueue_result("a2a_message", {"content": "yes"}, idempotency_key="k1")
        assert (again.id, again.duplicate, again.status) == (first.id, True, "queued")
        # The mailbox is full now: the retry is still answered, as a duplicate.
        full = await agent.enqueue_result("a2a_message", {"content": "yes"}, idempotency_key="k1")
        assert (full.id, full.duplicate) == (first.id, True)
        agent.start()
        await rt.run_until_idle()
        done = await agent.enqueue_result("a2a_message", {"content": "yes"}, idempotency_key="k1")
        assert (done.id, done.duplicate, done.status) == (first.id, True, "completed")
        assert (
            await agent.enqueue("a2a_message", {"content": "yes"}, idempotency_key="k1") == first.id
        )
        assert len(await rt.store.find_items(ItemQuery("a"))) == 1  # nothing new stored


async def test_a_repeat_after_a_restart_says_the_first_item_was_dropped(tmp_path: Path) -> None:
    path = tmp_path / "keys.db"
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("a", _done, start=False)
        first = await agent.enqueue_result(
            "heartbeat", {"content": "patrol"}, idempotency_key="beat"
        )
        # A crash while it is processing: recovery drops heartbeats.
        await rt.store.write([UpdateItem(first.id, {"status": "processing"})])
    async with Runtime(SQLiteStore(path)) as rt:
        agent = await rt.add_agent("a", _done, start=False)
        again = await agent.enqueue_result(
            "heartbeat", {"content": "patrol"}, idempotency_key="beat"
        )
        assert (again.id, again.duplicate, again.status) == (first.id, True, "dropped")
        assert again.item.reason is not None and "crash" in again.item.reason
        assert again.to_dict() == {
            "id": first.id,
            "duplicate": True,
            "merged": False,
            "status": "dropped",
            "reason": again.item.reason,
        }
        assert agent.depth == 0  # accepted nothing that would never be processed
