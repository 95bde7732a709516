"""SQLite-specific behaviour of SQLiteStore: query plans, the on-disk encoding,
group commit, failure isolation inside a batch, reads beside the writer,
write-behind, the host lock within one process, options and bad input.

Multi-process durability (CORE-10, 12, 13) is in ``test_sqlite_processes.py``.
Spec: 000 §6; DESIGN.md "Choices already made" (WAL, group commit, BEGIN IMMEDIATE).
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from attn.errors import InvalidInput, RuntimeLocked, StoreClosed, StoreError
from attn.models import ItemStatus
from attn.store import migrate
from attn.store.base import (
    InsertActivity,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    UpdateActivity,
    UpdateItem,
)
from attn.store.sqlite import SQLiteStore, queries

from .records import T0, activity, at, decision, item, log


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "attn.db"


@pytest.fixture
async def store(db: Path) -> AsyncIterator[SQLiteStore]:
    made = SQLiteStore(db)
    await made.open()
    yield made
    await made.close()


@contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """Hold the database's write lock from another connection, as another process would.

    The store's writer waits (busy timeout) in ``BEGIN IMMEDIATE`` meanwhile,
    so every write call queued inside this block is still pending at its end.
    """
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


def raw(path: Path, query: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


# -- schema, plans, encoding ----------------------------------------------------------


async def test_open_creates_the_schema_at_head_in_wal_mode(store: SQLiteStore, db: Path) -> None:
    assert migrate.sqlite_current(db) == migrate.HEAD_REVISION
    assert raw(db, "PRAGMA journal_mode") == [("wal",)]
    tables = {r[0] for r in raw(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"mailbox_items", "agent_decisions", "agent_activities", "agent_activity_logs"} <= tables


def _plan(db: Path, query: str, params: tuple[Any, ...]) -> list[str]:
    return [row[3] for row in raw(db, f"EXPLAIN QUERY PLAN {query}", *params)]


@pytest.mark.parametrize(
    ("name", "query", "params"),
    [
        ("claim", queries.CLAIM_NEXT, ("2026-01-01T00:00:00.000000+00:00", "alice", "alice")),
        ("load_queue", queries.LOAD_QUEUE, ("alice",)),
    ],
)
async def test_claim_and_queue_load_are_served_by_the_claim_index(
    store: SQLiteStore, db: Path, name: str, query: str, params: tuple[Any, ...]
) -> None:
    await store.write([InsertItem(item(priority=n % 5)) for n in range(50)])
    plan = _plan(db, query, params)
    assert any("idx_mailbox_claim" in step for step in plan), (name, plan)
    assert not any(step.startswith("SCAN mailbox_items") for step in plan), (name, plan)
    assert not any("TEMP B-TREE" in step for step in plan), (name, plan)


async def test_history_queries_use_indexes(store: SQLiteStore, db: Path) -> None:
    for query, params in [
        (queries.find_items(None, None, False), ("alice", 10, 0)),
        (queries.find_items(1, 1, True), ("alice", "queued", "human_chat", 10, 0)),
        (queries.count_items(1, None), ("alice", "queued")),
        (queries.COUNT_BY_STATUS, ("alice",)),
        (queries.FIND_DECISIONS, ("alice", 10, 0)),
        (queries.FIND_DECISIONS_BEFORE, ("alice", 50, 10, 0)),
        (queries.FIND_ITEM_DECISIONS, ("mbx_1", "alice", 50, 50, 10, 0)),
        (queries.FIND_ACTIVITY_LOGS, ("act_1",)),
        (queries.find_activities(2), ("alice", "mbx_1", "mbx_2")),
    ]:
        plan = _plan(db, query, params)
        assert not any(step.startswith("SCAN") and "INDEX" not in step for step in plan), (
            query,
            plan,
        )


async def test_values_are_stored_as_utc_iso_text_compact_json_and_0_1(
    store: SQLiteStore, db: Path
) -> None:
    cet = timezone(timedelta(hours=1))
    stored_item = item(
        queued_at=T0.astimezone(cet),
        payload={"content": "héllo ✓", "n": [1, 2.5, None]},
        redelivered=True,
        session={"a": 1},
    )
    [(stored, _)] = await store.write([InsertItem(stored_item)])
    [row] = raw(
        db,
        "SELECT queued_at, started_at, payload, metadata, redelivered, session"
        " FROM mailbox_items WHERE id = ?",
        stored.id,
    )
    assert row == (
        "2026-01-02T03:04:05.678901+00:00",
        None,
        '{"content":"héllo ✓","n":[1,2.5,null]}',
        '{"senderRole":"user","senderId":"u1"}',
        1,
        '{"a":1}',
    )
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.queued_at == T0 and loaded.queued_at.tzinfo is UTC

    whole_second = item(queued_at=datetime(2026, 1, 1, tzinfo=UTC))
    await store.write([InsertItem(whole_second)])
    assert raw(db, "SELECT queued_at FROM mailbox_items WHERE id = ?", whole_second.id) == [
        ("2026-01-01T00:00:00.000000+00:00",)
    ]


async def test_a_value_the_driver_refuses_fails_only_its_call(store: SQLiteStore) -> None:
    bad = item(payload={"content": "lone \ud800 surrogate"})
    with pytest.raises(StoreError, match="failed") as info:
        await store.write([InsertItem(item()), InsertItem(bad)])
    assert isinstance(info.value.__cause__, UnicodeEncodeError)
    assert await store.count_items(ItemQuery(agent_id="alice")) == 0


async def test_logs_of_an_unknown_activity_are_refused(store: SQLiteStore) -> None:
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        await store.write([InsertLogs((log("act_missing", 1),))])


# -- group commit ---------------------------------------------------------------------


async def test_concurrent_writes_share_one_transaction(store: SQLiteStore, db: Path) -> None:
    await store.write([InsertItem(item())])
    before = store.statistics()
    futures: list[asyncio.Future[list[Any]]] = []
    with write_locked(db):
        for round_ in range(4):
            futures += [
                store.submit([InsertItem(item(payload={"content": f"{round_}.{n}"}))])
                for n in range(16)
            ]
            await asyncio.sleep(0)  # one loop turn: this round is handed to the writer
        assert not any(f.done() for f in futures)
    results = await asyncio.gather(*futures)
    after = store.statistics()
    # The writer may have taken the first round before it met the lock; every
    # later round was queued behind it and went in one more transaction.
    assert after.write_calls - before.write_calls == 64
    assert after.transactions - before.transactions <= 2
    assert after.largest_batch >= 32  # two transactions at most hold the 64 calls
    assert after.extra["mean_batch"] > 1
    stored = [r[0][0] for r in results]
    seqs = [s.seq for s in stored]
    assert seqs == sorted(seqs) and len(set(seqs)) == 64
    assert [s.payload["content"] for s in stored] == [
        f"{r}.{n}" for r in range(4) for n in range(16)
    ]
    for each in stored:
        assert await store.get_item(each.id) == each


async def test_a_bad_call_in_a_batch_fails_alone(store: SQLiteStore, db: Path) -> None:
    [(existing, _)] = await store.write([InsertItem(item())])
    good_before, good_after = item(), item()
    with write_locked(db):
        first = store.submit([InsertItem(good_before)])
        bad = store.submit([InsertItem(item(agent="bob")), InsertItem(item(id=existing.id))])
        last = store.submit([InsertItem(good_after), UpdateItem(existing.id, {"priority": 0})])
    [(stored_before, _)] = await first
    with pytest.raises(StoreError, match="UNIQUE constraint failed") as info:
        await bad
    assert isinstance(info.value.__cause__, sqlite3.IntegrityError)
    (stored_after, _), changed = await last
    assert changed is True
    assert await store.get_item(stored_before.id) == stored_before
    assert await store.get_item(stored_after.id) == stored_after
    assert await store.agent_ids() == ["alice"]
    assert store.statistics().extra["retried_calls"] >= 2


async def test_calls_of_one_batch_see_the_earlier_calls(store: SQLiteStore, db: Path) -> None:
    a, b = item(), item(idempotency_key="k")
    act = activity(a.id)
    with write_locked(db):
        futures = [
            store.submit([InsertItem(a)]),
            store.submit([UpdateItem(a.id, {"status": ItemStatus.PROCESSING})]),
            store.submit([InsertItem(b), InsertItem(item(idempotency_key="k"))]),
            store.submit([InsertActivity(act), InsertLogs((log(act.id, 1),))]),
            store.submit([UpdateActivity(act.id, {"total_tokens": 5})]),
            store.submit([InsertDecision(decision(a.id)), InsertItem(item())]),
        ]
    results = await asyncio.gather(*futures)
    assert results[1] == [True]
    (stored_b, created_b), (again, created_again) = results[2]
    assert created_b and not created_again and again == stored_b
    assert results[4] == [True]
    loaded = await store.get_item(a.id)
    assert loaded is not None and loaded.status == ItemStatus.PROCESSING


async def test_large_batches_keep_seq_and_results_aligned(store: SQLiteStore, db: Path) -> None:
    many = [item(payload={"content": str(n)}) for n in range(200)]
    results = await store.write([InsertItem(i) for i in many])
    with write_locked(db):
        futures = [
            store.submit([InsertItem(item(payload={"content": f"c{n}"}))]) for n in range(100)
        ]
    results += [r[0] for r in await asyncio.gather(*futures)]
    seqs = [stored.seq for stored, _ in results]
    assert seqs == list(range(seqs[0], seqs[0] + 300))
    rows = dict(raw(db, "SELECT seq, payload FROM mailbox_items"))
    for stored, _ in results:
        assert rows[stored.seq] == f'{{"content":"{stored.payload["content"]}"}}'


async def test_reads_do_not_wait_for_the_writer(store: SQLiteStore, db: Path) -> None:
    [(stored, _)] = await store.write([InsertItem(item())])
    with write_locked(db):
        pending = store.submit([UpdateItem(stored.id, {"priority": 0})])
        assert await store.get_item(stored.id) == stored
        assert await store.count_items(ItemQuery(agent_id="alice")) == 1
        assert not pending.done()
    assert await pending == [True]


async def test_submitted_writes_apply_in_call_order(store: SQLiteStore) -> None:
    [(stored, _)] = await store.write([InsertItem(item())])
    futures = [store.submit([UpdateItem(stored.id, {"attempt": n})]) for n in range(1, 21)]
    assert await asyncio.gather(*futures) == [[True]] * 20
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.attempt == 20
    failed = store.submit([UpdateItem(stored.id, {"agent_id": "x"})])
    with pytest.raises(StoreError, match="cannot update"):
        await failed


@contextmanager
def _busy_loop(turns: int) -> Iterator[None]:
    """Keep the running loop busy (a callback always ready) for ``turns`` turns."""
    loop = asyncio.get_running_loop()
    left = [turns]

    def again() -> None:
        left[0] -= 1
        if left[0] > 0:
            loop.call_soon(again)

    loop.call_soon(again)
    try:
        yield
    finally:
        left[0] = 0


async def test_an_awaited_plain_insert_commits_before_waiting_write_behind_calls(
    store: SQLiteStore,
) -> None:
    [(stored, _)] = await store.write([InsertItem(item())])
    with _busy_loop(1000):
        behind = store.submit([UpdateItem(stored.id, {"attempt": 2})])
        await store.write([InsertItem(item())])
        assert not behind.done()  # still waiting for company while the loop is busy
        await store.write([UpdateItem(stored.id, {"priority": 0})])  # may not overtake
        assert behind.done()
    loaded = await store.get_item(stored.id)
    assert loaded is not None and (loaded.attempt, loaded.priority) == (2, 0)
    assert await store.count_items(ItemQuery(agent_id="alice")) == 2


async def test_close_commits_what_is_queued(db: Path) -> None:
    made = SQLiteStore(db)
    await made.open()
    futures = [made.submit([InsertItem(item())]) for _ in range(30)]
    await made.close()
    assert all(f.done() and not f.exception() for f in futures)
    with pytest.raises(StoreClosed):
        await made.submit([InsertItem(item())])
    assert raw(db, "SELECT count(*) FROM mailbox_items") == [(30,)]


async def test_writes_from_another_event_loop_are_answered_on_it(store: SQLiteStore) -> None:
    other_results: list[Any] = []

    def other_thread() -> None:
        async def writes() -> None:
            for _ in range(20):
                other_results.append(await store.write([InsertItem(item(agent="bob"))]))

        asyncio.run(writes())

    thread = threading.Thread(target=other_thread)
    thread.start()
    mine = await asyncio.gather(*(store.write([InsertItem(item())]) for _ in range(20)))
    await asyncio.to_thread(thread.join)
    assert len(other_results) == 20 and len(mine) == 20
    assert await store.count_by_status("bob") == {"queued": 20}
    assert await store.count_by_status("alice") == {"queued": 20}


# -- lifecycle, options, host lock ----------------------------------------------------


async def test_calls_before_open_are_store_errors(db: Path) -> None:
    made = SQLiteStore(db)
    with pytest.raises(StoreError, match="not open"):
        await made.write([InsertItem(item())])
    with pytest.raises(StoreError, match="not open"):
        await made.get_item("mbx_1")
    with pytest.raises(StoreError, match="not open"):
        await made.acquire_host()
    assert made.statistics().write_calls == 0
    assert not await asyncio.to_thread(db.exists)


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL", "full"])
async def test_synchronous_modes(db: Path, synchronous: str) -> None:
    made = SQLiteStore(db, synchronous=synchronous)
    await made.open()
    try:
        [(stored, _)] = await made.write([InsertItem(item())])
        assert await made.get_item(stored.id) == stored
        assert made.statistics().extra["synchronous"] == synchronous.upper()
    finally:
        await made.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"synchronous": "OFF"}, "NORMAL or FULL"),
        ({"busy_timeout_s": -1}, "busy_timeout_s"),
        ({"max_batch": 0}, "max_batch"),
    ],
)
def test_bad_options_are_invalid_input(db: Path, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        SQLiteStore(db, **kwargs)


async def test_open_reports_an_unusable_file(tmp_path: Path) -> None:
    not_a_db = tmp_path / "attn.db"
    not_a_db.write_bytes(b"this is not a database" * 100)
    made = SQLiteStore(not_a_db)
    with pytest.raises(StoreError, match=r"attn\.db"):
        await made.open()


async def test_host_lock_is_exclusive_and_released(store: SQLiteStore, db: Path) -> None:
    await store.acquire_host()
    await store.acquire_host()  # idempotent
    other = SQLiteStore(db)
    await other.open()
    try:
        with pytest.raises(RuntimeLocked, match=re.escape(str(db))):
            await other.acquire_host()
        await store.release_host()
        await store.release_host()  # idempotent
        await other.acquire_host()
        with pytest.raises(RuntimeLocked):
            await store.acquire_host()
    finally:
        await other.close()
    await store.acquire_host()  # close() released it


async def test_statistics_count_calls_and_batches(store: SQLiteStore) -> None:
    await store.write([InsertItem(item()), InsertItem(item())])
    await store.claim_next("alice", T0)
    stats = store.statistics()
    assert stats.backend == "sqlite"
    assert stats.write_calls == 2 and stats.transactions == 2
    assert stats.largest_batch == 1
    assert stats.extra["batches"] == 2 and stats.extra["mean_batch"] == 1.0
    assert stats.extra["retried_calls"] == 0


async def test_claim_sets_started_at_and_status_on_disk(store: SQLiteStore, db: Path) -> None:
    [(stored, _)] = await store.write([InsertItem(item())])
    claimed = await store.claim_next("alice", at(30))
    assert claimed is not None and claimed.id == stored.id
    assert raw(db, "SELECT status, started_at FROM mailbox_items") == [
        ("processing", "2026-01-02T03:04:35.678901+00:00")
    ]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
async def test_a_dead_writer_thread_fails_calls_instead_of_hanging(db: Path) -> None:
    def crash(cur: sqlite3.Cursor) -> None:
        raise SystemExit("simulated crash of the writer thread")

    store = SQLiteStore(db, synchronous="FULL")  # FULL: every write goes through the thread
    await store.open()
    try:
        with pytest.raises(StoreError, match="writer thread failed"):
            await store._commits.queue(store._commits.writer, [crash], None)
        with pytest.raises(StoreError, match="has stopped"):
            await store.write([InsertItem(item())])
        assert await store.count_items(ItemQuery(agent_id="alice")) == 0
    finally:
        await store.close()


async def test_normal_mode_commits_inline_and_falls_back_when_locked(
    store: SQLiteStore, db: Path
) -> None:
    await store.write([InsertItem(item())])
    assert store.statistics().extra["inline_batches"] == 1
    with write_locked(db):
        pending = asyncio.ensure_future(store.write([InsertItem(item())]))
        for _ in range(50):  # the hand-over runs within a few loop turns
            if store._commits.writer is not None and store._commits.writer.inflight:
                break
            await asyncio.sleep(0)
        # Busy inline: handed to the writer thread, which waits for the lock;
        # the event loop itself is free (we are running).
        assert store._commits.writer is not None and store._commits.writer.inflight == 1
        assert not pending.done()
    await pending
    assert store.statistics().extra["inline_batches"] == 1
    assert await store.count_items(ItemQuery(agent_id="alice")) == 2
