"""Throughput of SQLiteStore against raw sqlite3 INSERT+COMMIT, chunk by chunk.

Each round runs a chunk of each contender back to back on fresh files of one
temporary folder, so machine noise (this VM's thread wake-ups cost 20-100 µs
depending on the moment) hits them alike; ratios are medians of per-round ratios.

* raw: one ``INSERT`` + ``COMMIT`` per item on a plain sqlite3 connection,
  JSON and ISO encoding included, same table and indexes;
* single: one awaited ``store.write([InsertItem])`` at a time;
* 64 producers: 64 tasks awaiting ``store.write([InsertItem])`` in a loop.

Usage: ``.venv/bin/python benchmarks/sqlite_store.py [ROUNDS]`` (default 8).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from attn.models import ItemStatus, MailboxItem
from attn.store import migrate
from attn.store.base import InsertItem
from attn.store.sqlite import SQLiteStore, queries

_ids = itertools.count()


def _item() -> MailboxItem:
    return MailboxItem(
        id=f"mbx_{next(_ids)}",
        agent_id="a",
        source_type="human_chat",
        priority=2,
        status=ItemStatus.QUEUED,
        payload={"content": "hello there"},
        metadata={"senderId": "u"},
        queued_at=datetime.now(UTC),
    )


def _raw(conn: sqlite3.Connection, items: list[MailboxItem]) -> float:
    start = time.perf_counter()
    for it in items:
        conn.execute(
            queries.INSERT_ITEM,
            (it.id, it.agent_id, it.source_type, it.priority, it.status.value,
             json.dumps(it.payload), json.dumps(it.metadata), it.queued_at.isoformat(),
             None, None, None, None, 1, 0, None, None, None),
        )  # fmt: skip
        conn.commit()
    return len(items) / (time.perf_counter() - start)


async def _single(store: SQLiteStore, items: list[MailboxItem]) -> float:
    start = time.perf_counter()
    for it in items:
        await store.write([InsertItem(it)])
    return len(items) / (time.perf_counter() - start)


async def _producers(store: SQLiteStore, items: list[MailboxItem], k: int = 64) -> float:
    per = len(items) // k

    async def produce(j: int) -> None:
        for it in items[j * per : (j + 1) * per]:
            await store.write([InsertItem(it)])

    start = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for j in range(k):
            group.create_task(produce(j))
    return per * k / (time.perf_counter() - start)


async def measure(folder: Path, synchronous: str, rounds: int, chunk: int) -> str:
    raw_db = folder / f"raw-{synchronous}.db"
    migrate.upgrade_sqlite(raw_db)
    conn = sqlite3.connect(raw_db)
    conn.execute(f"PRAGMA synchronous={synchronous}")
    store = SQLiteStore(folder / f"store-{synchronous}.db", synchronous=synchronous)
    await store.open()
    raws: list[float] = []
    singles: list[float] = []
    many: list[float] = []
    for _ in range(rounds):
        raws.append(_raw(conn, [_item() for _ in range(chunk)]))
        singles.append(await _single(store, [_item() for _ in range(chunk)]))
        many.append(await _producers(store, [_item() for _ in range(chunk * 4)]))
    await store.close()
    conn.close()
    med = statistics.median
    return (
        f"{synchronous:6}: raw {med(raws):8,.0f}/s | single awaited {med(singles):8,.0f}/s"
        f" = {med([a / b for a, b in zip(singles, raws, strict=True)]):.2f}x"
        f" | 64 producers {med(many):8,.0f}/s"
        f" = {med([a / b for a, b in zip(many, raws, strict=True)]):.2f}x"
    )


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    with tempfile.TemporaryDirectory(prefix="attn-sqlite-bench-") as tmp:
        print(asyncio.run(measure(Path(tmp), "NORMAL", rounds, 1000)), flush=True)
        print(asyncio.run(measure(Path(tmp), "FULL", rounds, 200)), flush=True)


if __name__ == "__main__":
    main()
