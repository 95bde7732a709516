"""On PostgreSQL an agent's items become visible in ``seq`` order (MCP-05).

``seq`` comes from a sequence when the row is inserted, and a transaction can
commit after another that took a larger ``seq`` later. A catch-up read that
went on from the larger one would then never see the smaller one. Here a
transaction that inserted an item is held open (it waits for a row another
connection locked) while a second write inserts an item of the same agent:
the second write must wait, so that a reader in between sees neither item
rather than only the later one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from attn.store.base import InsertItem, ItemQuery, UpdateItem
from attn.store.postgres import PostgresStore
from attn.testing import eventually

from .records import item

pytestmark = pytest.mark.postgres


@pytest.fixture
async def pg(fresh_pg_url: str) -> AsyncIterator[PostgresStore]:
    store = PostgresStore(fresh_pg_url, min_size=1, max_size=4)
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def _blocked_by(conn: Any, pid: int) -> list[int]:
    """The backends waiting for a lock that backend ``pid`` holds."""
    rows = await conn.fetch(
        "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))", pid
    )
    return [row["pid"] for row in rows]


async def test_mcp_05_an_item_is_never_visible_before_a_smaller_seq_of_its_agent(
    pg: PostgresStore, fresh_pg_url: str
) -> None:
    [(held, _)] = await pg.write([InsertItem(item("bob"))])
    first, second = item(), item()
    other_agent = item("carol")
    locker = await asyncpg.connect(fresh_pg_url)
    watcher = await asyncpg.connect(fresh_pg_url)
    try:
        lock = locker.transaction()
        await lock.start()
        await locker.execute("SELECT 1 FROM mailbox_items WHERE id = $1 FOR UPDATE", held.id)
        # Takes a seq for ``first``, then waits for bob's row: uncommitted meanwhile.
        slow = asyncio.create_task(
            pg.write([InsertItem(first), UpdateItem(held.id, {"priority": 1})]), name="slow"
        )
        (slow_pid,) = await eventually(
            lambda: _blocked_by(watcher, locker.get_server_pid()), what="the slow write waits"
        )
        fast = asyncio.create_task(pg.write([InsertItem(second)]), name="fast")

        async def waits_or_done() -> bool:
            return fast.done() or bool(await _blocked_by(watcher, slow_pid))

        await eventually(waits_or_done, what="the second write of alice waits or commits")
        assert not fast.done(), "alice's later item committed while an earlier seq was pending"
        # Another agent's items do not wait for alice's.
        await pg.write([InsertItem(other_agent)])
        seen = await pg.find_items(ItemQuery("alice", oldest_first=True, after_seq=0))
        assert seen == []
        await lock.rollback()
        await slow
        [(stored_second, _)] = await fast
    finally:
        await locker.close()
        await watcher.close()
    after = await pg.find_items(ItemQuery("alice", oldest_first=True, after_seq=0))
    assert [i.id for i in after] == [first.id, second.id]
    assert after[1].seq == stored_second.seq


async def test_mcp_05_writes_for_several_agents_in_any_order_do_not_deadlock(
    pg: PostgresStore,
) -> None:
    # Each write locks its agents in one order, whatever order its items come in.
    agents = ["a", "b", "c", "d"]

    async def write(k: int) -> None:
        order = agents[k % 4 :] + agents[: k % 4]
        if k % 2:
            order.reverse()
        for _ in range(5):
            await pg.write([InsertItem(item(a)) for a in order])

    async with asyncio.TaskGroup() as tg:
        for k in range(8):
            tg.create_task(write(k), name=f"writer-{k}")
    for agent in agents:
        assert await pg.count_items(ItemQuery(agent)) == 40
