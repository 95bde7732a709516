"""PostgreSQL-specific behaviour of PostgresStore: claims racing across
connections, the host advisory lock, LISTEN/NOTIFY, atomic writes, value types.

The shared contract suite covers the common Store behaviour. Each test here
gets a schema of its own in the test database (``search_path`` set through the
URL), so it is independent of other tests and of other people's test runs.
Skips when the server is not reachable. Override the server with
``ATTN_TEST_POSTGRES_URL``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta, timezone

import asyncpg
import pytest

from attn.errors import InvalidInput, RuntimeLocked, StoreClosed, StoreError
from attn.ids import new_id
from attn.models import (
    Activity,
    ActivityLog,
    Decision,
    DecisionType,
    ItemStatus,
    LogType,
    MailboxItem,
)
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
from attn.store.postgres import PostgresStore
from attn.store.postgres.queries import CLAIM_LOCK_CLASS
from attn.testing import eventually

T0 = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)

pytestmark = pytest.mark.postgres


@pytest.fixture
async def make_store(fresh_pg_url: str) -> AsyncIterator[Callable[[], Awaitable[PostgresStore]]]:
    stores: list[PostgresStore] = []

    async def make() -> PostgresStore:
        store = PostgresStore(fresh_pg_url, min_size=1, max_size=4)
        stores.append(store)
        await store.open()
        return store

    try:
        yield make
    finally:
        for store in stores:
            await store.close()


@pytest.fixture
async def store(make_store: Callable[[], Awaitable[PostgresStore]]) -> PostgresStore:
    return await make_store()


def item(agent: str = "alice", priority: int = 2, **kw: object) -> MailboxItem:
    values: dict[str, object] = {
        "id": new_id("mbx"),
        "agent_id": agent,
        "source_type": "human_chat",
        "priority": priority,
        "status": ItemStatus.QUEUED,
        "payload": {"content": "hello"},
        "metadata": {"senderRole": "user"},
        "queued_at": T0,
    }
    values.update(kw)
    return MailboxItem(**values)  # type: ignore[arg-type]


async def enqueue(store: PostgresStore, *items: MailboxItem) -> list[MailboxItem]:
    results = await store.write([InsertItem(i) for i in items])
    return [stored for stored, _created in results]


# -- values ---------------------------------------------------------------------------


async def test_values_round_trip_with_native_types(
    store: PostgresStore, pg_admin: asyncpg.Connection, pg_schema: str
) -> None:
    cet = timezone(timedelta(hours=1))
    original = item(
        payload={"content": "héllo ✓", "extra": {"taskId": "tsk_1", "n": [1, 2.5, None]}},
        queued_at=T0.astimezone(cet),
        deferred_until=T0 + timedelta(hours=1),
        redelivered=True,
        attempt=2,
        idempotency_key="k-1",
        session={"turns": [{"role": "user", "content": "x"}]},
        reason="why",
    )
    [stored] = await enqueue(store, original)
    assert stored.seq > 0

    loaded = await store.get_item(original.id)
    assert loaded is not None
    assert loaded == stored
    assert loaded.queued_at == T0 and loaded.queued_at.tzinfo is UTC
    assert loaded.deferred_until is not None and loaded.deferred_until.utcoffset() == timedelta(0)

    row = await pg_admin.fetchrow(
        f"SELECT payload, redelivered, pg_typeof(redelivered)::text AS booltype,"
        f' pg_typeof(queued_at)::text AS ts FROM "{pg_schema}".mailbox_items WHERE id = $1',
        original.id,
    )
    assert row is not None
    assert row["payload"] == '{"content":"héllo ✓","extra":{"taskId":"tsk_1","n":[1,2.5,null]}}'
    assert row["redelivered"] is True and row["booltype"] == "boolean"
    assert row["ts"] == "timestamp with time zone"


async def test_a_lone_surrogate_is_refused_before_anything_is_written(
    store: PostgresStore,
) -> None:
    # The contract suite (test_checks_contract.py) covers the rules; this is the
    # driver's own refusal, raised while encoding, before a connection is taken.
    bad = item(payload={"content": "lone \ud800 surrogate"})
    with pytest.raises(StoreError, match="surrogates not allowed"):
        await store.write([InsertItem(item()), InsertItem(bad)])
    assert await store.count_items(ItemQuery(agent_id="alice")) == 0


async def test_a_failing_op_rolls_back_the_whole_write(store: PostgresStore) -> None:
    [first] = await enqueue(store, item())
    duplicate_id = item(id=first.id)
    fresh = item(agent="bob")
    done = Decision("dec_1", "alice", DecisionType.PICK, first.id, "r", T0)
    with pytest.raises(StoreError, match="write of 4 op") as info:
        await store.write(
            [
                InsertItem(fresh),
                UpdateItem(first.id, {"status": ItemStatus.COMPLETED}),
                InsertDecision(done),
                InsertItem(duplicate_id),
            ]
        )
    assert isinstance(info.value.__cause__, asyncpg.UniqueViolationError)
    assert await store.get_item(fresh.id) is None
    unchanged = await store.get_item(first.id)
    assert unchanged is not None and unchanged.status == ItemStatus.QUEUED
    assert await store.find_decisions("alice") == []
    assert await store.agent_ids() == ["alice"]


async def test_updates_report_whether_a_row_changed(store: PostgresStore) -> None:
    [stored] = await enqueue(store, item())
    guarded = (ItemStatus.PROCESSING,)
    results = await store.write(
        [
            UpdateItem(stored.id, {"status": ItemStatus.DROPPED}, only_if_status=guarded),
            UpdateItem("mbx_missing", {"priority": 0}),
            UpdateItem(stored.id, {}),
            UpdateItem(stored.id, {"priority": 0, "session": None, "metadata": {"a": 1}}),
        ]
    )
    assert results == [False, False, True, True]
    loaded = await store.get_item(stored.id)
    assert loaded is not None
    assert (loaded.status, loaded.priority, loaded.metadata) == (ItemStatus.QUEUED, 0, {"a": 1})


async def test_activities_decisions_and_logs(store: PostgresStore) -> None:
    [stored] = await enqueue(store, item())
    activity = Activity("act_1", "alice", stored.id, "chat", "Reply", T0)
    logs = tuple(ActivityLog("act_1", n, LogType.TEXT, f"line {n}", T0, {"n": n}) for n in (2, 1))
    later = Decision("dec_2", "alice", DecisionType.DEFER, stored.id, "later", T0, {"q": 1})
    first = Decision("dec_1", "alice", DecisionType.PICK, stored.id, "first", T0 - timedelta(1))
    results = await store.write(
        [
            InsertActivity(activity),
            InsertLogs(logs),
            InsertLogs(()),
            InsertDecision(first),
            InsertDecision(later),
            UpdateActivity("act_1", {"ended_at": T0, "total_tokens": 7, "success": False}),
            UpdateActivity("act_missing", {"label": "x"}),
        ]
    )
    assert results == [None, None, None, None, None, True, False]
    [loaded] = await store.find_activities("alice", [stored.id])
    assert (loaded.ended_at, loaded.total_tokens, loaded.success) == (T0, 7, False)
    assert [log.seq for log in await store.find_activity_logs("act_1")] == [1, 2]
    assert await store.find_decisions("alice") == [later, first]
    assert await store.find_decisions("alice", stored.id, limit=1, offset=1) == [first]
    assert await store.find_activities("alice", []) == []


async def test_submit_commits_in_call_order_and_close_waits_for_it(
    make_store: Callable[[], Awaitable[PostgresStore]],
) -> None:
    store = await make_store()
    items = [item(priority=n % 3) for n in range(20)]
    futures = [store.submit([InsertItem(i)]) for i in items]
    bad = store.submit([InsertItem(item(queued_at=datetime(2026, 1, 1)))])
    assert bad.done()
    with pytest.raises(StoreError, match="timezone-aware"):
        await bad
    await store.close()
    assert all(f.done() for f in futures)
    seqs = [f.result()[0][0].seq for f in futures]
    assert seqs == sorted(seqs)
    with pytest.raises(StoreClosed):
        await store.submit([InsertItem(item())])
    reader = await make_store()
    assert [i.id for i in await reader.find_items(ItemQuery("alice", oldest_first=True))] == [
        i.id for i in items
    ]


async def test_submitted_writes_share_a_transaction_and_fail_alone(store: PostgresStore) -> None:
    [existing] = await enqueue(store, item())
    good_before, good_after = item(agent="bob"), item(agent="carol")
    faulty = [
        UpdateItem(existing.id, {"priority": 0}),
        InsertItem(item(agent="dave")),
        InsertItem(item(id=existing.id)),  # duplicate id: refused by the database
    ]
    futures = [
        store.submit([InsertItem(good_before)]),
        store.submit(faulty),
        store.submit([InsertItem(good_after)]),
    ]
    await asyncio.wait(futures)
    assert futures[0].result()[0][1] is True
    assert futures[2].result()[0][1] is True
    error = futures[1].exception()
    assert isinstance(error, StoreError)
    assert isinstance(error.__cause__, asyncpg.UniqueViolationError)
    assert store.statistics().extra["group_commit_splits"] == 1
    assert await store.agent_ids() == ["alice", "bob", "carol"]
    unchanged = await store.get_item(existing.id)
    assert unchanged is not None and unchanged.priority == existing.priority

    together = [store.submit([InsertItem(item(agent=f"eve{n}"))]) for n in range(5)]
    await asyncio.gather(*together)
    assert store.statistics().largest_batch == 5


# -- idempotency --------------------------------------------------------------------


async def test_idempotency_key_returns_the_existing_item(store: PostgresStore) -> None:
    first = item(idempotency_key="once")
    again = item(idempotency_key="once", payload={"content": "other"})
    other_agent = item(agent="bob", idempotency_key="once")
    results = await store.write([InsertItem(first), InsertItem(again), InsertItem(other_agent)])
    (a, created_a), (b, created_b), (_, created_c) = results
    assert (created_a, created_b, created_c) == (True, False, True)
    assert b == a and b.payload == {"content": "hello"}
    [(c, created)] = await store.write([InsertItem(again)])
    assert not created and c == a
    assert await store.count_items(ItemQuery(agent_id="alice")) == 1


async def test_concurrent_inserts_with_one_key_create_one_item(
    make_store: Callable[[], Awaitable[PostgresStore]],
) -> None:
    one, two = await make_store(), await make_store()
    for round_ in range(20):
        key = f"k{round_}"
        a, b = await asyncio.gather(
            one.write([InsertItem(item(idempotency_key=key))]),
            two.write([InsertItem(item(idempotency_key=key))]),
        )
        [(item_a, created_a)], [(item_b, created_b)] = a, b
        assert created_a != created_b
        assert item_a.id == item_b.id and item_a.seq == item_b.seq
    assert await one.count_items(ItemQuery(agent_id="alice")) == 20


# -- claims ---------------------------------------------------------------------------


async def test_claim_order_and_one_focus(store: PostgresStore) -> None:
    low, urgent, urgent2 = await enqueue(
        store, item(priority=3), item(priority=0), item(priority=0)
    )
    claimed = await store.claim_next("alice", T0)
    assert claimed is not None and claimed.id == urgent.id
    assert claimed.status == ItemStatus.PROCESSING and claimed.started_at == T0
    assert await store.claim_next("alice", T0) is None
    assert [i.id for i in await store.load_queue("alice")] == [urgent2.id, low.id]
    await store.write([UpdateItem(urgent.id, {"status": ItemStatus.COMPLETED})])
    nxt = await store.claim_next("alice", T0)
    assert nxt is not None and nxt.id == urgent2.id
    assert await store.claim_next("nobody", T0) is None


async def _blocked_on_claim_lock(admin: asyncpg.Connection, agent: str) -> bool:
    waiting = await admin.fetchval(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
        " AND classid = $1::bigint::oid AND objid = (hashtext($2)::bigint & 4294967295)::oid",
        CLAIM_LOCK_CLASS,
        agent,
    )
    return bool(waiting)


async def test_claim_sees_a_claim_committed_while_it_waited(
    store: PostgresStore, fresh_pg_url: str, pg_admin: asyncpg.Connection
) -> None:
    """The race a one-statement claim loses: its snapshot predates the other commit."""
    agent = f"racer-{uuid.uuid4().hex[:8]}"
    first, _second = await enqueue(store, item(agent=agent), item(agent=agent))
    other = await asyncpg.connect(fresh_pg_url)
    try:
        # Another worker is mid-claim: it holds the agent's lock and has taken the head.
        tx = other.transaction()
        await tx.start()
        await other.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", CLAIM_LOCK_CLASS, agent
        )
        await other.execute(
            "UPDATE mailbox_items SET status = 'processing' WHERE id = $1", first.id
        )
        claim = asyncio.create_task(store.claim_next(agent, T0), name="blocked-claim")
        await eventually(
            lambda: _blocked_on_claim_lock(pg_admin, agent), what="claim waits on the lock"
        )
        await tx.commit()
        assert await claim is None
    finally:
        await other.close()
    counts = await store.count_by_status(agent)
    assert counts == {"processing": 1, "queued": 1}


async def test_two_claimers_never_hold_two_items_of_one_agent(
    make_store: Callable[[], Awaitable[PostgresStore]],
) -> None:
    """Two workers with their own pools claim and complete one agent's items concurrently."""
    workers = [await make_store(), await make_store()]
    agents = ["a1", "a2"]
    total = 60
    for agent in agents:
        await enqueue(workers[0], *(item(agent=agent, priority=n % 3) for n in range(total)))
    holding: dict[str, str | None] = dict.fromkeys(agents)
    claimed: list[str] = []
    overlaps: list[tuple[str, str, str]] = []

    async def work(store: PostgresStore, agent: str) -> None:
        idle_rounds = 0
        while idle_rounds < 50:
            got = await store.claim_next(agent, T0)
            if got is None:
                idle_rounds += 1
                if not await store.count_items(
                    ItemQuery(agent_id=agent, statuses=(ItemStatus.QUEUED, ItemStatus.PROCESSING))
                ):
                    return
                await asyncio.sleep(0)
                continue
            idle_rounds = 0
            if holding[agent] is not None:
                overlaps.append((agent, holding[agent] or "", got.id))
            holding[agent] = got.id
            claimed.append(got.id)
            await asyncio.sleep(0)
            holding[agent] = None  # cleared before the completion can commit
            done = UpdateItem(
                got.id, {"status": ItemStatus.COMPLETED}, only_if_status=(ItemStatus.PROCESSING,)
            )
            assert await store.write([done]) == [True]

    async with asyncio.TaskGroup() as tg:
        for n, store in enumerate(workers):
            for agent in agents:
                tg.create_task(work(store, agent), name=f"worker-{n}-{agent}")
    assert overlaps == []
    assert len(claimed) == len(set(claimed)) == total * len(agents)
    for agent in agents:
        assert await workers[1].count_by_status(agent) == {"completed": total}


# -- host lock --------------------------------------------------------------------------


async def test_host_lock_is_exclusive_per_database(
    make_store: Callable[[], Awaitable[PostgresStore]], pg_schema: str
) -> None:
    one, two = await make_store(), await make_store()
    await one.acquire_host()
    await one.acquire_host()  # already held: a no-op
    assert one.statistics().extra["host_locked"] is True
    with pytest.raises(RuntimeLocked, match=rf"database 'test' \(schema '{pg_schema}'\).*pid \d+"):
        await two.acquire_host()
    assert two.statistics().extra["host_locked"] is False
    await one.release_host()
    await one.release_host()
    await two.acquire_host()
    with pytest.raises(RuntimeLocked):
        await one.acquire_host()
    await two.close()  # closing releases it
    await one.acquire_host()


# -- LISTEN / NOTIFY -----------------------------------------------------------------------
# The channel is database-wide, so other test runs may notify too: each test
# names its agents with a tag and keeps only those notifications.


def tagged_queue() -> tuple[str, asyncio.Queue[str], Callable[[str], None]]:
    tag = f"-{uuid.uuid4().hex[:8]}"
    woken: asyncio.Queue[str] = asyncio.Queue()

    def on_wake(agent_id: str) -> None:
        if agent_id.endswith(tag):
            woken.put_nowait(agent_id.removesuffix(tag))

    return tag, woken, on_wake


async def test_inserts_wake_listeners_in_other_stores(
    make_store: Callable[[], Awaitable[PostgresStore]],
) -> None:
    listener, writer = await make_store(), await make_store()
    tag, woken, on_wake = tagged_queue()
    unsubscribe = await listener.listen(on_wake)
    assert listener.statistics().extra["listening"] is True

    [queued] = await enqueue(writer, item(agent="nora" + tag, idempotency_key="n1"))
    async with asyncio.timeout(10):
        assert await woken.get() == "nora"

    # Writes that insert nothing, repeats of a key and rolled-back writes send
    # nothing: the next notification to arrive is the one after them.
    await writer.write([UpdateItem(queued.id, {"priority": 0})])
    await writer.write([InsertItem(item(agent="nora" + tag, idempotency_key="n1"))])
    with pytest.raises(StoreError):
        await writer.write([InsertItem(item(agent="zed" + tag)), InsertItem(item(id=queued.id))])
    await writer.write([InsertItem(item(agent="omar" + tag)), InsertItem(item(agent="omar" + tag))])
    async with asyncio.timeout(10):
        assert await woken.get() == "omar"
    await unsubscribe()
    await unsubscribe()
    assert listener.statistics().extra["listening"] is False
    assert woken.empty()


async def test_a_failing_callback_does_not_stop_the_others(store: PostgresStore) -> None:
    tag, woken, on_wake = tagged_queue()

    def broken(agent_id: str) -> None:
        raise RuntimeError("callback bug")

    unsubscribe_broken = await store.listen(broken)
    unsubscribe = await store.listen(on_wake)
    await enqueue(store, item(agent="ann" + tag))
    async with asyncio.timeout(10):
        assert await woken.get() == "ann"
    await unsubscribe_broken()
    assert store.statistics().extra["listening"] is True
    await unsubscribe()


async def test_listen_reconnects_after_the_connection_drops(
    store: PostgresStore, pg_admin: asyncpg.Connection
) -> None:
    tag, woken, on_wake = tagged_queue()
    unsubscribe = await store.listen(on_wake)
    conn = store._listener._conn  # the LISTEN connection, to kill it from outside
    assert conn is not None
    assert await pg_admin.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())

    async def reconnected() -> bool:
        return store.statistics().extra["listen_reconnects"] == 1

    await eventually(reconnected, what="the listener reconnected")
    await enqueue(store, item(agent="back" + tag))
    async with asyncio.timeout(10):
        assert await woken.get() == "back"
    await unsubscribe()


# -- lifecycle -------------------------------------------------------------------------------


async def test_open_migrates_an_empty_schema_and_close_is_final(
    fresh_pg_url: str, pg_admin: asyncpg.Connection, pg_schema: str
) -> None:
    store = PostgresStore(fresh_pg_url)
    with pytest.raises(StoreError, match="not open"):
        await store.get_item("x")
    await store.open()
    await store.open()
    revision = await pg_admin.fetchval(f'SELECT version_num FROM "{pg_schema}".alembic_version')
    assert revision == migrate.HEAD_REVISION
    await store.close()
    await store.close()
    with pytest.raises(StoreClosed):
        await store.write([InsertItem(item())])
    with pytest.raises(StoreClosed):
        await store.open()


async def test_unreachable_server_is_a_store_error() -> None:
    store = PostgresStore("postgresql://postgres@127.0.0.1:1/test")
    with pytest.raises(StoreError, match=r"127\.0\.0\.1:1") as info:
        await store.open()
    assert info.value.__cause__ is not None
    await store.close()


def test_bad_arguments_are_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="postgresql://"):
        PostgresStore("sqlite:///attn.db")
    with pytest.raises(InvalidInput, match="min_size"):
        PostgresStore("postgresql://h/db", min_size=5, max_size=2)
    assert PostgresStore("postgresql://u:secret@h/db").url == "postgresql://u:***@h/db"
