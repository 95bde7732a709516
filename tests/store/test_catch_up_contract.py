"""Catch-up reads by mailbox sequence (``ItemQuery.after_seq``) on every backend (MCP-05).

A client that reconnects reads on from the last ``seq`` it saw, oldest first:
it gets every later item once, in ``seq`` order, also while writers commit
meanwhile from several connections (SQLite: two stores on one file;
PostgreSQL: two pools). Bad cursors are refused and change nothing.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from attn.errors import InvalidInput
from attn.models import ItemStatus, MailboxItem
from attn.store.base import InsertItem, ItemQuery, Store, UpdateItem

from .records import item

COMPLETED = ItemStatus.COMPLETED


async def _insert(store: Store, n: int, agent: str = "alice", **values: Any) -> list[MailboxItem]:
    stored = []
    for _ in range(n):
        [(made, _created)] = await store.write([InsertItem(item(agent, **values))])
        stored.append(made)
    return stored


async def _catch_up(store: Store, after: int, limit: int = 3, **filters: Any) -> list[MailboxItem]:
    """Every item after ``after``, page by page from the cursor, oldest first."""
    found: list[MailboxItem] = []
    while page := await store.find_items(
        ItemQuery("alice", limit=limit, oldest_first=True, after_seq=after, **filters)
    ):
        found += page
        after = page[-1].seq
    return found


async def test_mcp_05_after_seq_pages_oldest_first_from_a_cursor(store: Store) -> None:
    written = await _insert(store, 7)
    await _insert(store, 2, agent="bob")
    seqs = [i.seq for i in written]
    first = await store.find_items(ItemQuery("alice", limit=3, oldest_first=True, after_seq=0))
    assert [i.seq for i in first] == seqs[:3]
    later = await _insert(store, 2)  # arrive between the pages
    rest = await _catch_up(store, first[-1].seq)
    assert [i.id for i in rest] == [i.id for i in written[3:] + later]
    # From the middle, and from past the end.
    assert [i.seq for i in await _catch_up(store, seqs[4], limit=100)] == [
        *seqs[5:],
        *(i.seq for i in later),
    ]
    assert await _catch_up(store, later[-1].seq) == []
    assert await store.find_items(ItemQuery("alice", oldest_first=True, after_seq=2**63 - 1)) == []
    # The count ignores the cursor: it is the size of the whole listing.
    assert await store.count_items(ItemQuery("alice", after_seq=seqs[4])) == 9


async def test_mcp_05_after_seq_newest_first_keeps_the_items_above_the_cursor(
    store: Store,
) -> None:
    seqs = [i.seq for i in await _insert(store, 8)]
    newest = await store.find_items(ItemQuery("alice", limit=3, after_seq=seqs[2]))
    assert [i.seq for i in newest] == seqs[:2:-1][:3]
    above = await store.find_items(ItemQuery("alice", limit=100, after_seq=seqs[2]))
    assert [i.seq for i in above] == seqs[:2:-1]
    # Both cursors: the window between them, either way round.
    window = ItemQuery("alice", after_seq=seqs[1], before_seq=seqs[5])
    assert [i.seq for i in await store.find_items(window)] == [seqs[4], seqs[3], seqs[2]]
    oldest = ItemQuery("alice", oldest_first=True, after_seq=seqs[1], before_seq=seqs[5], limit=2)
    assert [i.seq for i in await store.find_items(oldest)] == [seqs[2], seqs[3]]
    empty = ItemQuery("alice", after_seq=seqs[5], before_seq=seqs[5])
    assert await store.find_items(empty) == []
    # The one-snapshot read pages the same way.
    snap = await store.read_timeline(ItemQuery("alice", oldest_first=True, after_seq=seqs[5]), 0)
    assert [i.seq for i in snap.history] == seqs[6:]
    assert snap.total == 8


async def test_mcp_05_after_seq_combines_with_status_and_type_filters(store: Store) -> None:
    chats = await _insert(store, 3)
    messages = await _insert(store, 3, source_type="agent_message")
    done = await _insert(store, 2, status=COMPLETED)
    done_messages = await _insert(store, 2, source_type="agent_message", status=COMPLETED)
    await _insert(store, 2, agent="bob", source_type="agent_message")
    cursor = chats[1].seq
    queued = {"statuses": (ItemStatus.QUEUED,)}
    assert [i.id for i in await _catch_up(store, cursor, **queued)] == [
        i.id for i in [chats[2], *messages]
    ]
    typed = {"source_types": ("agent_message",)}
    assert [i.id for i in await _catch_up(store, cursor, limit=2, **typed)] == [
        i.id for i in messages + done_messages
    ]
    both = {"statuses": (COMPLETED,), "source_types": ("agent_message", "human_chat")}
    assert [i.id for i in await _catch_up(store, messages[0].seq, **both)] == [
        i.id for i in done + done_messages
    ]
    none = await store.find_items(ItemQuery("alice", source_types=(), after_seq=0))
    assert none == []
    # A filter applies when read: an item completed below the cursor is not read again.
    await store.write([UpdateItem(chats[2].id, {"status": COMPLETED})])
    assert [i.id for i in await _catch_up(store, done[-1].seq, statuses=(COMPLETED,))] == [
        i.id for i in done_messages
    ]


BAD_CURSORS: list[tuple[str, Any]] = [
    ("after_seq", True),
    ("after_seq", False),
    ("after_seq", -1),
    ("after_seq", 2**63),
    ("after_seq", "5"),
    ("after_seq", 5.0),
    ("before_seq", True),
    ("before_seq", 2**63),
    ("before_seq", -(2**63) - 1),
    ("before_seq", "5"),
]


@pytest.mark.parametrize(
    ("field", "value"), BAD_CURSORS, ids=[f"{f}={v!r}" for f, v in BAD_CURSORS]
)
async def test_mcp_05_a_bad_cursor_is_refused_and_changes_nothing(
    store: Store, field: str, value: Any
) -> None:
    written = await _insert(store, 3)
    bad = ItemQuery("alice", oldest_first=True, **{field: value})
    reads: list[Callable[[], Any]] = [
        lambda: store.find_items(bad),
        lambda: store.count_items(bad),
        lambda: store.read_timeline(bad, 5),
    ]
    for read in reads:
        with pytest.raises(InvalidInput, match=field):
            await read()
    assert [i.id for i in await _catch_up(store, 0)] == [i.id for i in written]
    assert await store.count_items(ItemQuery("alice")) == 3
    assert [i.id for i in await store.load_queue("alice")] == [i.id for i in written]


async def test_mcp_05_the_largest_cursors_are_accepted(store: Store) -> None:
    (only,) = await _insert(store, 1)
    top = 2**63 - 1
    assert await store.find_items(ItemQuery("alice", after_seq=top)) == []
    assert await store.find_items(ItemQuery("alice", before_seq=top, after_seq=0)) == [only]
    assert await store.find_items(ItemQuery("alice", before_seq=-(2**63))) == []


WRITERS = 6
WRITES_EACH = 15


async def test_mcp_05_catch_up_reads_see_every_item_once_in_seq_order_under_concurrent_writers(
    make_store: Callable[[], Store],
) -> None:
    # Two stores on one database, as two processes would be (memory: one store).
    stores = [make_store(), make_store()]
    for opened in stores:
        await opened.open()
    try:
        await _race(stores)
    finally:
        for opened in stores:
            await opened.close()


async def _race(stores: list[Store]) -> None:
    written: list[str] = []
    writing = True

    async def writer(k: int) -> None:
        store = stores[k % len(stores)]
        for n in range(WRITES_EACH):
            made = [item(), item()] if n % 3 == 0 else [item()]
            ops = [InsertItem(m) for m in made]
            if n % 3 == 1:
                await store.submit(ops)  # write-behind: group-committed
            else:
                await store.write(ops)
            written.extend(m.id for m in made)
            await asyncio.sleep(0)  # let the other writers and the reader interleave

    seen: list[MailboxItem] = []
    cursor = 0

    async def read_once() -> list[MailboxItem]:
        nonlocal cursor
        store = stores[len(seen) % len(stores)]
        page = await store.find_items(
            ItemQuery("alice", limit=4, oldest_first=True, after_seq=cursor)
        )
        if page:
            cursor = page[-1].seq
        seen.extend(page)
        return page

    async def reader() -> None:
        while writing:
            await read_once()
            await asyncio.sleep(0)
        while await read_once():  # every writer has returned: drain what is left
            pass

    async with asyncio.TaskGroup() as writers_and_reader:
        read = writers_and_reader.create_task(reader(), name="catch-up-reader")
        async with asyncio.TaskGroup() as writers:
            for k in range(WRITERS):
                writers.create_task(writer(k), name=f"catch-up-writer-{k}")
        writing = False
        await read
    ids = [i.id for i in seen]
    assert len(ids) == len(set(ids)), "an item was read twice"
    assert set(ids) == set(written), "an item was missed"
    assert all(a.seq < b.seq for a, b in itertools.pairwise(seen)), "out of seq order"
    assert len(written) == WRITERS * (WRITES_EACH + (WRITES_EACH + 2) // 3)
