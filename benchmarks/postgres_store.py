"""Throughput of PostgresStore on a real server.

Measures, in a throwaway schema of the given database:

* sequential ``write([InsertItem])`` calls on a one-connection pool (calls/s);
* sequential claim + complete cycles (``claim_next`` then ``write([UpdateItem])``);
* ``submit`` (write-behind) of N single-item writes at once, group-committed;
* concurrent ``write`` calls from 32 tasks on a 10-connection pool.

Usage: ``.venv/bin/python benchmarks/postgres_store.py [URL] [N]``
(default ``postgresql://postgres@127.0.0.1:5432/test``, N = 2000).
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from datetime import UTC, datetime

import asyncpg

from attn.ids import new_id
from attn.models import ItemStatus, MailboxItem
from attn.store.base import InsertItem, UpdateItem
from attn.store.postgres import PostgresStore


def _item(agent: str) -> MailboxItem:
    return MailboxItem(
        id=new_id("mbx"),
        agent_id=agent,
        source_type="human_chat",
        priority=2,
        status=ItemStatus.QUEUED,
        payload={"content": "benchmark message " * 4},
        metadata={"senderId": "bench", "senderRole": "user"},
        queued_at=datetime.now(UTC),
    )


async def _rate(label: str, n: int, start: float) -> None:
    elapsed = time.perf_counter() - start
    print(f"{label:<48} {n / elapsed:10,.0f} /s  ({n} in {elapsed:.2f} s)")


async def main(base: str, n: int) -> None:
    schema = f"attn_bench_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(base)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in base else "?"
    url = f"{base}{sep}options=-c%20search_path%3D{schema}"
    try:
        one = PostgresStore(url, min_size=1, max_size=1)
        await one.open()
        try:
            for _ in range(200):  # warm up: statement cache, buffers
                await one.write([InsertItem(_item("warm"))])

            start = time.perf_counter()
            for _ in range(n):
                await one.write([InsertItem(_item("solo"))])
            await _rate("write([InsertItem]) on 1 connection", n, start)

            start = time.perf_counter()
            for _ in range(n):
                got = await one.claim_next("solo", datetime.now(UTC))
                assert got is not None
                await one.write(
                    [
                        UpdateItem(
                            got.id, {"status": ItemStatus.COMPLETED, "completed_at": got.started_at}
                        )
                    ]
                )
            await _rate("claim_next + complete cycles on 1 connection", n, start)

            start = time.perf_counter()
            futures = [one.submit([InsertItem(_item(f"agent-{k % 8}"))]) for k in range(n)]
            await asyncio.gather(*futures)
            await _rate("submit([InsertItem]) write-behind, group commit", n, start)
            print(f"{'  largest group commit':<48} {one.statistics().largest_batch:10}")
        finally:
            await one.close()

        pool = PostgresStore(url, min_size=10, max_size=10)
        await pool.open()
        try:
            tasks, per_task = 32, max(1, n // 32)

            async def writer(k: int) -> None:
                for _ in range(per_task):
                    await pool.write([InsertItem(_item(f"agent-{k % 8}"))])

            start = time.perf_counter()
            async with asyncio.TaskGroup() as tg:
                for k in range(tasks):
                    tg.create_task(writer(k), name=f"bench-writer-{k}")
            await _rate("write([InsertItem]), 32 tasks on 10 connections", tasks * per_task, start)
        finally:
            await pool.close()
    finally:
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "postgresql://postgres@127.0.0.1:5432/test"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    asyncio.run(main(url, count))
