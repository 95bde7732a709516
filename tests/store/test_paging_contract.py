"""Paging by key and the one-snapshot timeline read, on every backend (issue 10 C2, C7).

A key cursor (``before_seq``, ``before``, ``after_seq``) continues after the last
entry of a page, so pages never repeat an entry when others arrive meanwhile;
:meth:`Store.read_timeline` answers queue, page, counts, decisions and
activities from one snapshot.
"""

from __future__ import annotations

import pytest

from attn.errors import InvalidInput
from attn.models import ItemStatus
from attn.store.base import (
    InsertActivity,
    InsertDecision,
    InsertItem,
    InsertLogs,
    ItemQuery,
    Store,
    UpdateItem,
)

from .records import activity, at, decision, item, log


async def _insert(store: Store, n: int, **values: object) -> list[str]:
    ids = []
    for _ in range(n):
        made = item(**values)  # type: ignore[arg-type]
        await store.write([InsertItem(made)])
        ids.append(made.id)
    return ids


async def test_c2_items_page_by_seq_without_repeats_while_new_items_arrive(
    store: Store,
) -> None:
    await _insert(store, 5, status=ItemStatus.COMPLETED)
    first = await store.find_items(ItemQuery("alice", limit=2))
    await _insert(store, 3, status=ItemStatus.COMPLETED)  # arrive between the pages
    rest = await store.find_items(ItemQuery("alice", limit=10, before_seq=first[-1].seq))
    seen = [i.id for i in first + rest]
    assert len(seen) == len(set(seen)) == 5
    assert [i.seq for i in first + rest] == sorted((i.seq for i in first + rest), reverse=True)
    # The count ignores the cursor: it is the size of the whole listing.
    assert await store.count_items(ItemQuery("alice", before_seq=first[-1].seq)) == 8


async def test_c2_decisions_page_by_commit_order(store: Store) -> None:
    (target,) = await _insert(store, 1)
    # The wall clock jumps back in the middle: pages follow the commit order (B6).
    made = [decision(target, seconds=s) for s in (5, 6, 1, 2, 3)]
    for d in made:
        await store.write([InsertDecision(d)])
    newest = await store.find_decisions("alice", limit=2)
    assert [d.id for d in newest] == [made[4].id, made[3].id]
    assert all(d.seq is not None for d in newest)
    await store.write([InsertDecision(decision(target, seconds=9))])  # arrives meanwhile
    last = newest[-1]
    assert last.seq is not None
    older = await store.find_decisions("alice", limit=10, before=last.seq)
    assert [d.id for d in older] == [made[2].id, made[1].id, made[0].id]
    only = await store.find_decisions("alice", target, limit=1, before=last.seq)
    assert [d.id for d in only] == [older[0].id]
    assert await store.find_decisions("bob", before=last.seq) == []


async def test_c2_activity_logs_page_after_a_seq(store: Store) -> None:
    (target,) = await _insert(store, 1)
    act = activity(target)
    await store.write([InsertActivity(act), InsertLogs(tuple(log(act.id, n) for n in range(1, 8)))])
    page = await store.find_activity_logs(act.id, None, 3)
    assert [e.seq for e in page] == [1, 2, 3]
    assert [e.seq for e in await store.find_activity_logs(act.id, 3, 3)] == [4, 5, 6]
    assert [e.seq for e in await store.find_activity_logs(act.id, 6)] == [7]
    assert [e.seq for e in await store.find_activity_logs(act.id)] == list(range(1, 8))


async def test_c7_read_timeline_answers_every_part_from_one_state(store: Store) -> None:
    queued = await _insert(store, 3)
    done = await _insert(store, 4, status=ItemStatus.COMPLETED)
    act = activity(done[-1])
    await store.write(
        [
            InsertDecision(decision(done[-1], seconds=1)),
            InsertDecision(decision(done[-1], seconds=2)),
            InsertDecision(decision(done[0], seconds=3)),
            InsertActivity(act),
        ]
    )
    history = (ItemStatus.PROCESSING, ItemStatus.COMPLETED)
    snap = await store.read_timeline(ItemQuery("alice", statuses=history, limit=2), 2)
    assert [i.id for i in snap.queued] == queued[:2]  # claim order, capped
    assert [i.id for i in snap.history] == [done[3], done[2]]
    assert snap.total == 4
    assert snap.counts_by_status == {"queued": 3, "completed": 4}
    assert snap.counts_by_type == {"human_chat": 7}
    assert [d.created_at for d in snap.decisions] == [at(1), at(2)]  # only the page's, oldest first
    assert [a.id for a in snap.activities] == [act.id]
    # Claiming an item moves it from the queue to the history in the same read.
    await store.write([UpdateItem(queued[0], {"status": ItemStatus.PROCESSING})])
    snap = await store.read_timeline(ItemQuery("alice", statuses=history, limit=10), 10)
    assert queued[0] not in [i.id for i in snap.queued]
    assert queued[0] in [i.id for i in snap.history]
    nxt = await store.read_timeline(
        ItemQuery("alice", statuses=history, limit=10, before_seq=snap.history[2].seq), 0
    )
    assert [i.id for i in nxt.history] == [i.id for i in snap.history[3:]]
    assert nxt.queued == [] and nxt.total == 5


async def test_read_timeline_refuses_negative_bounds_and_empty_type_sets(store: Store) -> None:
    await _insert(store, 2)
    with pytest.raises(InvalidInput):
        await store.read_timeline(ItemQuery("alice"), -1)
    with pytest.raises(InvalidInput):
        await store.read_timeline(ItemQuery("alice", limit=-1), 5)
    none = await store.read_timeline(ItemQuery("alice", source_types=()), 5)
    assert none.history == [] and none.total == 0 and len(none.queued) == 2
