"""The Store contract for channels, their messages, deliveries and delegations, on every backend.

Putting a channel (a replace keeps when and by whom it was made), finding
channels, appending messages (one ``seq`` over all channels, idempotent per
sender and key, refused on an unknown channel), paging a channel's history and
a conversation, delivery receipts and the undelivered list, delegations, bad
input refused with nothing changed, and history kept across a restart: same
records, same order, on memory, SQLite and PostgreSQL.

Spec: 000 §11.1 (DM channels, history), §11.2 (agent_delegate_task),
§25.2–25.3; acceptance A2A-06 (delivery outcomes stored with the message),
A2A-08 (history paged by before/limit, order and senders kept across restarts).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from attn.errors import InvalidInput, StoreError
from attn.ids import new_id
from attn.models import (
    MAX_CHANNEL_MEMBERS,
    MAX_CHANNEL_NAME_CHARS,
    MAX_CHANNEL_TEXT_CHARS,
    Channel,
    ChannelKind,
    ChannelMessage,
    Delegation,
    DelegationStatus,
    Delivery,
    DeliveryOutcome,
    MessageKind,
    SenderKind,
)
from attn.store import open_store
from attn.store.base import (
    InsertChannelMessage,
    PutChannel,
    PutDelegation,
    SetDeliveries,
    Store,
)
from attn.store.memory import MemoryStore
from attn.store.sqlite import SQLiteStore

from .records import T0, at

DM = "dm:a2a:alice:bob"
TEAM = "group:core"


def channel(key: str = DM, members: tuple[str, ...] = ("alice", "bob"), **values: Any) -> Channel:
    """A channel made at ``T0`` (keywords override fields)."""
    kind = ChannelKind.DM if key.startswith("dm:") else ChannelKind.TEAM
    fields: dict[str, Any] = {
        "key": key,
        "kind": kind,
        "name": key,
        "members": members,
        "created_at": T0,
    }
    fields.update(values)
    return Channel(**fields)


def message(
    text: str = "hi", key: str = DM, sender: str = "alice", **values: Any
) -> ChannelMessage:
    """A message by ``sender`` on ``key`` at ``T0``, one pending delivery to bob."""
    fields: dict[str, Any] = {
        "id": new_id("chm"),
        "channel_key": key,
        "sender_id": sender,
        "sender_kind": SenderKind.AGENT,
        "text": text,
        "conversation_id": "conv_1",
        "created_at": T0,
        "deliveries": (Delivery("bob", DeliveryOutcome.PENDING),),
    }
    fields.update(values)
    return ChannelMessage(**fields)


def delegation(**values: Any) -> Delegation:
    """Alice's open delegation to bob on the DM channel (keywords override fields)."""
    fields: dict[str, Any] = {
        "id": new_id("dlg"),
        "delegator": "alice",
        "delegate": "bob",
        "goal": "summarise the report",
        "channel_key": DM,
        "conversation_id": "conv_1",
        "message_id": "chm_1",
        "created_at": T0,
    }
    fields.update(values)
    return Delegation(**fields)


async def post(store: Store, *messages: ChannelMessage) -> list[ChannelMessage]:
    """Insert ``messages`` in one write; the stored ones (each must be new)."""
    results = await store.write([InsertChannelMessage(m) for m in messages])
    assert all(created for _, created in results)
    return [stored for stored, _ in results]


async def history(store: Store, key: str = DM) -> list[ChannelMessage]:
    return await store.find_channel_messages(key, limit=500)


@pytest.fixture
async def with_channels(store: Store) -> Store:
    """The store with the DM channel of alice and bob and the team channel of three."""
    await store.write([PutChannel(channel()), PutChannel(channel(TEAM, ("alice", "bob", "carol")))])
    return store


# -- channels -------------------------------------------------------------------------


async def test_a_channel_round_trips_and_a_replace_keeps_its_creation(store: Store) -> None:
    made = channel("group:custom:c1", ("alice", "bob"), kind=ChannelKind.CUSTOM,
                   name="Plans ☕", created_by="alice")  # fmt: skip
    assert await store.write([PutChannel(made)]) == [made]
    assert await store.get_channel(made.key) == made
    again = replace(made, name="Plans, renamed", members=("alice", "bob", "dora"),
                    created_at=at(60), created_by="dora", kind=ChannelKind.TEAM)  # fmt: skip
    expected = replace(made, name="Plans, renamed", members=("alice", "bob", "dora"))
    assert await store.write([PutChannel(again)]) == [expected]
    assert await store.get_channel(made.key) == expected
    assert await store.get_channel("group:custom:none") is None


async def test_channels_are_found_by_member_and_kind_in_key_order(store: Store) -> None:
    custom = channel("group:custom:z", ("bob", "dora"), kind=ChannelKind.CUSTOM)
    team = channel(TEAM, ("alice", "bob", "carol"))
    dm = channel()
    await store.write([PutChannel(custom), PutChannel(team), PutChannel(dm)])
    assert await store.find_channels() == [dm, team, custom]
    assert await store.find_channels("alice") == [dm, team]
    assert await store.find_channels("dora") == [custom]
    assert await store.find_channels("ali") == []  # a whole member id, never a part
    assert await store.find_channels("bob", ["team", "custom"]) == [team, custom]
    assert await store.find_channels(kinds=[ChannelKind.DM]) == [dm]
    assert await store.find_channels(kinds=[]) == []


# -- messages -------------------------------------------------------------------------


async def test_messages_round_trip_with_one_seq_over_all_channels(with_channels: Store) -> None:
    store = with_channels
    receipts = (Delivery("carol", DeliveryOutcome.QUEUED, "busy", "mbx_1"),
                Delivery("bob", DeliveryOutcome.REFUSED, "mailbox full"))  # fmt: skip
    full = message("Straße ☕ — 你好", key=TEAM, sender="ui", sender_kind=SenderKind.PERSON,
                   mentions=("carol", "bob"), reply_to="chm_0", expects_reply=True,
                   kind=MessageKind.DELEGATION, idempotency_key="send-1", callback_id="cb_1",
                   deliveries=receipts)  # fmt: skip
    first, second, third = await post(store, message("one"), full, message("three"))
    assert second == replace(full, seq=second.seq)
    assert first.seq < second.seq < third.seq
    assert await store.get_channel_message(full.id) == second
    assert await store.get_channel_message("chm_none") is None
    [fourth] = await post(store, message("four", key=TEAM))
    assert fourth.seq > third.seq
    assert await history(store) == [first, third]
    assert await history(store, TEAM) == [second, fourth]


async def test_a_repeated_send_with_the_same_key_stores_nothing(with_channels: Store) -> None:
    store = with_channels
    [first] = await post(store, message("once", idempotency_key="k1"))
    again = message("twice", idempotency_key="k1", key=TEAM)
    assert await store.write([InsertChannelMessage(again)]) == [(first, False)]
    # Another sender's key is its own; a repeat inside one write answers the first too.
    mine, theirs, repeat = await store.write([
        InsertChannelMessage(message("bob's", sender="bob", idempotency_key="k1")),
        InsertChannelMessage(message("new", idempotency_key="k2")),
        InsertChannelMessage(message("new again", idempotency_key="k2")),
    ])  # fmt: skip
    assert mine[1] and theirs[1] and repeat == (theirs[0], False)
    assert [m.text for m in await history(store)] == ["once", "bob's", "new"]
    assert await history(store, TEAM) == []


async def test_a_message_on_an_unknown_channel_is_refused_and_nothing_is_written(
    with_channels: Store,
) -> None:
    store = with_channels
    with pytest.raises(StoreError, match="'group:nowhere' is not stored"):
        await store.write([
            InsertChannelMessage(message("kept?")),
            PutChannel(channel("group:other", ("alice",))),
            InsertChannelMessage(message("lost", key="group:nowhere")),
        ])  # fmt: skip
    assert await history(store) == []
    assert await store.get_channel("group:other") is None
    # A channel put earlier in the same write is there for its messages.
    new = channel("group:other", ("alice",))
    put, (stored, created) = await store.write(
        [PutChannel(new), InsertChannelMessage(message("first", key=new.key))]
    )
    assert put == new and created and await history(store, new.key) == [stored]


async def test_a_repeated_message_id_is_refused(with_channels: Store) -> None:
    store = with_channels
    [first] = await post(store, message("one", id="chm_1"))
    with pytest.raises(StoreError):
        await store.write([InsertChannelMessage(message("two", id="chm_1", key=TEAM))])
    with pytest.raises(StoreError):
        await store.write(
            [
                InsertChannelMessage(message("a", id="chm_2")),
                InsertChannelMessage(message("b", id="chm_2")),
            ]
        )
    assert await history(store) == [first] and await history(store, TEAM) == []


async def test_history_pages_back_by_before_seq_oldest_first(with_channels: Store) -> None:
    store = with_channels
    stored: list[ChannelMessage] = []
    for n in range(8):
        conversation = "conv_even" if n % 2 == 0 else "conv_odd"
        mine, _ = await post(
            store, message(f"dm {n}", conversation_id=conversation), message(f"team {n}", key=TEAM)
        )
        stored.append(mine)
    pages: list[list[ChannelMessage]] = []
    before: int | None = None
    while page := await store.find_channel_messages(DM, before_seq=before, limit=3):
        pages.append(page)
        before = page[0].seq
    assert [[m.text for m in p] for p in pages] == [
        ["dm 5", "dm 6", "dm 7"], ["dm 2", "dm 3", "dm 4"], ["dm 0", "dm 1"]
    ]  # fmt: skip
    assert [m for p in reversed(pages) for m in p] == stored
    even = await store.find_channel_messages(DM, limit=2, conversation_id="conv_even")
    assert [m.text for m in even] == ["dm 4", "dm 6"]
    older = await store.find_channel_messages(
        DM, before_seq=even[0].seq, limit=50, conversation_id="conv_even"
    )
    assert [m.text for m in older] == ["dm 0", "dm 2"]
    assert await store.find_channel_messages(DM, conversation_id="conv_none") == []
    assert await store.find_channel_messages("group:none") == []
    assert await store.find_channel_messages(DM, before_seq=stored[0].seq) == []


async def test_a_conversation_is_paged_across_channels(with_channels: Store) -> None:
    store = with_channels
    ask, other, answer, later = await post(
        store,
        message("ask", conversation_id="conv_x"),
        message("noise", conversation_id="conv_y"),
        message("answer", key=TEAM, sender="bob", conversation_id="conv_x"),
        message("later", conversation_id="conv_x"),
    )
    assert await store.find_conversation("conv_x") == [ask, answer, later]
    assert await store.find_conversation("conv_x", limit=2) == [answer, later]
    assert await store.find_conversation("conv_x", before_seq=answer.seq) == [ask]
    assert await store.find_conversation("conv_y") == [other]
    assert await store.find_conversation("conv_none") == []


# -- deliveries -----------------------------------------------------------------------


async def test_deliveries_are_replaced_and_pending_ones_are_listed(with_channels: Store) -> None:
    store = with_channels
    done = (Delivery("bob", DeliveryOutcome.STARTED, item_id="mbx_1"),)
    first, delivered, third = await post(
        store, message("one"), message("two", deliveries=done), message("three")
    )
    assert await store.find_undelivered_messages() == [first, third]
    assert await store.find_undelivered_messages(limit=1) == [first]
    receipts = (Delivery("bob", DeliveryOutcome.QUEUED, "busy", "mbx_2"),
                Delivery("carol", DeliveryOutcome.LOGGED))  # fmt: skip
    assert await store.write([SetDeliveries(first.id, receipts)]) == [True]
    assert await store.get_channel_message(first.id) == replace(first, deliveries=receipts)
    assert await store.find_undelivered_messages() == [third]
    assert await store.write([SetDeliveries("chm_none", receipts)]) == [False]
    pending = (Delivery("bob", DeliveryOutcome.PENDING),)
    assert await store.write([SetDeliveries(delivered.id, pending)]) == [True]
    assert [m.id for m in await store.find_undelivered_messages()] == [delivered.id, third.id]
    assert await store.write([SetDeliveries(third.id, ())]) == [True]
    assert [m.id for m in await store.find_undelivered_messages()] == [delivered.id]


# -- delegations ----------------------------------------------------------------------


async def test_delegations_are_put_replaced_and_found(store: Store) -> None:
    older = delegation(id="dlg_b", created_at=at(-10))
    mine = delegation(id="dlg_a")
    tie = delegation(id="dlg_c", delegator="carol", delegate="alice", conversation_id="conv_2")
    elsewhere = delegation(id="dlg_d", delegator="bob", delegate="carol", created_at=at(5))
    assert await store.write([PutDelegation(d) for d in (mine, older, tie, elsewhere)]) == [
        mine, older, tie, elsewhere
    ]  # fmt: skip
    assert await store.find_delegations("alice") == [older, mine, tie]
    assert await store.find_delegations("bob") == [older, mine, elsewhere]
    assert await store.find_delegations("alice", conversation_id="conv_2") == [tie]
    assert await store.find_delegations("dora") == []
    answered = replace(mine, status=DelegationStatus.ANSWERED, answer_message_id="chm_9",
                       answered_at=at(30))  # fmt: skip
    assert await store.write([PutDelegation(answered)]) == [answered]
    assert await store.get_delegation(mine.id) == answered
    assert await store.get_delegation("dlg_none") is None


# -- bad input ------------------------------------------------------------------------


def _too_many() -> tuple[str, ...]:
    return tuple(f"a{n:04}" for n in range(MAX_CHANNEL_MEMBERS + 1))


BAD_CHANNELS: list[tuple[str, Any]] = [
    ("key", ""), ("key", "k" * 201), ("key", None), ("key", "nul\x00"),
    ("kind", "room"), ("name", ""), ("name", "n" * (MAX_CHANNEL_NAME_CHARS + 1)),
    ("members", ["alice", "bob"]), ("members", ("bob", "alice")), ("members", ("bob", "bob")),
    ("members", ("alice", "")), ("members", _too_many()), ("created_at", T0.replace(tzinfo=None)),
    ("created_by", ""), ("created_by", 7),
]  # fmt: skip
BAD_MESSAGES: list[tuple[str, Any]] = [
    ("id", ""), ("channel_key", None), ("sender_id", "s" * 201), ("sender_kind", "robot"),
    ("text", ""), ("text", "   "), ("text", "x" * (MAX_CHANNEL_TEXT_CHARS + 1)),
    ("text", "lone \ud800"), ("text", "nul\x00"), ("conversation_id", ""),
    ("created_at", "2026-01-01"), ("seq", "1"), ("mentions", ("bob", "bob")),
    ("mentions", ["bob"]), ("mentions", _too_many()), ("reply_to", ""), ("expects_reply", 1),
    ("kind", "rumour"), ("idempotency_key", ""), ("callback_id", 3),
    ("deliveries", [Delivery("bob", DeliveryOutcome.PENDING)]),
    ("deliveries", (Delivery("bob", DeliveryOutcome.PENDING),) * 2),
    ("deliveries", (Delivery("bob", "lost"),)),  # type: ignore[arg-type]
    ("deliveries", (Delivery("", DeliveryOutcome.QUEUED),)),
    ("deliveries", (Delivery("bob", DeliveryOutcome.QUEUED, "r" * 1001),)),
    ("deliveries", (Delivery("bob", DeliveryOutcome.QUEUED, item_id=""),)),
    ("deliveries", ({"recipient": "bob", "outcome": "pending"},)),
]  # fmt: skip
BAD_DELEGATIONS: list[tuple[str, Any]] = [
    ("id", ""), ("delegator", None), ("delegate", "d" * 201), ("goal", ""),
    ("goal", "g" * (MAX_CHANNEL_TEXT_CHARS + 1)), ("channel_key", 5), ("conversation_id", ""),
    ("message_id", ""), ("created_at", T0.replace(tzinfo=None)), ("status", "closed"),
    ("answer_message_id", ""), ("answered_at", T0.replace(tzinfo=None)),
]  # fmt: skip


def _ids(cases: list[tuple[str, Any]]) -> list[str]:
    return [f"{name}={value!r}"[:40] for name, value in cases]


async def _assert_unchanged(store: Store, kept: ChannelMessage) -> None:
    assert await store.find_channels() == [channel(), channel(TEAM, ("alice", "bob", "carol"))]
    assert await history(store) == [kept] and await history(store, TEAM) == []
    assert await store.find_undelivered_messages() == [kept]
    assert await store.find_delegations("alice") == []


@pytest.mark.parametrize(("field", "value"), BAD_CHANNELS, ids=_ids(BAD_CHANNELS))
async def test_a_bad_channel_is_refused_with_nothing_written(
    with_channels: Store, field: str, value: Any
) -> None:
    store = with_channels
    [kept] = await post(store, message("kept"))
    bad = replace(channel("group:bad", ("alice",)), **{field: value})
    with pytest.raises(StoreError, match=field):
        await store.write([InsertChannelMessage(message("lost", key=TEAM)), PutChannel(bad)])
    await _assert_unchanged(store, kept)


@pytest.mark.parametrize(("field", "value"), BAD_MESSAGES, ids=_ids(BAD_MESSAGES))
async def test_a_bad_message_is_refused_with_nothing_written(
    with_channels: Store, field: str, value: Any
) -> None:
    store = with_channels
    [kept] = await post(store, message("kept"))
    bad = replace(message("bad"), **{field: value})
    with pytest.raises(StoreError, match=field):
        await store.write([PutDelegation(delegation()), InsertChannelMessage(bad)])
    await _assert_unchanged(store, kept)


@pytest.mark.parametrize(("field", "value"), BAD_DELEGATIONS, ids=_ids(BAD_DELEGATIONS))
async def test_a_bad_delegation_is_refused_with_nothing_written(
    with_channels: Store, field: str, value: Any
) -> None:
    store = with_channels
    [kept] = await post(store, message("kept"))
    bad = replace(delegation(), **{field: value})
    with pytest.raises(StoreError, match=field):
        await store.write([InsertChannelMessage(message("lost")), PutDelegation(bad)])
    await _assert_unchanged(store, kept)


@pytest.mark.parametrize(
    "op",
    [
        SetDeliveries("", ()),
        SetDeliveries(None, ()),  # type: ignore[arg-type]
        SetDeliveries("chm_1", [Delivery("bob", DeliveryOutcome.STARTED)]),  # type: ignore[arg-type]
        SetDeliveries("chm_1", (Delivery("bob", "gone"),)),  # type: ignore[arg-type]
    ],
    ids=["blank-id", "no-id", "a-list", "bad-outcome"],
)
async def test_bad_deliveries_are_refused_with_nothing_written(
    with_channels: Store, op: SetDeliveries
) -> None:
    store = with_channels
    [kept] = await post(store, message("kept", id="chm_1"))
    with pytest.raises(StoreError, match=r"deliveries|channel message id"):
        await store.write([SetDeliveries("chm_1", ()), op])
    await _assert_unchanged(store, kept)


async def test_the_largest_values_are_kept(with_channels: Store) -> None:
    store = with_channels
    members = tuple(sorted(f"agent-{n:03}" for n in range(MAX_CHANNEL_MEMBERS)))
    big = channel("g" * 200, members, name="n" * MAX_CHANNEL_NAME_CHARS)
    assert await store.write([PutChannel(big)]) == [big]
    text = "x" * MAX_CHANNEL_TEXT_CHARS
    deliveries = tuple(Delivery(m, DeliveryOutcome.QUEUED, "r" * 1000, "i" * 200) for m in members)
    [stored] = await post(
        store, message(text, key=big.key, mentions=members, deliveries=deliveries)
    )
    assert await store.get_channel_message(stored.id) == stored
    assert await store.find_channels(members[-1]) == [big]


async def test_instants_in_other_time_zones_are_the_same_instants(with_channels: Store) -> None:
    store = with_channels
    east = T0.astimezone(timezone(timedelta(hours=5, minutes=30)))
    [stored] = await post(store, message("east", created_at=east))
    found = await store.get_channel_message(stored.id)
    assert found is not None and found.created_at == T0


READS: list[tuple[str, Callable[[Store], Awaitable[Any]]]] = [
    ("limit=0", lambda s: s.find_channel_messages(DM, limit=0)),
    ("limit=501", lambda s: s.find_channel_messages(DM, limit=501)),
    ("limit=True", lambda s: s.find_channel_messages(DM, limit=True)),
    ("limit=1.5", lambda s: s.find_channel_messages(DM, limit=1.5)),
    ("before=x", lambda s: s.find_channel_messages(DM, before_seq="x")),
    ("before=2**64", lambda s: s.find_channel_messages(DM, before_seq=2**64)),
    ("key=''", lambda s: s.find_channel_messages("")),
    ("key=None", lambda s: s.find_channel_messages(None)),
    ("conversation=''", lambda s: s.find_channel_messages(DM, conversation_id="")),
    ("conversation=5", lambda s: s.find_conversation(5)),
    ("conversation limit", lambda s: s.find_conversation("conv_1", limit=0)),
    ("undelivered 0", lambda s: s.find_undelivered_messages(0)),
    ("undelivered 10001", lambda s: s.find_undelivered_messages(10_001)),
    ("kinds=str", lambda s: s.find_channels(kinds="dm")),
    ("kinds=bogus", lambda s: s.find_channels(kinds=["dm", "bogus"])),
    ("member=''", lambda s: s.find_channels("")),
    ("get_channel(5)", lambda s: s.get_channel(5)),
    ("get_message('')", lambda s: s.get_channel_message("")),
    ("get_delegation(None)", lambda s: s.get_delegation(None)),
    ("delegations agent", lambda s: s.find_delegations("x" * 201)),
    ("delegations conversation", lambda s: s.find_delegations("alice", conversation_id="")),
]


@pytest.mark.parametrize("read", [r for _, r in READS], ids=[n for n, _ in READS])
async def test_bad_read_arguments_are_invalid_input(
    with_channels: Store, read: Callable[[Store], Awaitable[Any]]
) -> None:
    with pytest.raises(InvalidInput):
        await read(with_channels)


async def test_the_page_bounds_are_accepted(with_channels: Store) -> None:
    store = with_channels
    [only] = await post(store, message("only"))
    assert await store.find_channel_messages(DM, limit=500, before_seq=2**63 - 1) == [only]
    assert await store.find_channel_messages(DM, limit=1, before_seq=-(2**63)) == []
    assert await store.find_undelivered_messages(10_000) == [only]


# -- concurrency and restarts ---------------------------------------------------------


async def test_concurrent_sends_get_distinct_seqs_in_history_order(with_channels: Store) -> None:
    store = with_channels
    sent = await asyncio.gather(
        *(store.write([InsertChannelMessage(message(f"m{n}", key=(DM, TEAM)[n % 2]))])
          for n in range(40))
    )  # fmt: skip
    seqs = [result[0][0].seq for result in sent]
    assert len(set(seqs)) == 40
    both = await history(store) + await history(store, TEAM)
    assert sorted(m.seq for m in both) == sorted(seqs)
    for key in (DM, TEAM):
        page = await history(store, key)
        assert [m.seq for m in page] == sorted(m.seq for m in page)


@pytest.fixture
async def reopen(backend: str, tmp_path: Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Opens another store on the same database as ``store`` (memory: skipped)."""
    if backend == "memory":
        pytest.skip("a memory store keeps nothing across a restart")
    opened: list[Store] = []

    async def make() -> Store:
        made: Store = (
            SQLiteStore(tmp_path / "attn.db") if backend == "sqlite" else open_store(backend)
        )
        await made.open()
        opened.append(made)
        return made

    yield make
    for made in opened:
        await made.close()


async def test_history_keeps_order_and_senders_across_a_restart(
    with_channels: Store, reopen: Callable[[], Awaitable[Store]]
) -> None:
    store = with_channels
    sent = await post(
        store,
        message("from alice", sender="alice", idempotency_key="k"),
        message("from bob", sender="bob", reply_to="chm_0"),
        message("from a person", sender="ui", sender_kind=SenderKind.PERSON, key=TEAM),
    )
    made = delegation()
    await store.write([PutDelegation(made)])
    await store.close()
    again = await reopen()
    assert await again.find_channels() == [channel(), channel(TEAM, ("alice", "bob", "carol"))]
    assert await history(again) == sent[:2]
    assert await history(again, TEAM) == sent[2:]
    assert await again.find_undelivered_messages() == sent
    assert await again.find_delegations("bob") == [made]
    # The counter goes on after the restart, and a used key is still used.
    [later] = await post(again, message("after"))
    assert later.seq > sent[-1].seq
    repeat = message("repeat", sender="alice", idempotency_key="k")
    assert await again.write([InsertChannelMessage(repeat)]) == [(sent[0], False)]


async def test_the_memory_store_answers_the_same_records_it_was_given() -> None:
    """Records are frozen: the memory store shares them, and a later write changes no
    record a caller already holds."""
    store = MemoryStore()
    await store.open()
    await store.write([PutChannel(channel())])
    [first] = await post(store, message("one"))
    await store.write([SetDeliveries(first.id, ())])
    assert first.deliveries == (Delivery("bob", DeliveryOutcome.PENDING),)
    assert await store.find_undelivered_messages() == []
    await store.close()
