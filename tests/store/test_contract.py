"""The Store contract, run on every backend (memory, SQLite, PostgreSQL).

Spec: 000 §6 (tables, lifecycle), §17 (recovery reads); DESIGN.md invariants
1 (order), 2 (durability on return), 3 (one focus), 10 (bad input changes nothing).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from attn.errors import StoreClosed, StoreError
from attn.models import DecisionType, ItemStatus, MailboxItem
from attn.store.base import (
    InsertActivity,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    Store,
    UpdateActivity,
    UpdateItem,
)

from .records import T0, activity, at, decision, item, log


async def enqueue(store: Store, *items: MailboxItem) -> list[MailboxItem]:
    results = await store.write([InsertItem(i) for i in items])
    assert all(created for _stored, created in results)
    return [stored for stored, _created in results]


async def snapshot(store: Store, agent: str = "alice") -> list[MailboxItem]:
    return await store.find_items(ItemQuery(agent_id=agent, limit=1000, oldest_first=True))


# -- items ----------------------------------------------------------------------------


async def test_store_satisfies_the_protocol(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.statistics().backend == store.backend


async def test_open_is_idempotent(store: Store) -> None:
    await store.open()
    [stored] = await enqueue(store, item())
    assert await store.get_item(stored.id) == stored


async def test_insert_assigns_increasing_seq_and_round_trips_every_field(store: Store) -> None:
    full = item(
        priority=1,
        payload={"content": "héllo ✓", "extra": {"taskId": "tsk_1", "n": [1, 2.5, None, True]}},
        metadata={"senderRole": "agent", "senderId": "bob"},
        started_at=at(1),
        completed_at=at(2),
        deferred_until=at(3),
        merged_into="mbx_other",
        attempt=3,
        redelivered=True,
        idempotency_key="key-1",
        session={"turns": [{"role": "user", "content": "x"}]},
        reason="because",
        status=ItemStatus.DEFERRED,
    )
    plain = item()
    results = await store.write([InsertItem(full), InsertItem(plain)])
    (first, created_first), (second, created_second) = results
    assert created_first and created_second
    assert 0 < first.seq < second.seq
    assert first == replace(full, seq=first.seq)
    assert second == replace(plain, seq=second.seq)

    loaded = await store.get_item(full.id)
    assert loaded == first
    assert loaded is not None and loaded.queued_at.utcoffset() is not None
    assert await store.get_item("mbx_missing") is None


async def test_returned_items_are_independent_of_the_store(store: Store) -> None:
    [stored] = await enqueue(store, item())
    stored.payload["content"] = "changed by caller"
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.payload["content"] == "hello"


async def test_nul_is_kept_in_json_and_never_fails_a_write(store: Store) -> None:
    # PostgreSQL's text cannot hold NUL: payloads keep it (JSON escapes it), and
    # free text (a reason, a label, a log entry) may hold U+FFFD instead; no write fails.
    [stored] = await enqueue(store, item(payload={"content": "a\x00b", "k\x00": 1}))
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.payload == {"content": "a\x00b", "k\x00": 1}
    act = replace(activity(item_id=stored.id), label="label \x00")
    await store.write(
        [
            UpdateItem(
                stored.id,
                {"status": ItemStatus.COMPLETED, "completed_at": at(1), "reason": "why \x00"},
            ),
            InsertActivity(act),
            InsertLogs((log(act.id, 1, content="said \x00"),)),
        ]
    )
    done = await store.get_item(stored.id)
    assert done is not None and done.status == ItemStatus.COMPLETED
    assert done.reason in ("why \x00", "why \ufffd")
    [entry] = await store.find_activity_logs(act.id)
    assert entry.content in ("said \x00", "said \ufffd")


async def test_get_item_by_key(store: Store) -> None:
    [stored] = await enqueue(store, item(idempotency_key="k-1"))
    assert await store.get_item_by_key("alice", "k-1") == stored
    assert await store.get_item_by_key("bob", "k-1") is None
    assert await store.get_item_by_key("alice", "k-2") is None


async def test_repeated_idempotency_key_returns_the_first_item(store: Store) -> None:
    first = item(idempotency_key="once", payload={"content": "first"})
    [(stored, created)] = await store.write([InsertItem(first)])
    assert created

    again = item(idempotency_key="once", payload={"content": "second"})
    [(existing, created_again)] = await store.write([InsertItem(again)])
    assert not created_again
    assert existing == stored
    assert await store.get_item(again.id) is None

    other_agent = item(agent="bob", idempotency_key="once")
    [(_, created_for_bob)] = await store.write([InsertItem(other_agent)])
    assert created_for_bob
    assert await store.count_items(ItemQuery(agent_id="alice")) == 1


async def test_items_without_keys_never_collide(store: Store) -> None:
    await enqueue(store, item(), item(), item())
    assert await store.count_items(ItemQuery(agent_id="alice")) == 3


async def test_duplicate_item_id_is_a_store_error_and_changes_nothing(store: Store) -> None:
    [stored] = await enqueue(store, item())
    newcomer = item(agent="bob")
    with pytest.raises(StoreError):
        await store.write([InsertItem(newcomer), InsertItem(item(id=stored.id))])
    assert await store.get_item(newcomer.id) is None
    assert await store.agent_ids() == ["alice"]


# -- updates --------------------------------------------------------------------------


async def test_update_item_sets_columns(store: Store) -> None:
    [stored] = await enqueue(store, item())
    [changed] = await store.write(
        [
            UpdateItem(
                stored.id,
                {
                    "status": ItemStatus.COMPLETED,
                    "completed_at": at(5),
                    "priority": 0,
                    "payload": {"content": "merged text"},
                    "metadata": {"senderId": "u2"},
                    "attempt": 2,
                    "redelivered": True,
                    "session": {"k": "v"},
                    "reason": "done",
                    "merged_into": None,
                    "deferred_until": None,
                    "started_at": at(4),
                },
            )
        ]
    )
    assert changed is True
    loaded = await store.get_item(stored.id)
    assert loaded == replace(
        stored,
        status=ItemStatus.COMPLETED,
        completed_at=at(5),
        priority=0,
        payload={"content": "merged text"},
        metadata={"senderId": "u2"},
        attempt=2,
        redelivered=True,
        session={"k": "v"},
        reason="done",
        started_at=at(4),
    )


async def test_update_of_a_missing_item_changes_nothing(store: Store) -> None:
    assert await store.write([UpdateItem("mbx_missing", {"priority": 1})]) == [False]


async def test_guarded_update_applies_only_from_the_given_statuses(store: Store) -> None:
    [stored] = await enqueue(store, item())
    refused = UpdateItem(
        stored.id, {"status": ItemStatus.COMPLETED}, only_if_status=(ItemStatus.PROCESSING,)
    )
    assert await store.write([refused]) == [False]
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.status == ItemStatus.QUEUED

    allowed = UpdateItem(
        stored.id,
        {"status": ItemStatus.DROPPED, "reason": "expired"},
        only_if_status=(ItemStatus.QUEUED, ItemStatus.DEFERRED),
    )
    assert await store.write([allowed]) == [True]
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.status == ItemStatus.DROPPED
    assert loaded.reason == "expired"


async def test_unknown_update_columns_raise_and_change_nothing(store: Store) -> None:
    [stored] = await enqueue(store, item())
    act = activity(stored.id)
    await store.write([InsertActivity(act)])
    with pytest.raises(StoreError):
        await store.write(
            [UpdateItem(stored.id, {"priority": 0}), UpdateItem(stored.id, {"agent_id": "bob"})]
        )
    with pytest.raises(StoreError):
        await store.write([UpdateActivity(act.id, {"agent_id": "bob"})])
    assert await store.get_item(stored.id) == stored
    assert await store.find_activities("alice", [stored.id]) == [act]


# -- decisions, activities, logs ------------------------------------------------------


async def test_decisions_newest_first_by_item_and_paged(store: Store) -> None:
    a, b = await enqueue(store, item(), item())
    d1 = decision(a.id, seconds=1)
    d2 = decision(b.id, seconds=2, decision_type=DecisionType.DEFER, outcome="deferred")
    d3 = decision(a.id, seconds=3, decision_type=DecisionType.PREEMPT, context={"queue": ["x"]})
    other = decision(a.id, agent="bob", seconds=4)
    await store.write([InsertDecision(d1), InsertDecision(d2)])
    await store.write([InsertDecision(d3), InsertDecision(other)])

    assert await store.find_decisions("alice") == [d3, d2, d1]
    assert await store.find_decisions("alice", item_id=a.id) == [d3, d1]
    assert await store.find_decisions("alice", limit=1, offset=1) == [d2]
    assert await store.find_decisions("alice", item_id=b.id, limit=5, offset=1) == []
    assert await store.find_decisions("carol") == []


async def test_decision_timelines_follow_commit_order_not_the_wall_clock(store: Store) -> None:
    """B6: after the wall clock jumps back an hour, later decisions sorted before earlier ones."""
    a, b = await enqueue(store, item(), item())
    before = decision(a.id, seconds=3600)
    after_jump = decision(b.id, seconds=1)  # committed later, stamped an hour earlier
    same_tx = decision(a.id, seconds=0.5)
    await store.write([InsertDecision(before)])
    await store.write([InsertDecision(after_jump), InsertDecision(same_tx)])
    assert await store.find_decisions("alice") == [same_tx, after_jump, before]
    assert await store.find_decisions("alice", item_id=a.id) == [same_tx, before]
    assert await store.find_decisions("alice", limit=1, offset=2) == [before]


async def test_activities_insert_update_and_find_by_items(store: Store) -> None:
    a, b, c = await enqueue(store, item(), item(), item())
    act_a = activity(a.id, seconds=1)
    act_b = activity(b.id, seconds=2)
    act_bob = activity(a.id, agent="bob", seconds=3)
    await store.write([InsertActivity(act_a), InsertActivity(act_b), InsertActivity(act_bob)])

    assert await store.write(
        [UpdateActivity(act_a.id, {"ended_at": at(9), "total_tokens": 120, "total_tools": 3,
                                   "success": False, "label": "answered"})]
    ) == [True]  # fmt: skip
    assert await store.write([UpdateActivity("act_missing", {"total_tokens": 1})]) == [False]

    found = await store.find_activities("alice", [a.id, b.id, c.id])
    assert sorted(found, key=lambda x: x.started_at) == [
        replace(act_a, ended_at=at(9), total_tokens=120, total_tools=3, success=False,
                label="answered"),
        act_b,
    ]  # fmt: skip
    assert await store.find_activities("alice", [c.id]) == []
    assert await store.find_activities("alice", []) == []


async def test_activity_logs_in_seq_order_per_activity(store: Store) -> None:
    [stored] = await enqueue(store, item())
    act, other = activity(stored.id), activity(stored.id, seconds=1)
    await store.write([InsertActivity(act), InsertActivity(other)])
    await store.write([InsertLogs((log(act.id, 2, "second"), log(act.id, 1, "first")))])
    await store.write([InsertLogs((log(other.id, 1),)), InsertLogs((log(act.id, 3, "third"),))])

    logs = await store.find_activity_logs(act.id)
    assert [entry.content for entry in logs] == ["first", "second", "third"]
    assert logs[0] == log(act.id, 1, "first")
    assert await store.find_activity_logs("act_missing") == []


# -- queries --------------------------------------------------------------------------


async def test_find_items_filters_pages_and_orders(store: Store) -> None:
    chat1, heartbeat, chat2, comment = await enqueue(
        store,
        item(),
        item(source_type="heartbeat", priority=3),
        item(),
        item(source_type="task_comment"),
    )
    await enqueue(store, item(agent="bob"))
    await store.write([UpdateItem(chat2.id, {"status": ItemStatus.COMPLETED})])

    def ids(items: list[MailboxItem]) -> list[str]:
        return [i.id for i in items]

    everything = ItemQuery(agent_id="alice")
    assert ids(await store.find_items(everything)) == [comment.id, chat2.id, heartbeat.id, chat1.id]
    oldest = ItemQuery(agent_id="alice", oldest_first=True)
    assert ids(await store.find_items(oldest)) == [chat1.id, heartbeat.id, chat2.id, comment.id]
    page = ItemQuery(agent_id="alice", limit=2, offset=1)
    assert ids(await store.find_items(page)) == [chat2.id, heartbeat.id]
    assert ids(await store.find_items(ItemQuery(agent_id="alice", offset=10))) == []

    queued = ItemQuery(agent_id="alice", statuses=(ItemStatus.QUEUED,))
    assert ids(await store.find_items(queued)) == [comment.id, heartbeat.id, chat1.id]
    chats = ItemQuery(agent_id="alice", source_types=("human_chat",))
    assert ids(await store.find_items(chats)) == [chat2.id, chat1.id]
    both = ItemQuery(
        agent_id="alice",
        statuses=(ItemStatus.QUEUED, ItemStatus.PROCESSING),
        source_types=("human_chat", "heartbeat"),
        oldest_first=True,
    )
    assert ids(await store.find_items(both)) == [chat1.id, heartbeat.id]
    assert await store.find_items(ItemQuery(agent_id="carol")) == []

    assert await store.count_items(everything) == 4
    assert await store.count_items(page) == 4
    assert await store.count_items(queued) == 3
    assert await store.count_items(both) == 2
    assert await store.count_items(ItemQuery(agent_id="carol")) == 0


async def test_load_queue_orders_by_priority_then_seq(store: Store) -> None:
    p4, p2a, p0, p1, p2b = await enqueue(
        store, item(priority=4), item(priority=2), item(priority=0), item(priority=1),
        item(priority=2),
    )  # fmt: skip
    done = item(priority=0)
    await enqueue(store, done, item(agent="bob", priority=0))
    await store.write([UpdateItem(done.id, {"status": ItemStatus.COMPLETED})])

    queue = await store.load_queue("alice")
    assert [i.id for i in queue] == [p0.id, p1.id, p2a.id, p2b.id, p4.id]
    assert queue[0] == p0
    assert await store.load_queue("carol") == []


async def test_claim_next_takes_the_head_and_refuses_a_second_focus(store: Store) -> None:
    low, high, high_later = await enqueue(
        store, item(priority=3), item(priority=1), item(priority=1)
    )
    claimed = await store.claim_next("alice", at(10))
    assert claimed == replace(high, status=ItemStatus.PROCESSING, started_at=at(10))
    assert await store.get_item(high.id) == claimed

    assert await store.claim_next("alice", at(11)) is None
    assert [i.id for i in await store.load_queue("alice")] == [high_later.id, low.id]

    await store.write(
        [UpdateItem(high.id, {"status": ItemStatus.COMPLETED, "completed_at": at(12)},
                    only_if_status=(ItemStatus.PROCESSING,))]
    )  # fmt: skip
    second = await store.claim_next("alice", at(13))
    assert second is not None and second.id == high_later.id


async def test_claim_next_with_nothing_queued_returns_none(store: Store) -> None:
    assert await store.claim_next("alice", at(1)) is None
    [stored] = await enqueue(store, item(agent="bob"))
    await store.write([UpdateItem(stored.id, {"status": ItemStatus.DEFERRED})])
    assert await store.claim_next("bob", at(1)) is None
    assert await store.claim_next("alice", at(1)) is None


async def test_concurrent_claims_take_one_item_each_time(store: Store) -> None:
    await enqueue(store, *(item() for _ in range(5)))
    claims = await asyncio.gather(*(store.claim_next("alice", at(1)) for _ in range(10)))
    assert len([c for c in claims if c is not None]) == 1
    assert (await store.count_by_status("alice"))["processing"] == 1


async def test_count_by_status_and_agent_ids(store: Store) -> None:
    a, _b, c = await enqueue(store, item(), item(), item())
    await enqueue(store, item(agent="carol"), item(agent="bob"))
    await store.write(
        [
            UpdateItem(a.id, {"status": ItemStatus.COMPLETED}),
            UpdateItem(c.id, {"status": ItemStatus.MERGED, "merged_into": a.id}),
        ]
    )
    assert await store.count_by_status("alice") == {"completed": 1, "merged": 1, "queued": 1}
    assert await store.count_by_status("nobody") == {}
    assert await store.agent_ids() == ["alice", "bob", "carol"]


async def test_the_timeline_counts_items_by_type(store: Store) -> None:
    await enqueue(store, item(), item(source_type="mention"), item(), item(agent="bob"))
    timeline = await store.read_timeline(ItemQuery(agent_id="alice"), 10)
    assert timeline.counts_by_type == {"human_chat": 2, "mention": 1}
    nobody = await store.read_timeline(ItemQuery(agent_id="nobody"), 10)
    assert nobody.counts_by_type == {}


# -- atomicity, concurrency, lifecycle ------------------------------------------------


async def test_a_write_with_a_bad_op_changes_nothing(store: Store) -> None:
    [kept] = await enqueue(store, item())
    newcomer = item()
    act = activity(newcomer.id)
    with pytest.raises(StoreError):
        await store.write(
            [
                InsertItem(newcomer),
                UpdateItem(kept.id, {"status": ItemStatus.COMPLETED}),
                InsertDecision(decision(newcomer.id)),
                InsertActivity(act),
                InsertLogs((log(act.id, 1),)),
                UpdateItem(kept.id, {"no_such_column": 1}),
            ]
        )
    assert await snapshot(store) == [kept]
    assert await store.find_decisions("alice") == []
    assert await store.find_activities("alice", [newcomer.id]) == []
    assert await store.find_activity_logs(act.id) == []


async def test_many_concurrent_writes_each_get_their_own_results(store: Store) -> None:
    items = [item(payload={"content": f"m{n}"}) for n in range(50)]
    results = await asyncio.gather(*(store.write([InsertItem(i)]) for i in items))
    stored = [r[0][0] for r in results]
    assert [s.id for s in stored] == [i.id for i in items]
    assert len({s.seq for s in stored}) == 50
    assert all(s.payload == i.payload for s, i in zip(stored, items, strict=True))
    assert await store.count_items(ItemQuery(agent_id="alice")) == 50
    stats = store.statistics()
    assert stats.write_calls >= 50 and stats.transactions >= 1


async def test_submitted_writes_apply_in_call_order(store: Store) -> None:
    [stored] = await enqueue(store, item())
    futures = [store.submit([UpdateItem(stored.id, {"attempt": n})]) for n in range(1, 11)]
    assert await asyncio.gather(*futures) == [[True]] * 10
    loaded = await store.get_item(stored.id)
    assert loaded is not None and loaded.attempt == 10
    with pytest.raises(StoreError):
        await store.submit([UpdateItem(stored.id, {"agent_id": "bob"})])
    assert await store.get_item(stored.id) == loaded


async def test_empty_write_returns_nothing(store: Store) -> None:
    assert await store.write([]) == []


async def test_closed_store_refuses_every_call(store: Store) -> None:
    [stored] = await enqueue(store, item())
    await store.close()
    await store.close()  # idempotent
    calls = [
        store.write([InsertItem(item())]),
        store.get_item(stored.id),
        store.find_items(ItemQuery(agent_id="alice")),
        store.count_items(ItemQuery(agent_id="alice")),
        store.load_queue("alice"),
        store.claim_next("alice", T0),
        store.find_decisions("alice"),
        store.find_activities("alice", [stored.id]),
        store.find_activity_logs("act_x"),
        store.count_by_status("alice"),
        store.agent_ids(),
        store.acquire_host(),
    ]
    for call in calls:
        with pytest.raises(StoreClosed):
            await call
    with pytest.raises(StoreClosed):
        await store.open()
